// The allreduce testbench's measurement (tb/allreduce_machine.h): what a finished or
// stopped run reached, its bounds, its activity and its sums.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "models/collective/algorithms.h"
#include "tb/allreduce_machine.h"
#include "tb/memory.h"
#include "tb/result_keys.h"
#include "tb/traffic_run.h"

namespace fm::allreduce_tb {

namespace {

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

// Measure, part 1: the counters, the fault controller's record and conservation: every
// injected flit was ejected, dropped for a counted reason, or (in a run stopped early)
// is still in a router buffer or on a link.
void measure_counters(Machine& m, Cycle done, AllreduceResult& r) {
  Network& net = *m.net;
  if (m.tracer) r.wave_note = m.tracer->finish();
  r.totals = net.counters();
  r.peak_rss_kb = peak_rss_kb();
  r.planning_seconds = m.host->planning_seconds();
  r.threads = net.clock().threads();
  r.parallel_cycles = net.clock().parallel_cycles();
  r.rebalances = net.clock().rebalances();
  r.router_cycles_per_second = r.wall_seconds > 0 ? (double)done * net.chips() / r.wall_seconds : 0;
  if (const FaultController* ctl = m.ctl.get()) {
    const std::vector<TimedFault>& timed = m.cfg.net.faults.timed;
    r.timeline = ctl->timeline();
    r.drops = ctl->drops();
    r.restarts = ctl->restarts();
    for (size_t i = 0; i < timed.size(); ++i)
      if (std::find(ctl->applied_indices().begin(), ctl->applied_indices().end(), i) ==
          ctl->applied_indices().end())
        r.untriggered.push_back(to_string(timed[i]));
  }
  for (const auto& ch : m.chips)
    if (ch) r.discarded_abort += ch->engine().discarded_flits();
  r.flits_delivered = r.totals.flits_ejected - r.discarded_abort;
  r.flits_in_network = r.totals.buffered_flits + net.flits_in_flight();
  r.conservation_ok =
      r.totals.flits_injected == r.totals.flits_ejected + r.drops.total() + r.flits_in_network;
}

// A run that stopped early or was refused: its reason and the cycles it ran.
void measure_stopped(Machine& m, bool ok, Cycle done, AllreduceResult& r) {
  const Host& host = *m.host;
  const FaultController* ctl = m.ctl.get();
  const sc_core::sc_time period = m.net->clock().period();
  if (ok) {
    r.stop_reason = ctl && !ctl->timeline().empty() && ctl->timeline().back().kind == EventKind::Partitioned
                        ? "partitioned" : "refused";
    r.message = host.error();
  }
  r.end_cycle = ok ? (Cycle)std::llround(host.gave_up_at() / period) : done;
  r.cycles = host.collective_started() ? r.end_cycle - r.start_cycle : 0;
  r.time_us = r.cycles * m.cfg.net.cycle_ns() / 1000.0;
  if (ctl) r.timeline.push_back({r.end_cycle, EventKind::Stopped, "stopped: " + r.stop_reason});
}

// Timing from the first START writes to the last chip's completion of the final run,
// and the bandwidths.
void measure_timing(Machine& m, AllreduceResult& r) {
  const FaultSet& fin = m.host->faults();
  for (int c = 0; c < m.net->chips(); ++c)
    if (m.chips[c] && !fin.chip_dead(c)) r.end_cycle = std::max(r.end_cycle, m.chips[c]->engine().done_cycle());
  r.cycles = r.end_cycle - r.start_cycle;
  if (m.ctl) r.timeline.push_back({r.end_cycle, EventKind::Complete, "complete"});
  const double cns = m.cfg.net.cycle_ns();
  r.time_us = r.cycles * cns / 1000.0;
  r.step_time_us = m.cfg.chip.compute_us + r.time_us;
  if (r.cycles > 0) {
    r.algbw_GBps = (double)m.cfg.coll.bytes / (r.cycles * cns);  // bytes per ns = GB/s
    const int p = r.participants;
    r.busbw_GBps = p > 1 ? r.algbw_GBps * 2.0 * (p - 1) / p : 0;
  }
}

// Bounds (docs/collectives.md): the final schedule's busiest resource on the final
// routes, and what any allreduce of the live chips could do on the final topology.
void measure_bounds(Machine& m, const coll::Schedule& sched, AllreduceResult& r) {
  const Config& cfg = m.cfg;
  const FaultSet& fin = m.host->faults();
  const int n = m.net->chips();
  NetworkConfig fin_cfg = cfg.net;
  fin_cfg.faults = with_timed(cfg.net.faults, m.ctl ? m.ctl->applied_indices() : std::vector<size_t>());
  const std::vector<RouteTable> fin_tables =
      cfg.net.faults.timed.empty() ? m.routes.tables : build_routes(fin_cfg, fin).tables;
  const coll::ScheduleLoad load = coll::schedule_load(sched, fin.topology(), fin_tables);
  r.max_link_words = load.max_link_words;
  const double fb = cfg.net.flit_bytes;
  const double hbm_rate = cfg.chip.hbm_gbps / cfg.net.link_gbps * fb;  // bytes/cycle
  const double red_rate = cfg.chip.reduce_gbps / cfg.net.link_gbps * fb;
  uint64_t max_hbm = 0, max_red = 0;
  for (int c = 0; c < n; ++c) {
    max_hbm = std::max(max_hbm, load.chip_hbm_words[c]);
    max_red = std::max(max_red, load.chip_reduce_words[c]);
  }
  r.bound_cycles = std::max({coll::algorithm_bound_words(load), max_hbm * fb / hbm_rate, max_red * fb / red_rate});
  std::vector<char> live_set(n);
  for (int c = 0; c < n; ++c) live_set[c] = !fin.chip_dead(c);
  r.topo_bound_cycles = coll::topology_bound_words(fin, live_set, sched.words);
  if (r.cycles > 0) {
    r.bound_ratio = r.bound_cycles / r.cycles;
    r.topo_bound_ratio = r.topo_bound_cycles / r.cycles;
  }
}

// The phases' cycles, every live link's utilization over the allreduce, and the HBM and
// reduction work.
void measure_activity(Machine& m, const CollectiveRun& run, AllreduceResult& r) {
  const coll::Schedule& sched = run.schedule();
  const FaultSet& fin = m.host->faults();
  for (size_t ph = 0; ph < sched.phases.size(); ++ph) {
    PhaseTime t{coll::phase_name(sched.phases[ph]), 0, 0};
    if (run.phase_start(ph) != kNever) {
      t.start = run.phase_start(ph) - r.start_cycle;
      t.end = run.phase_end(ph) - r.start_cycle;
    }
    r.phases.push_back(t);
  }
  double usum = 0;
  int ulinks = 0;
  for (int c = 0; c < m.net->chips(); ++c) {
    for (int p = 0; p < kNumNetPorts; ++p) {
      Link* l = m.net->link(c, (Port)p);
      if (!l || fin.link_dead(c, (Port)p)) continue;
      const double u = r.cycles ? (double)l->flits_sent() / r.cycles : 0;
      r.links.push_back({fin.topology().x(c), fin.topology().y(c), (Port)p, u});
      usum += u;
      ++ulinks;
      r.link_util_max = std::max(r.link_util_max, u);
    }
  }
  r.link_util_mean = ulinks ? usum / ulinks : 0;
  for (const auto& ch : m.chips) {
    if (!ch) continue;
    r.hbm_bytes += ch->hbm().bytes_moved();
    r.words_reduced += ch->engine().words_reduced();
  }
}

// --verify: every participant holds the exact sum of the participants' data; false (the
// reason in r) at the first word that differs.
bool verify_sums(Machine& m, const coll::Schedule& sched, AllreduceResult& r) {
  const int n = m.net->chips();
  const Topology2D& t = m.host->faults().topology();
  std::vector<uint64_t> sum(sched.words, 0);
  for (int c = 0; c < n; ++c)
    if (sched.participant[c])
      for (uint32_t i = 0; i < sched.words; ++i) sum[i] += coll::initial_word(c, i);
  r.verified = true;
  for (int c = 0; c < n; ++c) {
    if (!sched.participant[c]) continue;
    const std::vector<uint64_t>& w = m.chips[c]->hbm().words();
    for (uint32_t i = 0; i < sched.words; ++i) {
      const uint64_t got = i < w.size() ? w[i] : 0;
      if (got != sum[i]) {
        std::ostringstream msg;
        msg << "wrong sum on chip (" << t.x(c) << "," << t.y(c) << ") at word " << i << ": expected " << sum[i]
            << ", holds " << got;
        r.verified = false;
        r.stop_reason = "wrong-sum";
        r.message = msg.str();
        return false;
      }
    }
  }
  return true;
}

}  // namespace

void measure(Machine& m, const LinkWindows& link_windows, bool ok, Cycle done, AllreduceResult& r) {
  const Host& host = *m.host;
  measure_counters(m, done, r);
  // What the run had reached, also when it stops early: the live set the host knows, the
  // collective it ran last, the cycles from its first START to the stop.
  const std::shared_ptr<CollectiveRun> run = host.current();
  r.live_chips = host.faults().live_chips();
  if (m.ctl && (!ok || !host.error().empty())) r.live_chips = m.ctl->detected_faults()->live_chips();
  if (run) {
    r.participants = run->schedule().participants();
    r.words = run->schedule().words;
    r.transfers = run->schedule().xfers.size();
  }
  const sc_core::sc_time period = m.net->clock().period();
  r.start_cycle = host.collective_started() ? (Cycle)std::llround(host.started_at() / period) : 0;
  r.view = view_json(m.cfg, *m.net, link_windows, m.ctl.get(), *m.first, host, r.start_cycle, r.timeline);
  if (!ok || !host.error().empty()) {
    measure_stopped(m, ok, done, r);
    return;
  }
  measure_timing(m, r);
  measure_bounds(m, run->schedule(), r);
  measure_activity(m, *run, r);
  const bool timed = !m.cfg.net.faults.timed.empty();
  if (!r.conservation_ok || r.flits_in_network || (!timed && r.totals.flits_ejected != m.first_flits)) {
    r.stop_reason = "accounting";
    r.message = "flits injected " + std::to_string(r.totals.flits_injected) + " != ejected " +
                std::to_string(r.totals.flits_ejected) + " + dropped " + std::to_string(r.drops.total()) +
                (!timed ? " (expected " + std::to_string(m.first_flits) + " flits)" : "");
    return;
  }
  if (m.cfg.coll.verify == Verify::On && !verify_sums(m, run->schedule(), r)) return;
  r.ok = true;
  r.stop_reason = "done";
}

}  // namespace fm::allreduce_tb
