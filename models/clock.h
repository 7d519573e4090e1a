// The network clock and the sleep/wake mechanism shared by routers and network
// interfaces.
//
// One SC_METHOD (Clock) runs per cycle and delta-notifies `tick`. A clocked unit
// (router, NI) is statically sensitive to `tick`, so while it has work its one
// process runs once per cycle. When it has nothing to do it sleeps on its own wake
// event and costs nothing; whoever hands it work (a link delivering a flit or credit,
// or its own traffic source) calls wake_at(cycle), which notifies the wake event at
// that cycle's time. The woken process then waits for that cycle's tick, so every unit
// evaluates cycle t in the same delta of time t.
//
// All communication between units goes through links with latency >= 1 cycle, so the
// order in which SystemC runs the units inside one delta never changes a result.
#pragma once
#include <systemc>

#include "models/types.h"

namespace fm {

class Clock : public sc_core::sc_module {
 public:
  Clock(sc_core::sc_module_name name, sc_core::sc_time period)
      : sc_module(name), period_(period) {
    SC_METHOD(run);
  }
  SC_HAS_PROCESS(Clock);
  Cycle now() const { return now_; }
  const sc_core::sc_event& tick() const { return tick_; }
  const sc_core::sc_time& period() const { return period_; }

 private:
  void run() {
    if (started_) ++now_;
    started_ = true;
    tick_.notify(sc_core::SC_ZERO_TIME);
    next_trigger(period_);
  }
  sc_core::sc_time period_;
  sc_core::sc_event tick_;
  Cycle now_ = 0;
  bool started_ = false;
};

// Base of every unit driven by the clock. Subclasses register one SC_METHOD through
// register_process() whose body starts with `if (resume()) return;`.
class Clocked {
 public:
  explicit Clocked(const Clock& clk) : clk_(clk) {}
  virtual ~Clocked() = default;
  // Make sure the unit evaluates cycle `at` (> now). Cheap when it is awake.
  void wake_at(Cycle at) {
    if (asleep_) wake_.notify(clk_.period() * (double)(at - clk_.now()));
  }
  bool asleep() const { return asleep_; }
  Cycle cycles_evaluated() const { return evaluated_; }

 protected:
  // Called first in the process body. Returns true when this activation is a wake-up
  // (the unit then waits for the current cycle's tick through its static sensitivity).
  bool resume() {
    if (!asleep_) { ++evaluated_; return false; }
    asleep_ = false;
    return true;
  }
  // Sleep until wake_at() is called, or until cycle `at` if given.
  void sleep(Cycle at = kNever) {
    asleep_ = true;
    if (at != kNever) wake_.notify(clk_.period() * (double)(at - clk_.now()));
    sc_core::next_trigger(wake_);
  }
  const Clock& clk_;

 private:
  sc_core::sc_event wake_;
  bool asleep_ = true;  // the first (initialisation) activation only arms the tick
  Cycle evaluated_ = 0;
};

}  // namespace fm
