// The network clock and the sleep/wake mechanism shared by routers and network
// interfaces.
//
// One SC_METHOD (Clock::run) runs per cycle and notifies `tick` immediately. A second
// one (Clock::evaluate), statically sensitive to `tick`, evaluates that cycle for every
// awake unit (router, NI) by calling its evaluate(). Each unit is a plain C++ object
// here, not a SystemC process: with one SC_METHOD per unit the kernel visited all of
// them every cycle (sc_event::trigger, the runnable queues, run_process), which on a
// busy 16x16 torus was ~20 % of the simulator's cache misses and ~6 % of its
// instructions; the list costs one pointer per awake unit. Tick-sensitive processes of
// test benches (the RTL router adapter, the waveform tracer, co-simulation benches) run
// in the same delta as the units, before or after all of them.
//
// A unit with nothing to do sleeps and costs nothing: it leaves the awake list. Whoever
// hands it work (a link delivering a flit, or its own traffic source) calls
// wake_at(cycle); the clock keeps these requests in a calendar (a ring of per-cycle
// buckets plus a heap for the far future) and at that cycle puts the unit back in the
// awake list, so it evaluates that cycle like everyone else. A request made while the
// unit is awake is kept and booked if it goes to sleep before that cycle. (The calendar
// replaced SystemC timed notifications, whose event heap cost a quarter of the run time.)
//
// Threads (set_threads, docs/performance.md "Parallel kernel"). The units are split in
// `threads` groups, contiguous runs of the add order (a band of chips: a chip's router
// and NI are added one after the other), each with its own awake list and calendar. A
// cycle has two steps, each run for every group at once on its own worker thread (the
// calling thread takes group 0) and closed by a barrier:
//   1. evaluate: every awake unit of the group evaluates the cycle. It touches only its
//      own state, the units of its own group and the sender's side of the links it
//      writes: what a link send does to a receiving unit in another group (its port
//      bits, its wake-up) is noted in the sending group's outbox for the receiver's
//      group (Link::send, Link::send_credit); a send within the group acts at once, as
//      on one thread (so only the links between bands pay for the outbox).
//   2. commit: each group applies the notes addressed to its units (in the order of the
//      sending groups), and the notes a unit posts to another unit (Clocked::post).
// Then the calling thread runs the actions units deferred to it (defer(): SystemC event
// notifications), in group order. Every link has latency >= 1, so nothing a unit does in
// a cycle can matter to another unit in that same cycle, and the results are the same,
// byte for byte, for every number of threads and every grouping. A cycle on one thread
// (the serial run, or a cycle with few awake units) evaluates the groups one after the
// other, and there a send acts on its receiver at once: that only changes in which
// cycles a unit with nothing to do is awake, never a result (sim/check_identical.sh
// compares the two in CI). Whole epochs of cycles run on one thread when that measures
// faster (few units per cycle, or more threads than free cores: a barrier then waits
// for a thread the system has not scheduled). Which cycles run where never changes a
// result.
#pragma once
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <iterator>
#include <memory>
#include <mutex>
#include <queue>
#include <systemc>
#include <thread>
#include <vector>

#include "models/config.h"
#include "models/noc/types.h"

namespace fm {

class Clock;
class Link;

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
  // Make sure the unit evaluates cycle `at` (> now). Cheap when it is awake. While the
  // clock evaluates a cycle, a unit may call it only for itself (its links call it for
  // their receivers in the commit step).
  inline void wake_at(Cycle at);
  Cycle cycles_evaluated() const { return evaluated_; }
  // The unit's group (Clock::set_threads).
  int group() const { return group_; }
  Clock& clock() const { return clk_; }
  // Ports (bit = port number) whose link has flits, or credits, in flight toward this
  // unit; kept by Link. A unit with flits incoming evaluates each one's arrival cycle
  // (awake, or asleep until the next arrival: Link::next_arrival); credits wait in their
  // link until the unit next evaluates a cycle.
  uint32_t flit_ports_ = 0, credit_ports_ = 0;

