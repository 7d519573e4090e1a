// The network clock and the sleep/wake mechanism shared by routers and network
// interfaces.
//
// One SC_METHOD (Clock::run) runs per cycle and notifies `tick` immediately. A second
// one (Clock::evaluate), statically sensitive to `tick`, evaluates that cycle for every
// awake unit (router, NI) by calling its evaluate() in a fixed order (the order the
// units were added). Each unit is a plain C++ object here, not a SystemC process: with
// one SC_METHOD per unit the kernel visited all of them every cycle (sc_event::trigger,
// the runnable queues, run_process), which on a busy 16x16 torus was ~20 % of the
// simulator's cache misses (cachegrind) and ~6 % of its instructions; the list costs one
// pointer per awake unit. Tick-sensitive processes of test benches (the RTL router
// adapter, the waveform tracer, co-simulation benches) run in the same delta as the
// units, as before.
//
// A unit with nothing to do sleeps and costs nothing: it leaves the awake list. Whoever
// hands it work (a link delivering a flit, or its own traffic source) calls
// wake_at(cycle); the clock keeps these requests in a calendar (a ring of per-cycle
// buckets plus a heap for the far future) and at that cycle puts the unit back in the
// awake list, so it evaluates that cycle like everyone else. A request made while the
// unit is awake is kept and booked if it goes to sleep before that cycle. (The calendar
// replaced SystemC timed notifications, whose event heap cost a quarter of the run time.)
//
// All communication between units goes through links with latency >= 1 cycle, so the
// order in which units evaluate inside one cycle never changes a result.
#pragma once
#include <algorithm>
#include <iterator>
#include <queue>
#include <systemc>
#include <vector>

#include "models/types.h"

namespace fm {

class Clock;

// Base of every unit driven by the clock. A unit the clock evaluates (Clock::add(),
// called by its constructor) implements evaluate(); a unit with its own tick-sensitive
// process (the RTL adapter, test benches) is not added and stays awake for good, so
// links never book wake-ups for it.
// Its fields that every evaluated cycle reads (the port bits, the sleep state) share one
// cache line.
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
  // One cycle (clk_.now()) of an added unit; called only while it is awake.
  virtual void evaluate() {}
  // Sleep until wake_at() is called, or until cycle `at` if given.
  inline void sleep(Cycle at = kNever);
  // For a unit with its own process: counts its cycles for cycles_evaluated().
  void count_evaluated() { ++evaluated_; }
  Clock& clk_;

 private:
  friend class Clock;
  bool asleep_ = false;     // only added units sleep
  uint32_t order_ = 0;      // position in evaluation order (Clock::add)
  // Asleep: the earliest cycle it is booked for in the calendar. Awake: the earliest
  // cycle someone asked for with wake_at() since it woke, booked if it goes to sleep
  // first, so no wake-up is lost whichever order units evaluate in.
  Cycle pending_ = kNever;
  Cycle evaluated_ = 0;
};

class Clock : public sc_core::sc_module {
 public:
  Clock(sc_core::sc_module_name name, sc_core::sc_time period)
      : sc_module(name), period_(period), ring_(kRing) {
    SC_METHOD(run);
    sensitive << start_;
    dont_initialize();
    SC_METHOD(evaluate);
    sensitive << tick_;
    dont_initialize();
  }
  SC_HAS_PROCESS(Clock);
  Cycle now() const { return now_; }
  const sc_core::sc_event& tick() const { return tick_; }
  const sc_core::sc_time& period() const { return period_; }

  // Adds unit u to those the clock evaluates (at elaboration); it starts asleep. Units
  // evaluate in the order they were added.
  void add(Clocked* u) {
    u->asleep_ = true;
    u->order_ = added_++;
  }
  // Books unit u to be woken at cycle `at`.
  void book(Clocked* u, Cycle at) {
    if (at - now_ < kRing) ring_[at & (kRing - 1)].push_back(u);
    else far_.push({at, u});
  }

 private:
  static constexpr Cycle kRing = 1024;
  // The first cycle starts after elaboration, once every unit's initial bookings are in.
  void start_of_simulation() override { start_.notify(sc_core::SC_ZERO_TIME); }
  // Advances the cycle, moves the units booked for it into the awake list and ticks.
  void run() {
    if (started_) ++now_;
    started_ = true;
    while (!far_.empty() && far_.top().at - now_ < kRing) {
      ring_[far_.top().at & (kRing - 1)].push_back(far_.top().u);
      far_.pop();
    }
    std::vector<Clocked*>& due = ring_[now_ & (kRing - 1)];
    const size_t before = awake_.size();
    for (Clocked* u : due) {
      if (u->asleep_ && u->pending_ == now_) {
        u->pending_ = kNever;
        u->asleep_ = false;
        awake_.push_back(u);
      }
    }
    due.clear();
    if (awake_.size() != before) {  // merge the woken into the list, kept in order
      const auto by_order = [](const Clocked* a, const Clocked* b) {
        return a->order_ < b->order_;
      };
      std::sort(awake_.begin() + before, awake_.end(), by_order);
      merged_.clear();
      std::merge(awake_.begin(), awake_.begin() + before, awake_.begin() + before, awake_.end(),
                 std::back_inserter(merged_), by_order);
      awake_.swap(merged_);
    }
    tick_.notify();
    next_trigger(period_);
  }
  // Evaluates the current cycle for every awake unit; those that went to sleep leave the
  // list (a unit woken again later in the same cycle is booked for the next one).
  void evaluate() {
    size_t kept = 0;
    for (size_t i = 0; i < awake_.size(); ++i) {
      Clocked* u = awake_[i];
      if (u->pending_ <= now_) u->pending_ = kNever;  // asked for this cycle: here it is
      ++u->evaluated_;
      u->evaluate();
      if (!u->asleep_) awake_[kept++] = u;
    }
    awake_.resize(kept);
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
  std::vector<Clocked*> awake_;  // in evaluation order (Clocked::order_)
  std::vector<Clocked*> merged_;  // scratch for run()'s merge (no allocation per cycle)
  uint32_t added_ = 0;
  Cycle now_ = 0;
  bool started_ = false;
};

inline void Clocked::wake_at(Cycle at) {
  if (!asleep_) {  // the common case: the unit is running; sleep() books what it asked
    if (at < pending_) pending_ = at;
    return;
  }
  if (at <= clk_.now()) at = clk_.now() + 1;  // never book the past
  if (at < pending_) {
    pending_ = at;
    clk_.book(this, at);
  }
}

inline void Clocked::sleep(Cycle at) {
  const Cycle asked = pending_;  // wake-ups asked for while it was awake
  pending_ = kNever;
  asleep_ = true;
  if (asked > clk_.now() && asked < at) at = asked;
  if (at != kNever) wake_at(at);
}

}  // namespace fm
