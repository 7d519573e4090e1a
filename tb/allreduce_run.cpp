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


// What the run's HTML page needs beyond the statistics (tb/view_data.h): the link
// windows, the dead chips, boards and links dated, the drops per link and per chip, and
// the roles in the first collective and, after a restart, in the last one.
nlohmann::ordered_json view_json(const Config& cfg, Network& net, const LinkWindows& lw,
                                 const FaultController* ctl, const CollectiveRun& first,
                                 const Host& host, Cycle start_cycle,
                                 const std::vector<TimelineEvent>& timeline) {
  const Topology2D& t = net.topology();
  nlohmann::ordered_json j;
  j[result_key::kLinkWindows] = lw.json(t);
  static const std::vector<size_t> kNone;
  static const std::vector<Cycle> kNoCycles;
  add_dead_elements(cfg.net, ctl ? ctl->applied_indices() : kNone, ctl ? ctl->fault_cycles() : kNoCycles, &j);
  nlohmann::ordered_json ld = nlohmann::ordered_json::array();
  for (ChipId c = 0; c < (ChipId)t.chips(); ++c)
    for (int p = 0; p < kNumNetPorts; ++p)
      if (Link* l = net.link(c, (Port)p))
        if (l->dropped_flits() || l->dropped_dead_destination())
          ld.push_back({{"x", t.x(c)}, {"y", t.y(c)}, {"port", port_name((Port)p)},
                        {"dead_link", l->dropped_flits()}, {"dead_destination", l->dropped_dead_destination()}});
  j[result_key::kLinkDrops] = ld;
  nlohmann::ordered_json cd = nlohmann::ordered_json::array();
  if (ctl)
    for (const auto& [c, n] : ctl->dead_router_by_chip())
      cd.push_back({{"x", t.x(c)}, {"y", t.y(c)}, {"dead_router", n}});
  j[result_key::kChipDrops] = cd;
  const FaultSet before(cfg.net);
  std::vector<char> dead(t.chips());
  for (ChipId c = 0; c < (ChipId)t.chips(); ++c) dead[c] = before.chip_dead(c);
  nlohmann::ordered_json roles = nlohmann::ordered_json::array();
  if (host.collective_started())
    roles.push_back(chip_roles_json(first.schedule(), t, dead, start_cycle, coll::to_string(cfg.coll.algo)));
  const std::shared_ptr<CollectiveRun> last = host.current();
  if (last && last.get() != &first) {
    Cycle from = start_cycle;
    for (const TimelineEvent& e : timeline)
      if (e.kind == EventKind::Restart) from = e.cycle;
    for (ChipId c = 0; c < (ChipId)t.chips(); ++c) dead[c] = host.faults().chip_dead(c);
    roles.push_back(chip_roles_json(last->schedule(), t, dead, from, coll::to_string(cfg.recovery.restart_algo)));
  }
  j[result_key::kChipRoles] = roles;
  return j;
}

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

