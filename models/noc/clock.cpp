// The clock's cycle loop and its worker threads (models/noc/clock.h says what a cycle does).
#include "models/noc/clock.h"

#include "models/noc/link.h"

#include <sched.h>

#include <chrono>
#include <cstdlib>

namespace fm {

namespace {
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}
// Spins before a worker blocks, or the calling thread yields, at a barrier: at two
// barriers per cycle a block costs more than a busy cycle's work, but spinning on
// a machine with fewer cores than threads starves the thread that is late.
constexpr int kSpins = 4000;
}  // namespace

Clock::Clock(sc_core::sc_module_name name, sc_core::sc_time period)
    : sc_module(name), period_(period) {
  regroup(1);
  SC_METHOD(run);
  sensitive << start_;
  dont_initialize();
  SC_METHOD(evaluate);
  sensitive << tick_;
  dont_initialize();
}

Clock::~Clock() { stop_workers(); }

void Clock::add(Clocked* u) {
  u->asleep_ = true;
  u->order_ = (uint32_t)units_.size();
  u->group_ = 0;
  units_.push_back(u);
  if (groups_.size() > 1) regroup((int)groups_.size());
}

int Clock::threads_for(int requested) {
  if (requested > 0) return requested;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return (int)std::max(1u, std::thread::hardware_concurrency());
}

void Clock::set_threads(int n) {
  if (n < 1) n = 1;
  if (n == (int)groups_.size()) return;
  stop_workers();
  regroup(n);
}

// Makes n groups and deals the units out in n contiguous runs of the add order, as even
// as the count allows.
void Clock::regroup(int n) {
  const size_t units = units_.size();
  std::vector<uint16_t> to(units);
  for (size_t i = 0; i < units; ++i) to[i] = (uint16_t)(i * n / std::max<size_t>(units, 1));
  if ((int)groups_.size() == n) {
    reassign(to);
    return;
  }
  Held h = take_all();
  groups_.clear();
  for (int i = 0; i < n; ++i) {
    auto g = std::make_unique<Group>();
    g->index = i;
    g->ring.resize(kRing);
    g->flits_to.resize(n);
    g->credits_to.resize(n);
    g->notes_to.resize(n);
    groups_.push_back(std::move(g));
  }
  deal(to, h);
}

void Clock::reassign(const std::vector<uint16_t>& to) { deal(to, take_all()); }

// Empties every group's awake list and calendar. The awake lists, concatenated in group
// order, are in add order (groups are contiguous runs of it), so dealing them out keeps
// every new list in order.
Clock::Held Clock::take_all() {
  Held h;
  for (auto& g : groups_) {
    h.awake.insert(h.awake.end(), g->awake.begin(), g->awake.end());
    g->awake.clear();
    for (Cycle c = 0; c < kRing; ++c) {
      for (Clocked* u : g->ring[c]) {
        // A bucket holds cycle now_ + ((c - now_) mod kRing); entries for the current
        // cycle were taken by run() already, so `now_` itself means a full turn ahead.
        const Cycle ahead = (c - now_) & (kRing - 1);
        h.booked.push_back({now_ + (ahead ? ahead : kRing), u});
      }
      g->ring[c].clear();
    }
    while (!g->far.empty()) {
      h.booked.push_back(g->far.top());
      g->far.pop();
    }
  }
  return h;
}

void Clock::deal(const std::vector<uint16_t>& to, const Held& h) {
  for (size_t i = 0; i < units_.size(); ++i) units_[i]->group_ = to[i];
  for (Clocked* u : h.awake) groups_[u->group_]->awake.push_back(u);
  for (const Group::Far& f : h.booked) book(f.u, f.at);
}

// Balancing by counted work, not by wall time, so a thread the system descheduled for a
// while does not move the bands (no grouping changes a result either way).
void Clock::rebalance() {
  const size_t units = units_.size();
  const int n = (int)groups_.size();
  if (work_mark_.size() != units) {
    work_mark_.assign(units, 0);
    for (size_t i = 0; i < units; ++i) work_mark_[i] = units_[i]->work();
    return;
  }
  std::vector<uint64_t> w(units), load(n, 0);
  uint64_t total = 0;
  for (size_t i = 0; i < units; ++i) {
    const uint64_t now = units_[i]->work();
    w[i] = now - work_mark_[i];
    work_mark_[i] = now;
    total += w[i];
    load[units_[i]->group_] += w[i];
  }
  const uint64_t most = *std::max_element(load.begin(), load.end());
  // Within 5 % of an even share: leave it (moving units costs cache misses too).
  if (total == 0 || (double)most * n <= 1.05 * (double)total) return;
  // Unit i goes to the group its work's midpoint falls in: contiguous runs of the add
  // order, each holding about total / n of the epoch's work.
  assign_.resize(units);
  std::vector<uint64_t> after(n, 0);
  uint64_t before = 0;
  for (size_t i = 0; i < units; ++i) {
    const uint64_t mid = before + w[i] / 2;
    assign_[i] = (uint16_t)std::min<uint64_t>((uint64_t)n - 1, mid * (uint64_t)n / total);
    after[assign_[i]] += w[i];
    before += w[i];
  }
  // Move only for a real gain: the busiest group's share must drop by 3 % or more.
  if ((double)*std::max_element(after.begin(), after.end()) > 0.97 * (double)most) return;
  reassign(assign_);
  ++rebalances_;
}