 protected:
  // One cycle (clk_.now()) of an added unit; called only while it is awake.
  virtual void evaluate() {}
  // A note (a, b) posted to this unit by another one in the cycle just evaluated
  // (Clock::post), delivered in the commit step by this unit's group.
  virtual void note(uint64_t a, uint64_t b) { (void)a, (void)b; }
  // Prefetch hints: ask the memory system for the lines evaluate() will read, without
  // changing anything. While one unit evaluates, the clock prefetches the first
  // kHotLines lines of the unit three places on in its awake list, calls prefetch() of
  // the one two places on (it reads only its own first lines, asked for a unit before,
  // and asks for its links' control lines and busy buffers) and prefetch_late() of the
  // next one (what those lines point to: a buffer's front slot). So the cache misses of
  // several units overlap instead of coming one at a time (docs/performance.md, "Where
  // the time goes now"). They may only read state the unit's own thread writes.
  virtual void prefetch() const {}
  virtual void prefetch_late() const {}
  // The Clocked line and the unit's own fields after it, which Router and
  // NetworkInterface start with what evaluate() and prefetch() read first.
  static constexpr int kHotLines = 6;
  // The work the unit has done so far, in cycles evaluated plus kFlitWork per flit it
  // moved (a router: switched; an NI: injected or ejected), growing only: the clock
  // balances its groups by it (Clock::rebalance). Read once per epoch, between cycles.
  virtual uint64_t work() const { return evaluated_; }
  // A flit costs a unit about this many evaluated cycles' worth of work: an estimate
  // (callgrind, 8x8 torus allreduce: ~340 router instructions per flit switched, receive
  // and switch; a cycle's fixed cost is some tens), not a tuned value.
  static constexpr uint64_t kFlitWork = 4;
  // Sleep until wake_at() is called, or until cycle `at` if given.
  inline void sleep(Cycle at = kNever);
  // For a unit with its own process: counts its cycles for cycles_evaluated().
  void count_evaluated() { ++evaluated_; }
  Clock& clk_;

 private:
  friend class Clock;
  bool asleep_ = false;     // only added units sleep
  uint16_t group_ = 0;      // Clock::set_threads
  uint32_t order_ = 0;      // position in evaluation order (Clock::add)
  // Asleep: the earliest cycle it is booked for in the calendar. Awake: the earliest
  // cycle someone asked for with wake_at() since it woke, booked if it goes to sleep
  // first, so no wake-up is lost whichever order units evaluate in.
  Cycle pending_ = kNever;
  Cycle evaluated_ = 0;
};
// The clock's prefetch of kHotLines from a unit's Clocked part counts on the unit's own
// fields starting one line after it.
static_assert(sizeof(Clocked) == 64, "Clocked is one cache line");

class Clock : public sc_core::sc_module {
 public:
  Clock(sc_core::sc_module_name name, sc_core::sc_time period);
  ~Clock() override;
  SC_HAS_PROCESS(Clock);
  Cycle now() const { return now_; }
  const sc_core::sc_event& tick() const { return tick_; }
  const sc_core::sc_time& period() const { return period_; }

  // Adds unit u to those the clock evaluates (at elaboration); it starts asleep. Units
  // evaluate in the order they were added (within a group; the order never matters).
  void add(Clocked* u);
  // Splits the units into n groups evaluated by n threads (n >= 1; the default is 1).
  // Called before the simulation starts or between cycles, never from a unit.
  void set_threads(int n);
  // How cycles are evaluated (models/config.h KernelOptions); never changes a result.
  void set_options(const KernelOptions& o) { opts_ = o; }
  int threads() const { return (int)groups_.size(); }
  // The threads a run uses for a requested count (0: the cores this process may run on).
  static int threads_for(int requested);
  // Cycles evaluated on the workers (the others ran on the calling thread alone).
  uint64_t parallel_cycles() const { return parallel_cycles_; }
  // Times the group boundaries moved to balance the work (rebalance()).
  uint64_t rebalances() const { return rebalances_; }

  // One group's state: its awake list, its calendar and the notes its units leave for
  // other groups' units in the evaluate step. Only its own thread touches it then;
  // in the commit step each group reads the notes addressed to it.
  struct Note {
    Clocked* to;
    uint64_t a, b;
  };
  struct alignas(64) Group {
    int index = 0;                // in groups_ (Clocked::group())
    std::vector<Clocked*> awake;  // in evaluation order (Clocked::order_)
    std::vector<Clocked*> merged;  // scratch for the merge (no allocation per cycle)
    std::vector<std::vector<Clocked*>> ring;  // per-cycle buckets (kRing)
    struct Far {
      Cycle at;
      Clocked* u;
      bool operator<(const Far& o) const { return at > o.at; }  // min-heap
    };
    std::priority_queue<Far> far;
    std::vector<std::vector<Link*>> flits_to, credits_to;  // [receiving group]
    std::vector<std::vector<Note>> notes_to;               // [receiving group]
    std::vector<std::function<void()>> deferred;
  };
  // The group whose evaluate step runs on this thread right now (nullptr outside it):
  // links defer what a send does to the receiver while it is set.
  static Group*& current() {
    static thread_local Group* g = nullptr;
    return g;
  }
  // Books unit u to be woken at cycle `at`, in its group's calendar.
  void book(Clocked* u, Cycle at) {
    Group& g = *groups_[u->group_];
    if (at - now_ < kRing) g.ring[at & (kRing - 1)].push_back(u);
    else g.far.push({at, u});
  }
  // Delivers note (a, b) to unit `to` (Clocked::note): at once outside a cycle's
  // evaluation, else in its commit step, by `to`'s group.
  void post(Clocked* to, uint64_t a, uint64_t b) {
    if (Group* g = current()) g->notes_to[to->group_].push_back({to, a, b});
    else to->note(a, b);
  }
  // Runs f on the calling thread once the cycle's commit step is done (at once outside
  // a cycle's evaluation): for what must not run on a worker, e.g. SystemC event
  // notifications. Deferred actions run in group order, then in the order posted.
  void defer(std::function<void()> f) {
    if (Group* g = current()) g->deferred.push_back(std::move(f));
    else f();
  }

