#include "models/fault/fault_controller.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "models/collective/algorithms.h"
#include "models/routing/checker.h"
#include "models/routing/routes.h"

namespace fm {

FaultController::FaultController(sc_core::sc_module_name name, const Config& cfg, Network& net,
                                 RecoveryHost& host)
    : sc_module(name), csr("csr", net.chips()), cfg_(cfg), net_(net), host_(host),
      faults_(std::make_shared<FaultSet>(cfg.net)), dead_(net.chips(), 0) {
  for (int c = 0; c < net.chips(); ++c) {
    csr[c].bind(net.router(c).csr);
    dead_[c] = faults_->chip_dead(c);
  }
  net_.set_dead_chips(&dead_);
  SC_THREAD(killer);
  SC_THREAD(recover);
}

Cycle FaultController::now() const {
  return (Cycle)std::llround(sc_core::sc_time_stamp() / net_.clock().period());
}

void FaultController::log(const std::string& what) { timeline_.push_back({now(), what}); }

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
  NetworkConfig nc = cfg_.net;
  nc.faults = with_timed(cfg_.net.faults, applied_);
  auto f = std::make_shared<FaultSet>(nc);
  for (int c = 0; c < net_.chips(); ++c) {
    if (f->chip_dead(c) && !dead_[c]) {
      dead_[c] = 1;
      dead_router_ += net_.kill_chip(c);
    }
  }
  for (int c = 0; c < net_.chips(); ++c)
    for (int p = 0; p < kNumNetPorts; ++p)
      if (f->link_dead(c, (Port)p)) net_.fail_link(c, (Port)p);
  faults_ = f;
  log("fault: " + to_string(cfg_.net.faults.timed[i]));
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
  log(empty ? "drained: network empty" : "drain stalled: flushed " + std::to_string(n) + " flit(s) of packets cut by the failure");
  return empty;
}

void FaultController::program_tables(const std::vector<RouteTable>& tables) {
  int writes = 0;
  for (int c = 0; c < net_.chips(); ++c) {
    if (dead_[c]) continue;
    for (int d = 0; d < net_.chips(); ++d) {
      const RouteEntry& e = tables[c].lookup(d);
      uint32_t w = e.port | (uint32_t)e.vc_mask << 8;
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
  wait(net_.clock().period() * (double)(writes * cfg_.recovery.write_cycles));
}

void FaultController::recover() {
  const sc_core::sc_time period = net_.clock().period();
  for (;;) {
    wait(killed_);
    recovering_ = true;
    bool aborted = false;
    uint64_t drops_seen = 0;
    for (;;) {
      const size_t upto = applied_.size();
      // Detection: the neighbours report `detect` cycles after the failure.
      const Cycle fault_at = timeline_.empty() ? now() : [&] {
        Cycle t = 0;
        for (const TimelineEvent& e : timeline_) if (e.what.rfind("fault:", 0) == 0) t = e.cycle;
        return t;
      }();
      const Cycle due = fault_at + cfg_.recovery.detect;
      if (due > now()) wait(period * (double)(due - now()));
      if (applied_.size() != upto) continue;  // another failure while waiting: detect it too
      log("detected: " + faults_->describe());
      std::shared_ptr<const FaultSet> f = faults_;
      const std::string cut = f->connectivity();
      if (!cut.empty()) {
        log("partitioned");
        handled_ = (int)applied_.size();
        recovering_ = false;
        host_.give_up("the failures partition the machine: " + cut);
        return;
      }
      const uint64_t lost = drops().total();
      const bool touched = aborted || (host_.collective_running() &&
                                       (lost > drops_seen || host_.touched_by(*f)));
      drops_seen = lost;
      if (!touched) {
        log(host_.collective_running()
                ? "no restart: no participant died, no flit was lost, no route in use crosses the failure"
                : "no restart: no collective running");
        handled_ = (int)upto;
        if (applied_.size() == upto) break;
        continue;
      }
      if (!aborted) {
        host_.abort_all();
        log("abort: collective aborted on every live chip");
        aborted = true;
      }
      drain_and_flush();
      NetworkConfig nc = cfg_.net;
      nc.faults = with_timed(cfg_.net.faults, applied_);
      RouteSet rs;
      try {
        rs = build_routes(nc, *f);
      } catch (const ConfigError& e) {
        handled_ = (int)applied_.size();
        recovering_ = false;
        host_.give_up(std::string("no route set for the live chips: ") + e.what());
        return;
      }
      const RouteCheck chk = check_routes(*f, rs.tables, nc.vcs);
      if (!chk.ok()) {
        handled_ = (int)applied_.size();
        recovering_ = false;
        host_.give_up("route set '" + rs.scheme + "' failed the checker: " + chk.problem);
        return;
      }
      program_tables(rs.tables);
      log("reconfigured: " + rs.scheme + " tables checked (connected, deadlock-free) and written to " +
          std::to_string(f->live_chips()) + " routers");
      if (applied_.size() != upto) continue;  // failed during reconfiguration: once more
      handled_ = (int)upto;
      ++restarts_;
      log(std::string("restart: ") + coll::to_string(cfg_.recovery.restart_algo) + " on " +
          std::to_string(f->live_chips()) + " live chips");
      host_.restart(f);
      break;
    }
    recovering_ = false;
  }
}

}  // namespace fm