void Clock::wake_due(Group& g) {
  while (!g.far.empty() && g.far.top().at - now_ < kRing) {
    g.ring[g.far.top().at & (kRing - 1)].push_back(g.far.top().u);
    g.far.pop();
  }
  std::vector<Clocked*>& due = g.ring[now_ & (kRing - 1)];
  if (due.empty()) return;
  std::vector<Clocked*>& awake = g.awake;
  const size_t before = awake.size();
  for (Clocked* u : due) {
    if (u->asleep_ && u->pending_ == now_) {
      u->pending_ = kNever;
      u->asleep_ = false;
      awake.push_back(u);
    }
  }
  due.clear();
  if (awake.size() != before) {  // merge the woken into the list, kept in order
    const auto by_order = [](const Clocked* a, const Clocked* b) { return a->order_ < b->order_; };
    std::sort(awake.begin() + before, awake.end(), by_order);
    g.merged.clear();
    std::merge(awake.begin(), awake.begin() + before, awake.begin() + before, awake.end(),
               std::back_inserter(g.merged), by_order);
    awake.swap(g.merged);
  }
}

void Clock::run() {
  if (started_) ++now_;
  started_ = true;
  for (auto& g : groups_) wake_due(*g);
  tick_.notify();
  next_trigger(period_);
}

// The awake units evaluate the cycle, in order; returns how many stay awake, moved to the
// front of the list. With kPrefetch, memory-level parallelism: while unit i evaluates,
// unit i + 3 gets its first lines fetched, unit i + 2 what they point to (its links, its
// busy buffers: Clocked::prefetch) and unit i + 1 what those point to (prefetch_late).
// Nothing changes but the cache. Worth it only where the lines a cycle touches do not
// stay in cache; on a small mesh the hints are pure cost (Clock::pf_ chooses).
template <bool kPrefetch>
size_t Clock::evaluate_units(std::vector<Clocked*>& awake) {
  size_t kept = 0;
  const size_t n = awake.size();
  for (size_t i = 0; i < n; ++i) {
    Clocked* u = awake[i];
    if (kPrefetch) {
      if (i + 3 < n) {
        const char* h = reinterpret_cast<const char*>(awake[i + 3]);
        for (int k = 0; k < Clocked::kHotLines; ++k) __builtin_prefetch(h + 64 * k);
      }
      if (i + 2 < n) awake[i + 2]->prefetch();
      if (i + 1 < n) awake[i + 1]->prefetch_late();
    }
    if (u->pending_ <= now_) u->pending_ = kNever;  // asked for this cycle: here it is
    ++u->evaluated_;
    u->evaluate();
    if (!u->asleep_) awake[kept++] = u;
  }
  return kept;
}

// Step 1 for one group: its awake units evaluate the cycle; those that went to sleep
// leave the list (a unit woken again later in the cycle is booked for the next one).
void Clock::evaluate_group(Group& g, bool parallel) {
  // On one thread a send acts on its receiver at once, as links always did: the same
  // results (nothing a unit does in a cycle matters to another in that cycle), without
  // the outboxes' cost.
  current() = parallel ? &g : nullptr;
  std::vector<Clocked*>& awake = g.awake;
  const size_t kept = prefetch_ ? evaluate_units<true>(awake) : evaluate_units<false>(awake);
  awake.resize(kept);
  current() = nullptr;
}

// Step 2 for group r: what the cycle's sends and notes do to r's units, in the order
// of the sending groups.
void Clock::commit_group(int r) {
  for (auto& s : groups_) {
    std::vector<Link*>& fl = s->flits_to[r];
    for (Link* l : fl) l->commit_flits();
    fl.clear();
    std::vector<Link*>& cr = s->credits_to[r];
    for (Link* l : cr) l->commit_credits();
    cr.clear();
    std::vector<Note>& nt = s->notes_to[r];
    for (const Note& n : nt) n.to->note(n.a, n.b);
    nt.clear();
  }
}

bool Clock::Chooser::add(double ns, double units) {
  cost[mode].ns += ns;
  cost[mode].units += units;
  if (++cycles < kEpoch) return false;
  choose();
  return true;
}

