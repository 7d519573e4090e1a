#include "tb/allreduce_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <sstream>

#include "models/chip/chip.h"
#include "models/chip/host.h"
#include "models/collective/algorithms.h"
#include "models/fault/fault_controller.h"
#include "models/model_version.h"
#include "models/noc/network.h"
#include "tb/allreduce_machine.h"
#include "tb/config_schema.h"
#include "tb/driver.h"
#include "tb/memory.h"
#include "tb/result_keys.h"
#include "tb/tracer.h"
#include "tb/view_data.h"

namespace fm {

namespace {

using Clk = std::chrono::steady_clock;

// The algorithm a failure restarts with must accept the machine every failure leaves:
// each --fail-at alone and all of them in the order given (a refusal known before the
// run is bad input, not a run that fails at its first failure). A machine a failure
// partitions is the run's own outcome ("partitioned"), not checked here.
void check_restart_algo(const Config& cfg) {
  const std::vector<TimedFault>& timed = cfg.net.faults.timed;
  std::vector<size_t> upto;
  for (size_t i = 0; i < timed.size(); ++i) {
    upto.push_back(i);
    for (const std::vector<size_t>& set : {std::vector<size_t>{i}, upto}) {
      Config after = cfg;
      after.net.faults = with_timed(cfg.net.faults, set);
      after.coll.algo = cfg.recovery.restart_algo;
      const FaultSet f(after.net);
      if (!f.connectivity().empty()) continue;
      try {
        coll::count_transfers(f, coll::algo_params_of(after));
      } catch (const ConfigError& e) {
        throw ConfigError("--restart-algo " + std::string(coll::to_string(cfg.recovery.restart_algo)) +
                          " refuses the machine " + (set.size() == 1 ? "after --fail-at " + to_string(timed[i])
                                                                      : "after the --fail-at failures up to " + to_string(timed[i])) +
                          ": " + e.what() + " (choose another --restart-algo, e.g. ft2d)");
      }
    }
  }
}

// The run's fingerprint from its first schedule's (schedule_fingerprint): with failures
// during the run, joined by the restart algorithm's schedule on the machine after all
// of them (nothing more when that algorithm refuses it: the run then ends refused).
std::string fingerprint_with_failures(const Config& cfg, uint64_t first) {
  char b[40];
  std::snprintf(b, sizeof b, "%016llx", (unsigned long long)first);
  std::string s = b;
  const std::vector<TimedFault>& timed = cfg.net.faults.timed;
  if (timed.empty()) return s;
  std::vector<size_t> all(timed.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  Config after = cfg;
  after.net.faults = with_timed(cfg.net.faults, all);
  after.coll.algo = cfg.recovery.restart_algo;
  try {
    const FaultSet f(after.net);
    std::snprintf(b, sizeof b, "+%016llx",
                  (unsigned long long)coll::fingerprint(coll::build_schedule(f, coll::algo_params_of(after))));
    s += b;
  } catch (const ConfigError&) {
    s += "+refused";
  }
  return s;
}
double since(Clk::time_point t) { return std::chrono::duration<double>(Clk::now() - t).count(); }


// The most transfers one chip sends in a schedule (the cycle guard's latency term).
uint64_t most_sends(const coll::Schedule& s) {
  std::vector<uint64_t> n(s.participant.size(), 0);
  uint64_t most = 0;
  for (const coll::Xfer& x : s.xfers) most = std::max(most, ++n[x.src]);
  return most;
}

}  // namespace

Cycle allreduce_cycle_limit(const Config& c, uint64_t flits_per_chip, uint64_t sends_per_chip, Cycle compute_cycles) {
  const NetworkConfig& n = c.net;
  const double rtt = n.pipeline + n.link_latency + n.credit_latency + 1;
  const double slow = std::max({1.0, n.link_gbps / c.chip.hbm_gbps, n.link_gbps / c.chip.reduce_gbps,
                                rtt / ((double)n.buf * n.vcs)});
  // Latency: a chain of dependent transfers pays a hop's pipeline and link latency (and a
  // credit's return) per transfer; 4x the busiest chip's sends of round trips bounds it
  // with room for detours, which matters once links are long (a ring of 1,000 steps at
  // 500 cycles a hop is 500,000 cycles of latency alone).
  const double per_run = 16.0 * slow * (double)flits_per_chip + 4.0 * (double)sends_per_chip * rtt + 100000.0;
  const double failures = (double)n.faults.timed.size();
  const double recovery = c.recovery.detect + c.recovery.max_drain + 10000.0;
  const double total = compute_cycles + (1 + failures) * per_run + failures * recovery;
  return total >= 1e18 ? (Cycle)1e18 : (Cycle)total;
}

namespace {

using allreduce_tb::Machine;
using allreduce_tb::measure;



// Build: checks the request (failures, phases, memory, routes, the algorithm's refusal)
// before anything is simulated, then elaborates the machine and loads the chips' data.
std::unique_ptr<Machine> build_machine(const Config& cfg_in, const RunOptions& opt, AllreduceResult& r) {
  auto m = std::make_unique<Machine>();
  Config& cfg = m->cfg;
  cfg = cfg_in;
  cfg.coll.verify = verifies(cfg_in) ? Verify::On : Verify::Off;
  r.config = cfg_in;
  m->faults = std::make_shared<const FaultSet>(cfg.net);
  const FaultSet& faults = *m->faults;
  // Failures during the run are checked against the topology before anything runs.
  const std::vector<TimedFault>& timed = cfg.net.faults.timed;
  if (!timed.empty()) {
    std::vector<size_t> all(timed.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    NetworkConfig probe = cfg.net;
    probe.faults = with_timed(cfg.net.faults, all);
    const FaultSet check(probe);  // throws ConfigError naming a bad --fail-at
    check_restart_algo(cfg);
  }
  // Memory: the network, the schedule (counted, not built) and the verified data, before
  // the routes, the schedule, the network or the chips' data are built (tb/memory.h).
  check_memory(estimate_allreduce_memory(cfg, faults, cfg.coll.verify == Verify::On), cfg.run.mem_limit);
  RouteSet& rs = m->routes;
  rs = checked_routes(cfg, faults, opt, &r.route_check);
  // The collective is compiled before anything is simulated, so a refusal (e.g. 2d on a
  // machine with holes) is reported as bad input with the algorithm's own message.
  m->lib = std::make_unique<CollectiveLibrary>(cfg, m->faults);
  CollectiveLibrary& lib = *m->lib;
  m->first = lib.get(descriptor_of(cfg, faults));
  const std::shared_ptr<CollectiveRun>& first = m->first;
  r.schedule_fingerprint = fingerprint_with_failures(cfg, coll::fingerprint(first->schedule()));
  m->first_flits = [&] {
    uint64_t t = 0;
    for (uint32_t x = 0; x < first->schedule().xfers.size(); ++x)
      t += first->schedule().xfers[x].len + first->packets_of(x);
    return t;
  }();
  // A phase trigger must name a phase of the collective as it starts (it may also fire
  // in a restarted run that has a phase of that name).
  for (const TimedFault& f : timed) {
    if (!f.by_phase()) continue;
    std::string have;
    bool found = false;
    for (const coll::Phase& p : first->schedule().phases) {
      found |= phase_matches(f.phase, p);
      have += (have.empty() ? "" : ", ") + phase_key(coll::phase_name(p));
    }
    if (!found)
      throw ConfigError("--fail-at " + to_string(f) + ": the " + coll::to_string(cfg.coll.algo) +
                        " allreduce has no phase '" + f.phase + "'; its phases: " + have);
  }
  if (opt.router_factory && !timed.empty())
    throw ConfigError("--fail-at needs the SystemC model routers (the RTL routers have no fault hooks)");
  m->net = build_network(cfg, faults, rs, opt);
  std::unique_ptr<Network>& net = m->net;
  r.routes_info = rs;
  r.routes_info.tables.clear();
  const int n = net->chips();
  const sc_core::sc_time period = net->clock().period();
  const bool verify = cfg.coll.verify == Verify::On;
  std::vector<std::unique_ptr<Chip>>& chips = m->chips;
  chips.resize(n);
  std::vector<Chip*> by_id(n, nullptr);
  for (int c = 0; c < n; ++c) {
    if (faults.chip_dead(c)) continue;
    const std::string name = "chip_" + std::to_string(faults.topology().x(c)) + "_" +
                             std::to_string(faults.topology().y(c));
    chips[c] = std::make_unique<Chip>(name.c_str(), cfg, c, net->ni(c), lib, period, verify);
    by_id[c] = chips[c].get();
    if (verify && first->schedule().participant[c]) {
      std::vector<uint64_t>& w = chips[c]->hbm().words();
      w.resize(first->schedule().words);
      for (uint32_t i = 0; i < first->schedule().words; ++i) w[i] = coll::initial_word(c, i);
    }
  }
  const Cycle compute_cycles = m->compute_cycles = (Cycle)std::llround(cfg.chip.compute_us * 1000.0 / cfg.net.cycle_ns());
  m->host = std::make_unique<Host>("host", cfg, by_id, lib, *net, period * (double)compute_cycles);
  if (!timed.empty()) m->ctl = std::make_unique<FaultController>("faults", cfg, *net, *m->host);
  if (opt.wave) m->tracer = Tracer::attach(*net, *opt.wave);
  if (m->tracer && !faults.empty())
    m->tracer->fault_event(0, "faults applied before the run: " + faults.describe());
  return m;
}

// Run: steps the clock until the host is finished, a guard stops it or max-cycles is
// reached, sampling the link utilization every window; false when stopped early. *done:
// the cycles simulated.
bool simulate(Machine& m, const RunOptions& opt, LinkWindows& link_windows, AllreduceResult& r, Cycle* done) {
  const Config& cfg = m.cfg;
  Host& host = *m.host;
  FaultController* ctl = m.ctl.get();
  auto progress = [&host](const NetCounters&, Cycle done, double el) {
    const double frac = host.progress();
    std::fprintf(stderr, "\rcycle %llu  %5.1f%% of the data reduced  ETA %.0fs   ",
                 (unsigned long long)done, 100 * frac, frac > 0 ? el / frac * (1 - frac) : 0.0);
  };
  auto engine_violation = [&]() -> std::string {
    for (const auto& ch : m.chips)
      if (ch && ch->engine().violations()) return ch->engine().first_violation();
    return "";
  };
  Driver drv(*m.net, cfg.run.watchdog, opt.progress ? std::function<void(const NetCounters&, Cycle, double)>(progress) : nullptr,
             &r.stop_reason, &r.message, [&] { return !host.finished() || (ctl && !ctl->settled()); },
             engine_violation);
  // Waits on a timer are not stalls: the compute phase, a chip's HBM at work (restoring
  // its buffer after an abort takes a read and a write of the whole gradient: 10,923
  // cycles at 3 MiB, past the default watchdog), the controller's detection latency and
  // table writes.
  drv.set_timed_work([&]() -> Cycle {
    Cycle t = host.collective_started() ? 0 : m.compute_cycles;
    for (const auto& ch : m.chips)
      if (ch) t = std::max(t, (Cycle)std::ceil(ch->hbm().busy_until()));
    if (ctl) t = std::max(t, ctl->timer_until());
    return t;
  });
  // Link utilization over time: every `window` cycles, the mean over the live links.
  const Cycle window = cfg.run.util_window;
  uint64_t sent_before = 0;
  size_t fault_marks = 0;
  bool ok = true;
  const coll::Schedule& first = m.first->schedule();
  const Cycle max_cycles = cfg.run.max_cycles
                               ? cfg.run.max_cycles
                               : allreduce_cycle_limit(cfg, (m.first_flits + first.participants() - 1) /
                                                                std::max(1, first.participants()),
                                                       most_sends(first), m.compute_cycles);
  r.max_cycles = max_cycles;
  while (ok && !host.finished()) {
    if (drv.done() >= max_cycles) {
      r.stop_reason = "max-cycles";
      r.message = "max-cycles: the allreduce had not finished after " + std::to_string(drv.done()) +
                  " cycles (" + std::to_string(host.progress() * 100.0).substr(0, 5) +
                  " % of the running collective's data reduced; limit --max-cycles " +
                  (cfg.run.max_cycles ? std::to_string(max_cycles) : "auto = " + std::to_string(max_cycles)) +
                  "); raise --max-cycles if this configuration is legitimately this slow";
      ok = false;
      break;
    }
    ok = drv.run_until(std::min<Cycle>(drv.done() + 256, max_cycles), 256);
    if (m.tracer && ctl && ctl->timeline().size() > fault_marks) {
      for (; fault_marks < ctl->timeline().size(); ++fault_marks) {
        const TimelineEvent& e = ctl->timeline()[fault_marks];
        if (e.kind == EventKind::Fault) m.tracer->fault_event(e.cycle, e.what);
      }
    }
    if (drv.done() % window == 0 || host.finished()) {
      uint64_t sent = 0;
      int live = 0;
      for (int c = 0; c < m.net->chips(); ++c)
        for (int p = 0; p < kNumNetPorts; ++p)
          if (Link* l = m.net->link(c, (Port)p)) {
            sent += l->flits_sent();
            live += !l->failed();
          }
      const Cycle from = r.util_series.empty() ? 0 : r.util_series.back().first;
      const Cycle span = drv.done() - from;
      if (span && live) r.util_series.push_back({drv.done(), (double)(sent - sent_before) / span / live});
      sent_before = sent;
      link_windows.sample(*m.net, drv.done());
    }
  }
  *done = drv.done();
  return ok;
}

}  // namespace

AllreduceResult run_allreduce(const Config& cfg_in, const RunOptions& opt) {
  AllreduceResult r;
  const auto t0 = Clk::now();
  std::unique_ptr<Machine> m = build_machine(cfg_in, opt, r);
  r.setup_seconds = since(t0);
  LinkWindows link_windows(*m->net);  // the utilization windows, per link direction
  const auto t1 = Clk::now();
  Cycle done = 0;
  const bool ok = simulate(*m, opt, link_windows, r, &done);
  r.wall_seconds = since(t1);
  measure(*m, link_windows, ok, done, r);
  return r;
}

int recovery_version(const Config& cfg) { return cfg.net.faults.timed.empty() ? 0 : kRecoveryVersion; }

std::string schedule_fingerprint(const Config& cfg) {
  const FaultSet f(cfg.net);
  return fingerprint_with_failures(cfg, coll::fingerprint(coll::build_schedule(f, coll::algo_params_of(cfg))));
}

}  // namespace fm