// One allreduce machine as built for a run: the network, the chips, the host, the fault
// controller and the tracer (SystemC modules, elaborated in this order and destroyed in
// the reverse), with what the run and its measurement need from the setup.
struct Machine {
  Config cfg;  // the run's (verify resolved); the modules keep references into it
  std::shared_ptr<const FaultSet> faults;  // before the run
  RouteSet routes;
  std::unique_ptr<CollectiveLibrary> lib;
  std::shared_ptr<CollectiveRun> first;  // the collective as it starts
  uint64_t first_flits = 0;              // its flits, headers included
  Cycle compute_cycles = 0;
  std::unique_ptr<Network> net;
  std::vector<std::unique_ptr<Chip>> chips;  // by chip id; null for chips dead before the run
  std::unique_ptr<Host> host;
  std::unique_ptr<FaultController> ctl;  // only with failures during the run
  std::unique_ptr<Tracer> tracer;
};

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
  Tracer* tracer = m.tracer.get();
  const std::vector<std::unique_ptr<Chip>>& chips = m.chips;
  std::unique_ptr<Network>& net = m.net;
  const int n = net->chips();
  const Cycle compute_cycles = m.compute_cycles;
  const std::shared_ptr<CollectiveRun>& first = m.first;
  const uint64_t first_flits = m.first_flits;
  auto progress = [&host](const NetCounters&, Cycle done, double el) {
    const double frac = host.progress();
    std::fprintf(stderr, "\rcycle %llu  %5.1f%% of the data reduced  ETA %.0fs   ",
                 (unsigned long long)done, 100 * frac, frac > 0 ? el / frac * (1 - frac) : 0.0);
  };
  auto engine_violation = [&]() -> std::string {
    for (const auto& ch : chips)
      if (ch && ch->engine().violations()) return ch->engine().first_violation();
    return "";
  };
  Driver drv(*net, cfg.run.watchdog, opt.progress ? std::function<void(const NetCounters&, Cycle, double)>(progress) : nullptr,
             &r.stop_reason, &r.message, [&] { return !host.finished() || (ctl && !ctl->settled()); },
             engine_violation);
  // Waits on a timer are not stalls: the compute phase, a chip's HBM at work (restoring
  // its buffer after an abort takes a read and a write of the whole gradient: 10,923
  // cycles at 3 MiB, past the default watchdog), the controller's detection latency and
  // table writes.
  drv.set_timed_work([&]() -> Cycle {
    Cycle t = host.collective_started() ? 0 : compute_cycles;
    for (const auto& ch : chips)
      if (ch) t = std::max(t, (Cycle)std::ceil(ch->hbm().busy_until()));
    if (ctl) t = std::max(t, ctl->timer_until());
    return t;
  });
  // Link utilization over time: every `window` cycles, the mean over the live links.
  const Cycle window = cfg.run.util_window;
  uint64_t sent_before = 0;
  size_t fault_marks = 0;
  bool ok = true;
  const Cycle max_cycles = cfg.run.max_cycles
                               ? cfg.run.max_cycles
                               : allreduce_cycle_limit(cfg, (first_flits + first->schedule().participants() - 1) /
                                                                std::max(1, first->schedule().participants()),
                                                       most_sends(first->schedule()), compute_cycles);
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
    if (tracer && ctl && ctl->timeline().size() > fault_marks) {
      for (; fault_marks < ctl->timeline().size(); ++fault_marks) {
        const TimelineEvent& e = ctl->timeline()[fault_marks];
        if (e.kind == EventKind::Fault) tracer->fault_event(e.cycle, e.what);
      }
    }
    if (drv.done() % window == 0 || host.finished()) {
      uint64_t sent = 0;
      int live = 0;
      for (int c = 0; c < n; ++c)
        for (int p = 0; p < kNumNetPorts; ++p)
          if (Link* l = net->link(c, (Port)p)) {
            sent += l->flits_sent();
            live += !l->failed();
          }
      const Cycle from = r.util_series.empty() ? 0 : r.util_series.back().first;
      const Cycle span = drv.done() - from;
      if (span && live) r.util_series.push_back({drv.done(), (double)(sent - sent_before) / span / live});
      sent_before = sent;
      link_windows.sample(*net, drv.done());
    }
  }
  *done = drv.done();
  return ok;
}