void Clock::Chooser::choose() {
  Cost& m = cost[mode];
  const double c = m.ns / std::max(m.units, 1.0);
  m.cost = m.cost < 0 ? c : 0.5 * (m.cost + c);
  m.ns = m.units = 0;
  cycles = 0;
  if (cost[!mode].cost < 0) {  // the other way has not run yet
    mode = !mode;
    return;
  }
  const bool best = cost[1].cost < cost[0].cost;
  if (probing) {  // the epoch just ended measured the way that was behind
    probe_every = best == mode ? 4 : std::min(probe_every * 2, 64u);
    probing = false;
    since_probe = 0;
  }
  if (++since_probe >= probe_every) {
    probing = true;
    mode = !best;
  } else {
    mode = best;
  }
}

void Clock::evaluate() {
  size_t awake = 0;
  for (auto& g : groups_) awake += g->awake.size();
  const int n = (int)groups_.size();
  const bool eligible = n > 1 && awake >= parallel_min();
  // parallel_always: every cycle with enough awake units on the workers, whatever it
  // costs (to measure the barriers' cost, docs/performance.md).
  const bool always = opts_.parallel == KernelOptions::Parallel::Always;
  // prefetch On or Off: the hints always or never, at any size, unmeasured (tests run the
  // hints on small meshes with it, and measurements compare the two ways).
  const int forced = opts_.prefetch == KernelOptions::Prefetch::Auto ? -1
                     : opts_.prefetch == KernelOptions::Prefetch::On ? 1
                                                                      : 0;
  const bool measure_pf = forced < 0 && awake >= kPrefetchMin;
  const bool timed = eligible || measure_pf;
  prefetch_ = forced >= 0 ? forced == 1 : measure_pf && pf_.mode;
  const bool par = eligible && par_.mode;
  const auto t0 = timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
  if (par) {
    if (workers_.empty()) start_workers();
    ++parallel_cycles_;
    parallel_step(1);
    parallel_step(2);
  } else {
    for (auto& g : groups_) evaluate_group(*g, false);
  }
  if (timed) {
    const double ns = (double)std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now() - t0).count();
    if (measure_pf) pf_.add(ns, (double)awake);
    if (eligible && par_.add(ns, (double)awake)) {  // an epoch ended
      if (always) par_ = Chooser();                   // parallel again, nothing measured
      rebalance();
    }
  }
  for (auto& g : groups_) {
    if (g->deferred.empty()) continue;
    // Moved out first: an action may defer another (it then runs at once).
    std::vector<std::function<void()>> acts;
    acts.swap(g->deferred);
    for (auto& f : acts) f();
  }
}

void Clock::parallel_step(int step) {
  const int workers = (int)workers_.size();
  step_ = step;
  arrived_.store(0, std::memory_order_relaxed);
  go_.fetch_add(1, std::memory_order_seq_cst);
  if (sleepers_.load(std::memory_order_seq_cst) > 0) {
    std::lock_guard<std::mutex> lk(m_);
    cv_.notify_all();
  }
  if (step == 1) evaluate_group(*groups_[0], true);
  else commit_group(0);
  for (int spins = 0; arrived_.load(std::memory_order_acquire) != workers; ++spins) {
    if (spins < kSpins) cpu_relax();
    else std::this_thread::yield();
  }
}

// `seen`: the value of go_ when the worker was made (the main thread may bump it
// before the thread first runs).
void Clock::worker(int id, uint64_t seen) {
  for (;;) {
    int spins = 0;
    while (go_.load(std::memory_order_acquire) == seen && !stop_.load(std::memory_order_relaxed)) {
      if (++spins < kSpins) {
        cpu_relax();
        continue;
      }
      std::unique_lock<std::mutex> lk(m_);
      sleepers_.fetch_add(1, std::memory_order_seq_cst);
      cv_.wait(lk, [&] {
        return go_.load(std::memory_order_seq_cst) != seen || stop_.load(std::memory_order_relaxed);
      });
      sleepers_.fetch_sub(1, std::memory_order_relaxed);
    }
    if (stop_.load(std::memory_order_relaxed)) return;
    seen = go_.load(std::memory_order_acquire);
    if (step_ == 1) evaluate_group(*groups_[id], true);
    else commit_group(id);
    arrived_.fetch_add(1, std::memory_order_acq_rel);
  }
}

void Clock::start_workers() {
  stop_.store(false);
  const uint64_t seen = go_.load();
  for (int i = 1; i < (int)groups_.size(); ++i) workers_.emplace_back([this, i, seen] { worker(i, seen); });
}

void Clock::stop_workers() {
  if (workers_.empty()) return;
  {
    std::lock_guard<std::mutex> lk(m_);
    stop_.store(true);
  }
  cv_.notify_all();
  for (std::thread& t : workers_) t.join();
  workers_.clear();
  stop_.store(false);
}

}  // namespace fm
