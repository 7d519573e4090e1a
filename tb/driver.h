// Drives the SystemC kernel in chunks of cycles and applies the guards every chunk:
// invariant violations (any router, NI or engine monitor) stop the run, and the
// no-progress watchdog stops it when no flit has moved for `watchdog` cycles while
// work is waiting, with a report of where flits are stuck. Used by every testbench that
// simulates a network (traffic, allreduce).
#pragma once
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>

#include "models/noc/network.h"

namespace fm {

class Driver {
 public:
  // progress(counters, cycles done, seconds elapsed) prints a progress line (or null).
  // busy(): work is waiting outside the network (e.g. a collective not finished).
  Driver(Network& net, Cycle watchdog,
         std::function<void(const NetCounters&, Cycle, double)> progress,
         std::string* stop_reason, std::string* message,
         std::function<bool()> busy = nullptr, std::function<std::string()> violation = nullptr)
      : net_(net),
        watchdog_(watchdog),
        progress_(std::move(progress)),
        busy_(std::move(busy)),
        violation_(std::move(violation)),
        stop_reason_(stop_reason),
        message_(message),
        start_(Clk::now()) {}
  ~Driver() {
    if (printed_) std::fprintf(stderr, "\r%70s\r", "");
  }

  // Simulates until `target` cycles have been evaluated, or a guard fires (false).
  bool run_until(Cycle target, Cycle chunk_max = 1024) {
    while (done_ < target) {
      const Cycle chunk = std::min<Cycle>(target - done_, chunk_max);
      sc_core::sc_start(net_.clock().period() * (double)chunk);
      done_ += chunk;
      if (!check()) return false;
    }
    return true;
  }
  Cycle done() const { return done_; }
  // timed(): the last cycle up to which some unit outside the network has work under
  // way that needs no flit to move (a chip's HBM serving a restore or a backlog, the
  // host's compute phase). The watchdog counts no-progress cycles only after it: a
  // wait on a timer is not a stall, and the timer always runs out.
  void set_timed_work(std::function<Cycle()> timed) { timed_ = std::move(timed); }

  // Guards: invariant violations and the no-progress watchdog. Returns false to stop.
  bool check() {
    const NetCounters c = net_.counters();
    std::string v = c.violations ? net_.first_violation() : "";
    if (v.empty() && violation_) v = violation_();
    if (!v.empty()) {
      *stop_reason_ = "violation";
      *message_ = v;
      return false;
    }
    const uint64_t moved = c.flits_switched + c.flits_injected + c.flits_ejected;
    const bool waiting = c.buffered_flits || c.queued_packets ||
                         c.flits_injected != c.flits_ejected || (busy_ && busy_());
    const bool timer_running = timed_ && timed_() > done_;
    if (moved != last_moved_ || !waiting || timer_running) {
      last_moved_ = moved;
      last_move_cycle_ = done_;
    } else if (done_ - last_move_cycle_ >= watchdog_) {
      *stop_reason_ = "watchdog";
      *message_ = "watchdog: no flit moved for " + std::to_string(done_ - last_move_cycle_) +
                  " cycles while " + std::to_string(c.buffered_flits) +
                  " flit(s) are buffered and " + std::to_string(c.queued_packets) +
                  " packet(s) wait for injection; stuck at:\n" + net_.describe_stuck();
      return false;
    }
    if (progress_) {
      const double el = std::chrono::duration<double>(Clk::now() - start_).count();
      if (el >= 2.0 && el - last_print_ >= 0.5) {
        last_print_ = el;
        progress_(c, done_, el);
        std::fflush(stderr);
        printed_ = true;
      }
    }
    return true;
  }

 private:
  using Clk = std::chrono::steady_clock;
  Network& net_;
  const Cycle watchdog_;
  std::function<void(const NetCounters&, Cycle, double)> progress_;
  std::function<bool()> busy_;
  std::function<std::string()> violation_;
  std::function<Cycle()> timed_;
  std::string* stop_reason_;
  std::string* message_;
  Clk::time_point start_;
  Cycle done_ = 0, last_move_cycle_ = 0;
  uint64_t last_moved_ = ~0ULL;
  double last_print_ = 0;
  bool printed_ = false;
};

}  // namespace fm
