// The network clock and the sleep/wake mechanism shared by routers and network
// interfaces.
//
// One SC_METHOD (Clock) runs per cycle. It immediately notifies `tick`, to which every
// clocked unit (router, NI) is statically sensitive, so while a unit has work its one
// process runs once per cycle. A unit with nothing to do sleeps on its own wake event
// and costs nothing. Whoever hands it work (a link delivering a flit or credit, or its
// own traffic source) calls wake_at(cycle); the clock keeps these requests in a
// calendar (a ring of per-cycle buckets plus a heap for the far future) and at that
// cycle notifies the unit's wake event, so it evaluates that cycle like everyone else.
// The calendar replaces SystemC timed notifications, whose event heap cost a quarter
// of the run time (profiled with callgrind on a 16x16 mesh).
//
// All communication between units goes through links with latency >= 1 cycle, so the
// order in which SystemC runs the units inside one cycle never changes a result.
#pragma once
#include <queue>
#include <systemc>
#include <vector>

#include "models/types.h"

namespace fm {

class Clock;

// Base of every unit driven by the clock. The subclass's SC_METHOD is statically
// sensitive to the clock's tick and starts with `if (resume()) return;`.
// Its fields that every evaluated cycle reads (the port bits, resume()'s state) share
// one cache line, ahead of the wake event, which only the kernel touches.
class alignas(64) Clocked {
 public:
  explicit Clocked(Clock& clk) : clk_(clk) {}
  virtual ~Clocked() = default;
  // Make sure the unit evaluates cycle `at` (> now). Cheap when it is awake.
  inline void wake_at(Cycle at);
  Cycle cycles_evaluated() const { return evaluated_; }
  // Ports (bit = port number) whose link has flits, or credits, in flight toward this
  // unit; kept by Link. A unit with flits incoming stays awake to read each in its
  // arrival cycle; credits wait in their link until the unit next evaluates a cycle.
  uint32_t flit_ports_ = 0, credit_ports_ = 0;

 protected:
  // Called first in the process body; true when this activation must not evaluate a
  // cycle (the initialisation activation, which only goes to sleep).
  bool resume() {
    if (!started_) {
      started_ = true;
      sleep();
      return true;
    }
    // Awake now: bookings made for it earlier are not needed any more (whatever they
    // announced is in flight on a link, which keeps the unit awake until it arrives).
    asleep_ = false;
    pending_ = kNever;
    ++evaluated_;
    return false;
  }
  // Sleep until wake_at() is called, or until cycle `at` if given.
  inline void sleep(Cycle at = kNever);
  // For a unit that evaluates every cycle and never sleeps, so never calls resume() (the
  // RTL router adapter, tb/rtl_mesh_router.cpp): awake for good, links never book
  // wake-ups for it; count_evaluated() counts its cycles for cycles_evaluated().
  void stay_awake() {
    started_ = true;
    asleep_ = false;
  }
  void count_evaluated() { ++evaluated_; }
  Clock& clk_;

 private:
  friend class Clock;
  bool asleep_ = true;
  bool started_ = false;
  Cycle pending_ = kNever;  // earliest cycle this unit is booked in the calendar
  Cycle evaluated_ = 0;
  sc_core::sc_event wake_;
};

class Clock : public sc_core::sc_module {
 public:
  Clock(sc_core::sc_module_name name, sc_core::sc_time period)
      : sc_module(name), period_(period), ring_(kRing) {
    SC_METHOD(run);
    sensitive << start_;
    dont_initialize();
  }
  SC_HAS_PROCESS(Clock);
  Cycle now() const { return now_; }
  const sc_core::sc_event& tick() const { return tick_; }
  const sc_core::sc_time& period() const { return period_; }

  // Books unit u to be woken at cycle `at`.
  void book(Clocked* u, Cycle at) {
    if (at - now_ < kRing) ring_[at & (kRing - 1)].push_back(u);
    else far_.push({at, u});
  }

 private:
  static constexpr Cycle kRing = 1024;
  // The first cycle starts after every unit's initialisation activation has put it
  // to sleep, so no wake-up can be lost.
  void start_of_simulation() override { start_.notify(sc_core::SC_ZERO_TIME); }
  void run() {
    if (started_) ++now_;
    started_ = true;
    while (!far_.empty() && far_.top().at - now_ < kRing) {
      ring_[far_.top().at & (kRing - 1)].push_back(far_.top().u);
      far_.pop();
    }
    std::vector<Clocked*>& due = ring_[now_ & (kRing - 1)];
    for (Clocked* u : due) {
      if (u->asleep_ && u->pending_ == now_) {
        u->pending_ = kNever;
        u->wake_.notify();
      }
    }
    due.clear();
    tick_.notify();
    next_trigger(period_);
  }
  struct Far {
    Cycle at;
    Clocked* u;
    bool operator<(const Far& o) const { return at > o.at; }  // min-heap
  };
  sc_core::sc_time period_;
  sc_core::sc_event tick_, start_;
  std::vector<std::vector<Clocked*>> ring_;
  std::priority_queue<Far> far_;
  Cycle now_ = 0;
  bool started_ = false;
};

inline void Clocked::wake_at(Cycle at) {
  if (!asleep_) return;  // the common case: the unit is running anyway
  if (at <= clk_.now()) at = clk_.now() + 1;  // never book the past
  if (at < pending_) {
    pending_ = at;
    clk_.book(this, at);
  }
}

inline void Clocked::sleep(Cycle at) {
  asleep_ = true;
  if (at != kNever) wake_at(at);
  sc_core::next_trigger(wake_);
}

}  // namespace fm