 private:
  static constexpr Cycle kRing = 1024;
  // Below this many awake units a cycle runs on the calling thread alone: waking the
  // workers and two barriers cost more than the units' work (docs/performance.md).
  // KernelOptions::parallel_min overrides it (1: every cycle runs on the workers), for
  // the checks that small runs give the serial results.
  static constexpr size_t kParallelMin = 48;
  size_t parallel_min() const { return opts_.parallel_min ? (size_t)opts_.parallel_min : kParallelMin; }
  KernelOptions opts_;
  // The first cycle starts after elaboration, once every unit's initial bookings are in.
  void start_of_simulation() override { start_.notify(sc_core::SC_ZERO_TIME); }
  // Advances the cycle, moves the units booked for it into their groups' awake lists
  // and ticks.
  void run();
  // Evaluates the current cycle for every awake unit (both steps, every group).
  void evaluate();
  void evaluate_group(Group& g, bool parallel);  // step 1 for one group
  template <bool kPrefetch> size_t evaluate_units(std::vector<Clocked*>& awake);
  bool prefetch_ = false;  // this cycle's groups evaluate with the hints (pf_)
  void commit_group(int r);       // step 2 for group r
  void wake_due(Group& g);
  void regroup(int n);
  // Moves every unit to the group `to` names for it (its add-order index), taking its
  // awake-list place and calendar bookings along. Between cycles only.
  void reassign(const std::vector<uint16_t>& to);
  // What reassign() moves: the awake units in add order and every calendar booking.
  struct Held {
    std::vector<Clocked*> awake;
    std::vector<Group::Far> booked;
  };
  Held take_all();
  // Sets every unit's group from `to` and puts what take_all() held back into the groups.
  void deal(const std::vector<uint16_t>& to, const Held& h);
  // After an epoch: if one group did clearly more of the epoch's work than the others
  // (a hole in the mesh, a phase that keeps only some lines busy), moves the band
  // boundaries so each group gets an equal share of that work.
  void rebalance();
  void start_workers();
  void stop_workers();
  void worker(int id, uint64_t seen);
  // Runs step `step` (1 or 2) for every group, groups 1.. on the workers.
  void parallel_step(int step);

  sc_core::sc_time period_;
  sc_core::sc_event tick_, start_;
  std::vector<std::unique_ptr<Group>> groups_;
  std::vector<Clocked*> units_;  // in add order
  Cycle now_ = 0;
  bool started_ = false;
  uint64_t parallel_cycles_ = 0;
  // Two ways of running a cycle that give the same results, chosen by measurement: per
  // way, the wall time per awake unit over its last epoch of kEpoch measured cycles.
  // After each epoch the cheaper way runs the next epochs; the other is measured again
  // now and then, less often each time it loses (every 4th to 64th epoch), so a machine
  // that gets busier or quieter during a run is followed.
  static constexpr uint32_t kEpoch = 1024;
  struct Chooser {
    struct Cost {
      double ns = 0, units = 0;  // this epoch so far
      double cost = -1;          // ns per unit over its last epoch (-1: not measured yet)
    };
    Cost cost[2];
    bool mode = true, probing = false;  // mode: the way running now
    uint32_t cycles = 0, probe_every = 4, since_probe = 0;
    // Adds a measured cycle of the current way; at the end of an epoch (then it returns
    // true) chooses the way for the next cycles.
    bool add(double ns, double units);
    void choose();
  };
  // Serial or parallel (mode true: on the workers). Both choosers time the same cycles,
  // so each one's figures include the other's probes: a probe is one epoch in 4 to 64,
  // and both ways of the other choice are in both of its figures.
  Chooser par_;
  // With or without the prefetch hints (Clocked::prefetch; mode true: with): they pay
  // where the lines a cycle touches do not stay in cache (a 32x32 machine, or an
  // allreduce's larger units on 16x16) and cost ~20 % where they do (traffic on an 8x8
  // or 16x16 mesh, docs/performance-log.md 2026-12-04). Measured only in cycles with at
  // least kPrefetchMin awake units; below that, no hints.
  Chooser pf_;
  static constexpr size_t kPrefetchMin = 256;
  // rebalance(): each unit's work() at the last epoch's end, and a scratch assignment.
  std::vector<uint64_t> work_mark_;
  std::vector<uint16_t> assign_;
  uint64_t rebalances_ = 0;
  // Workers: each waits for `go_` to change, runs step `step_` for its group, then
  // counts itself in `arrived_`. They spin briefly, then block on `cv_`.
  std::vector<std::thread> workers_;
  std::atomic<uint64_t> go_{0};
  std::atomic<int> arrived_{0};
  std::atomic<int> sleepers_{0};
  std::atomic<bool> stop_{false};
  int step_ = 0;
  std::mutex m_;
  std::condition_variable cv_;
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
