#include "models/fault/fault_controller.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "models/kinds.h"
#include "models/routing/checker.h"
#include "models/routing/routes.h"

namespace fm {

FaultController::FaultController(sc_core::sc_module_name name, const Config& cfg, Network& net,
                                 RecoveryHost& host)
    : sc_module(name), csr("csr", net.chips()), cfg_(cfg), net_(net), host_(host),
      faults_(std::make_shared<FaultSet>(cfg.net)), detected_faults_(faults_),
      dead_(net.chips(), 0) {
  for (int c = 0; c < net.chips(); ++c) {
    csr[c].bind(net.router(c).csr);
    dead_[c] = faults_->chip_dead(c);
  }
  net_.set_dead_chips(&dead_);
  SC_THREAD(killer);
  SC_THREAD(detector);
  SC_THREAD(recover);
}

Cycle FaultController::now() const {
  return (Cycle)std::llround(sc_core::sc_time_stamp() / net_.clock().period());
}

void FaultController::log(EventKind kind, const std::string& what) { timeline_.push_back({now(), kind, what}); }

Drops FaultController::drops() const {
  Drops d;
  const auto l = net_.link_drops();
  d.dead_router = dead_router_;
  d.dead_destination = l.first;
  d.dead_link = l.second;
  d.flushed = flushed_;
  return d;
}

// Cycle triggers fire exactly; progress and phase triggers are checked every 16 cycles
// (a phase trigger's delay then counts exactly from the phase's first cycle).
void FaultController::killer() {
  const std::vector<TimedFault>& ev = cfg_.net.faults.timed;
  std::vector<size_t> pending;
  for (size_t i = 0; i < ev.size(); ++i) pending.push_back(i);
  const sc_core::sc_time period = net_.clock().period();
  while (!pending.empty()) {
    const Cycle t = now();
    bool any = false;
    for (auto it = pending.begin(); it != pending.end();) {
      const TimedFault& f = ev[*it];
      bool due;
      if (f.by_phase()) {
        const Cycle s = host_.collective_running() ? host_.phase_started(f.phase) : kNever;
        due = s != kNever && t >= s + f.cycle;
      } else if (f.percent >= 0) {
        due = host_.collective_running() && host_.progress() * 100.0 >= f.percent;
      } else {
        due = t >= f.cycle;
      }
      if (due) {
        apply(*it);
        it = pending.erase(it);
        any = true;
      } else {
        ++it;
      }
    }
    if (any) killed_.notify(sc_core::SC_ZERO_TIME);
    if (pending.empty()) break;
    Cycle next = kNever;
    for (size_t i : pending) {
      const TimedFault& f = ev[i];
      if (f.by_phase()) {
        const Cycle s = host_.collective_running() ? host_.phase_started(f.phase) : kNever;
        next = std::min(next, s == kNever ? t + 16 : std::max(s + f.cycle, t + 1));
      } else {
        next = std::min(next, f.percent >= 0 ? t + 16 : std::max(f.cycle, t + 1));
      }
    }
    wait(period * (double)(next - t));
  }
}

void FaultController::apply(size_t i) {
  applied_.push_back(i);
  auto f = std::make_shared<FaultSet>(config_upto(applied_.size()));
  for (int c = 0; c < net_.chips(); ++c) {
    if (f->chip_dead(c) && !dead_[c]) {
      dead_[c] = 1;
      const uint64_t lost = net_.kill_chip(c);
      dead_router_ += lost;
      dead_router_by_chip_.push_back({(ChipId)c, lost});
    }
  }
  for (int c = 0; c < net_.chips(); ++c)
    for (int p = 0; p < kNumNetPorts; ++p)
      if (f->link_dead(c, (Port)p)) net_.fail_link(c, (Port)p);
  faults_ = f;
  fault_cycle_.push_back(now());
  log(EventKind::Fault, "fault: " + to_string(cfg_.net.faults.timed[i]));
}

bool FaultController::drain_and_flush() {
  const sc_core::sc_time period = net_.clock().period();
  const Cycle start = now();
  Cycle quiet_since = start;
  uint64_t last = ~0ULL;
  bool empty = false;
  for (;;) {
    wait(period * 8.0);
    const NetCounters c = net_.counters();
    if (!c.buffered_flits && !c.queued_packets && !net_.flits_in_flight()) {
      empty = true;
      break;
    }
    const uint64_t moved = c.flits_switched + c.flits_injected + c.flits_ejected;
    if (moved != last) {
      last = moved;
      quiet_since = now();
    }
    if (now() - quiet_since >= cfg_.recovery.quiet || now() - start >= cfg_.recovery.max_drain) break;
  }
  const uint64_t n = net_.flush_all();
  flushed_ += n;
  log(EventKind::Drained, empty ? "drained: network empty" : "drain stalled: flushed " + std::to_string(n) + " flit(s) of packets cut by the failure");
  return empty;
}

void FaultController::program_tables(const std::vector<RouteTable>& tables) {
  int writes = 0;
  for (int c = 0; c < net_.chips(); ++c) {
    if (dead_[c]) continue;
    for (int d = 0; d < net_.chips(); ++d) {
      uint32_t w = route_word(tables[c].lookup(d));
      tlm::tlm_generic_payload tx;
      tx.set_command(tlm::TLM_WRITE_COMMAND);
      tx.set_address(4ULL * d);
      tx.set_data_ptr(reinterpret_cast<unsigned char*>(&w));
      tx.set_data_length(4);
      tx.set_streaming_width(4);
      tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      csr[c]->b_transport(tx, delay);
      if (!tx.is_response_ok())
        throw std::runtime_error("route-table write refused by router " + std::to_string(c) +
                                 " for destination " + std::to_string(d));
    }
    writes = net_.chips();
  }
  // Routers are written in parallel, one entry per `write_cycles`.
  const Cycle span = (Cycle)writes * cfg_.recovery.write_cycles;
  writes_until_ = now() + span;
  wait(net_.clock().period() * (double)span);
}

NetworkConfig FaultController::config_upto(size_t upto) const {
  NetworkConfig nc = cfg_.net;
  nc.faults = with_timed(cfg_.net.faults,
                         std::vector<size_t>(applied_.begin(), applied_.begin() + (long)upto));
  return nc;
}

Cycle FaultController::timer_until() const {
  const Cycle detect = detected_ < applied_.size() ? fault_cycle_.back() + cfg_.recovery.detect : 0;
  return std::max(detect, writes_until_);
}

// Detection: each failure becomes known exactly `detect` cycles after it happened, in
// the order they happened, whatever the recovery is doing at the time.
void FaultController::detector() {
  const sc_core::sc_time period = net_.clock().period();
  for (;;) {
    if (detected_ == applied_.size()) {
      wait(killed_);
      continue;
    }
    const Cycle due = fault_cycle_[detected_] + cfg_.recovery.detect;
    if (due > now()) {
      wait(period * (double)(due - now()));
      continue;
    }
    std::string which;
    while (detected_ < applied_.size() && fault_cycle_[detected_] + cfg_.recovery.detect <= now()) {
      which += (which.empty() ? "" : "; ") + to_string(cfg_.net.faults.timed[applied_[detected_]]);
      ++detected_;
    }
    detected_faults_ = std::make_shared<FaultSet>(config_upto(detected_));
    std::string dead = detected_faults_->describe();
    while (!dead.empty() && dead.back() == ' ') dead.pop_back();
    log(EventKind::Detected, "detected: " + which + (dead.empty() ? "" : "; dead chips " + dead));
    detected_ev_.notify(sc_core::SC_ZERO_TIME);
  }
}

// Rebuilds, checks and writes the route tables for the detected fault set `f`; false
// (after give_up) when no checked route set exists.
bool FaultController::reroute(const std::shared_ptr<const FaultSet>& f, size_t upto) {
  const NetworkConfig nc = config_upto(upto);
  RouteSet rs;
  try {
    rs = build_routes(nc, *f);
  } catch (const ConfigError& e) {
    stop(std::string("no route set for the live chips: ") + e.what());
    return false;
  }
  const RouteCheck chk = check_routes(*f, rs.tables, nc.vcs);
  if (!chk.ok()) {
    stop("route set '" + rs.scheme + "' failed the checker: " + chk.problem);
    return false;
  }
  program_tables(rs.tables);
  tables_ = std::move(rs.tables);
  log(EventKind::Reconfigured, "reconfigured: " + rs.scheme + " tables checked (connected, deadlock-free) and written to " +
      std::to_string(f->live_chips()) + " routers");
  return true;
}

void FaultController::stop(const std::string& why) {
  handled_ = (int)applied_.size();
  recovering_ = false;
  host_.give_up(why);
}

// Recovery acts only on what has been detected (detector()). A round starts at a
// detection and works with the fault set known then; a failure detected while a round
// is under way (drain, table writes) joins it before the restart, one detected later
// gets a round of its own (the restarted collective may have to be aborted again).
void FaultController::recover() {
  for (;;) {
    while ((size_t)handled_ == detected_) wait(detected_ev_);
    recovering_ = true;
    bool aborted = false;  // the running collective was aborted in this round
    while ((size_t)handled_ < detected_) {
      const size_t upto = detected_;
      const std::shared_ptr<const FaultSet> f = detected_faults_;
      const std::string cut = f->connectivity();
      if (!cut.empty()) {
        log(EventKind::Partitioned, "partitioned");
        stop("the failures partition the machine: " + cut);
        return;
      }
      if (!host_.collective_started()) {
        // Before the collective starts (during the compute phase): the host holds the
        // start until the tables avoid the failure, then starts on the live set.
        host_.hold_start(true);
        drain_and_flush();
        if (!reroute(f, upto)) return;
        host_.set_faults(f);
        host_.hold_start(false);
        log(EventKind::NoRestart, "no restart: the collective has not started; it will start on " +
            std::to_string(f->live_chips()) + " live chips");
        handled_ = (int)upto;
        continue;
      }
      const uint64_t lost = drops().total();
      const bool touched = aborted || (host_.collective_running() &&
                                       (lost > drops_seen_ || host_.touched_by(*f)));
      drops_seen_ = lost;
      if (!touched) {
        log(EventKind::NoRestart, host_.collective_running()
                ? "no restart: no participant died, no flit was lost, no route in use crosses the failure"
                : "no restart: no collective running");
        handled_ = (int)upto;
        continue;
      }
      if (!aborted) {
        host_.abort_all();
        log(EventKind::Abort, "abort: collective aborted on every live chip");
        aborted = true;
      }
      drain_and_flush();
      if (!reroute(f, upto)) return;
      if (detected_ != upto) continue;  // detected during this round: include it first
      handled_ = (int)upto;
      ++restarts_;
      const std::string how = host_.restart(f, tables_);
      log(EventKind::Restart, std::string("restart: ") + coll::to_string(cfg_.recovery.restart_algo) + " on " +
          std::to_string(f->live_chips()) + " live chips" + how);
      aborted = false;
      drops_seen_ = drops().total();
    }
    recovering_ = false;
  }
}

}  // namespace fm