// Measure: counters, conservation, timing from the first START to the last completion,
// bounds on the final topology, phases, link utilization, and the sums (verify).
void measure(Machine& m, const LinkWindows& link_windows, bool ok, Cycle done, AllreduceResult& r) {
  const Config& cfg = m.cfg;
  Host& host = *m.host;
  FaultController* ctl = m.ctl.get();
  Tracer* tracer = m.tracer.get();
  const std::vector<std::unique_ptr<Chip>>& chips = m.chips;
  std::unique_ptr<Network>& net = m.net;
  const int n = net->chips();
  const std::vector<TimedFault>& timed = cfg.net.faults.timed;
  const sc_core::sc_time period = net->clock().period();
  const bool verify = cfg.coll.verify == Verify::On;
  const CollectiveRun& first = *m.first;
  const uint64_t first_flits = m.first_flits;
  const RouteSet& rs = m.routes;
  if (tracer) r.wave_note = tracer->finish();
  r.totals = net->counters();
  r.peak_rss_kb = peak_rss_kb();
  r.planning_seconds = host.planning_seconds();
  r.threads = net->clock().threads();
  r.parallel_cycles = net->clock().parallel_cycles();
  r.rebalances = net->clock().rebalances();
  r.router_cycles_per_second = r.wall_seconds > 0 ? (double)done * n / r.wall_seconds : 0;
  if (ctl) {
    r.timeline = ctl->timeline();
    r.drops = ctl->drops();
    r.restarts = ctl->restarts();
    for (size_t i = 0; i < timed.size(); ++i)
      if (std::find(ctl->applied_indices().begin(), ctl->applied_indices().end(), i) ==
          ctl->applied_indices().end())
        r.untriggered.push_back(to_string(timed[i]));
  }
  for (const auto& ch : chips)
    if (ch) r.discarded_abort += ch->engine().discarded_flits();
  // Conservation: every injected flit was ejected, dropped for a counted reason, or (in
  // a run stopped early) is still in a router buffer or on a link.
  r.flits_delivered = r.totals.flits_ejected - r.discarded_abort;
  r.flits_in_network = r.totals.buffered_flits + net->flits_in_flight();
  r.conservation_ok =
      r.totals.flits_injected == r.totals.flits_ejected + r.drops.total() + r.flits_in_network;
  // What the run had reached, also when it stops early: the live set the host knows, the
  // collective it ran last, the cycles from its first START to the stop.
  const FaultSet& fin = host.faults();
  const std::shared_ptr<CollectiveRun> run = host.current();
  r.live_chips = fin.live_chips();
  if (ctl && (!ok || !host.error().empty())) r.live_chips = ctl->detected_faults()->live_chips();
  if (run) {
    r.participants = run->schedule().participants();
    r.words = run->schedule().words;
    r.transfers = run->schedule().xfers.size();
  }
  r.start_cycle = host.collective_started() ? (Cycle)std::llround(host.started_at() / period) : 0;
  r.view = view_json(cfg, *net, link_windows, ctl, first, host, r.start_cycle, r.timeline);
  if (!ok || !host.error().empty()) {
    if (ok) {
      r.stop_reason = ctl && !ctl->timeline().empty() && ctl->timeline().back().kind == EventKind::Partitioned
                          ? "partitioned" : "refused";
      r.message = host.error();
    }
    r.end_cycle = ok ? (Cycle)std::llround(host.gave_up_at() / period) : done;
    r.cycles = host.collective_started() ? r.end_cycle - r.start_cycle : 0;
    r.time_us = r.cycles * cfg.net.cycle_ns() / 1000.0;
    if (ctl) r.timeline.push_back({r.end_cycle, EventKind::Stopped, "stopped: " + r.stop_reason});
    return;
  }
  const coll::Schedule& sched = run->schedule();
  // Timing: from the first START writes to the last chip's completion of the final run.
  for (int c = 0; c < n; ++c)
    if (chips[c] && !fin.chip_dead(c)) r.end_cycle = std::max(r.end_cycle, chips[c]->engine().done_cycle());
  r.cycles = r.end_cycle - r.start_cycle;
  if (ctl) r.timeline.push_back({r.end_cycle, EventKind::Complete, "complete"});
  const double cns = cfg.net.cycle_ns();
  r.time_us = r.cycles * cns / 1000.0;
  r.step_time_us = cfg.chip.compute_us + r.time_us;
  if (r.cycles > 0) {
    r.algbw_GBps = (double)cfg.coll.bytes / (r.cycles * cns);  // bytes per ns = GB/s
    const int p = r.participants;
    r.busbw_GBps = p > 1 ? r.algbw_GBps * 2.0 * (p - 1) / p : 0;
  }
  // Bounds (docs/collectives.md): the final schedule's busiest resource on the final
  // routes, and what any allreduce of the live chips could do on the final topology.
  NetworkConfig fin_cfg = cfg.net;
  fin_cfg.faults = with_timed(cfg.net.faults, ctl ? ctl->applied_indices() : std::vector<size_t>());
  const std::vector<RouteTable> fin_tables = timed.empty() ? rs.tables : build_routes(fin_cfg, fin).tables;
  const coll::ScheduleLoad load = coll::schedule_load(sched, fin.topology(), fin_tables);
  r.max_link_words = load.max_link_words;
  const double fb = cfg.net.flit_bytes;
  const double hbm_rate = cfg.chip.hbm_gbps / cfg.net.link_gbps * fb;      // bytes/cycle
  const double red_rate = cfg.chip.reduce_gbps / cfg.net.link_gbps * fb;
  uint64_t max_hbm = 0, max_red = 0;
  for (int c = 0; c < n; ++c) {
    max_hbm = std::max(max_hbm, load.chip_hbm_words[c]);
    max_red = std::max(max_red, load.chip_reduce_words[c]);
  }
  r.bound_cycles = std::max({coll::algorithm_bound_words(load), max_hbm * fb / hbm_rate,
                             max_red * fb / red_rate});
  std::vector<char> live_set(n);
  for (int c = 0; c < n; ++c) live_set[c] = !fin.chip_dead(c);
  r.topo_bound_cycles = coll::topology_bound_words(fin, live_set, sched.words);
  if (r.cycles > 0) {
    r.bound_ratio = r.bound_cycles / r.cycles;
    r.topo_bound_ratio = r.topo_bound_cycles / r.cycles;
  }
  for (size_t ph = 0; ph < sched.phases.size(); ++ph) {
    PhaseTime t{coll::phase_name(sched.phases[ph]), 0, 0};
    if (run->phase_start(ph) != kNever) {
      t.start = run->phase_start(ph) - r.start_cycle;
      t.end = run->phase_end(ph) - r.start_cycle;
    }
    r.phases.push_back(t);
  }
  double usum = 0;
  int ulinks = 0;
  for (int c = 0; c < n; ++c) {
    for (int p = 0; p < kNumNetPorts; ++p) {
      Link* l = net->link(c, (Port)p);
      if (!l || fin.link_dead(c, (Port)p)) continue;
      const double u = r.cycles ? (double)l->flits_sent() / r.cycles : 0;
      r.links.push_back({fin.topology().x(c), fin.topology().y(c), (Port)p, u});
      usum += u;
      ++ulinks;
      r.link_util_max = std::max(r.link_util_max, u);
    }
  }
  r.link_util_mean = ulinks ? usum / ulinks : 0;
  for (const auto& ch : chips) {
    if (!ch) continue;
    r.hbm_bytes += ch->hbm().bytes_moved();
    r.words_reduced += ch->engine().words_reduced();
  }
  if (!r.conservation_ok || r.flits_in_network || (timed.empty() && r.totals.flits_ejected != first_flits)) {
    r.stop_reason = "accounting";
    r.message = "flits injected " + std::to_string(r.totals.flits_injected) + " != ejected " +
                std::to_string(r.totals.flits_ejected) + " + dropped " + std::to_string(r.drops.total()) +
                (timed.empty() ? " (expected " + std::to_string(first_flits) + " flits)" : "");
    return;
  }
  if (verify) {
    std::vector<uint64_t> sum(sched.words, 0);
    for (int c = 0; c < n; ++c)
      if (sched.participant[c])
        for (uint32_t i = 0; i < sched.words; ++i) sum[i] += coll::initial_word(c, i);
    r.verified = true;
    for (int c = 0; c < n && *r.verified; ++c) {
      if (!sched.participant[c]) continue;
      const std::vector<uint64_t>& w = chips[c]->hbm().words();
      for (uint32_t i = 0; i < sched.words; ++i) {
        const uint64_t got = i < w.size() ? w[i] : 0;
        if (got != sum[i]) {
          std::ostringstream msg;
          msg << "wrong sum on chip (" << fin.topology().x(c) << "," << fin.topology().y(c)
            << ") at word " << i << ": expected " << sum[i] << ", holds " << got;
          r.verified = false;
          r.stop_reason = "wrong-sum";
          r.message = msg.str();
          break;
        }
      }
    }
    if (!*r.verified) return;
  }
  r.ok = true;
  r.stop_reason = "done";
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

nlohmann::ordered_json allreduce_json(const AllreduceResult& r) {
  namespace rk = result_key;
  nlohmann::ordered_json j = result_header(ResultKind::Allreduce);
  j[rk::kOk] = r.ok;
  j[rk::kStopReason] = r.stop_reason;
  if (!r.message.empty()) j[rk::kMessage] = r.message;
  j[rk::kAlgo] = coll::to_string(r.config.coll.algo);
  j[rk::kBytes] = r.config.coll.bytes;
  j[rk::kCycles] = r.cycles;
  j[rk::kStartCycle] = r.start_cycle;  // phases' start/end count from here
  j["max_cycles_limit"] = r.max_cycles;  // the max-cycles guard in force
  j[rk::kTimeUs] = r.time_us;
  j["step_time_us"] = r.step_time_us;
  j[rk::kAlgbwGBps] = r.algbw_GBps;
  j[rk::kBusbwGBps] = r.busbw_GBps;
  j[rk::kBoundCycles] = r.bound_cycles;
  j[rk::kBoundRatio] = r.bound_ratio;
  j[rk::kTopoBoundCycles] = r.topo_bound_cycles;
  j[rk::kTopoBoundRatio] = r.topo_bound_ratio;
  j[rk::kVerified] = r.verified ? nlohmann::ordered_json(*r.verified) : nlohmann::ordered_json(nullptr);
  j[rk::kLiveChips] = r.live_chips;
  j[rk::kParticipants] = r.participants;
  j[rk::kWordsPerChip] = r.words;
  j[rk::kTransfers] = r.transfers;
  j[rk::kMaxLinkWords] = r.max_link_words;
  nlohmann::ordered_json ph = nlohmann::ordered_json::array();
  for (const PhaseTime& p : r.phases) ph.push_back({{"name", p.name}, {"start", p.start}, {"end", p.end}});
  j[rk::kPhases] = ph;
  j[rk::kLinkUtilMean] = r.link_util_mean;
  j[rk::kLinkUtilMax] = r.link_util_max;
  nlohmann::ordered_json links = nlohmann::ordered_json::array();
  for (const LinkUtil& l : r.links)
    links.push_back({{"x", l.x}, {"y", l.y}, {"port", port_name(l.port)}, {"utilization", l.utilization}});
  j[rk::kLinkUtilization] = links;
  j[rk::kFlitsInjected] = r.totals.flits_injected;
  j[rk::kFlitsEjected] = r.totals.flits_ejected;
  j[rk::kFlitsDelivered] = r.flits_delivered;
  j[rk::kFlitsDropped] = {{"dead_router", r.drops.dead_router},
                          {"dead_link", r.drops.dead_link},
                          {"dead_destination", r.drops.dead_destination},
                          {"flushed", r.drops.flushed},
                          {"abort", r.discarded_abort},
                          {"total", r.drops.total() + r.discarded_abort}};
  j["flits_in_network"] = r.flits_in_network;  // left in buffers and on links at a stop
  j[rk::kConservationOk] = r.conservation_ok;
  j[rk::kRestarts] = r.restarts;
  nlohmann::ordered_json tl = nlohmann::ordered_json::array();
  for (const TimelineEvent& e : r.timeline) tl.push_back({{"cycle", e.cycle}, {"event", e.what}});
  j[rk::kTimeline] = tl;
  j[rk::kFaultsNotTriggered] = r.untriggered;
  nlohmann::ordered_json us = nlohmann::ordered_json::array();
  for (const auto& [c, u] : r.util_series) us.push_back({{"cycle", c}, {"utilization", u}});
  j[rk::kLinkUtilizationOverTime] = us;
  for (auto it = r.view.begin(); it != r.view.end(); ++it) j[it.key()] = it.value();
  j["hbm_bytes_moved"] = r.hbm_bytes;
  j["words_reduced"] = r.words_reduced;
  j["routing"] = routes_json(r.routes_info, r.route_check);
  j[rk::kConfig] = config_json(r.config, Command::Allreduce);
  j[rk::kScheduleFingerprint] = r.schedule_fingerprint;
  j[rk::kModelVersion] = kModelVersion;
  j[rk::kRecoveryVersion] = recovery_version(r.config);
  j[rk::kSimulator] = {{"wall_seconds", r.wall_seconds},
                       {"setup_seconds", r.setup_seconds},
                       {"recovery_planning_seconds", r.planning_seconds},
                       {"router_cycles_per_second", r.router_cycles_per_second},
                       {"peak_rss_kb", r.peak_rss_kb},
                       {"cpu", host_cpu()},
                       {"threads", r.threads},
                       {"parallel_cycles", r.parallel_cycles},
                       {"rebalances", r.rebalances}};
  return j;
}

}  // namespace fm
