// Resume instead of restart (models/collective/resume.h): a hand-worked plan, then the
// plan on real data - an allreduce aborted at points throughout every phase, a board
// dead, the replacement collective run from the kept state - must end in the exact sum
// over the live chips; and tests that keep a contaminated piece on purpose and see the
// sums go wrong, so the exact-sum check can fail.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "models/collective/algorithms.h"
#include "models/collective/reference.h"
#include "models/collective/resume.h"

using namespace fm;
using namespace fm::coll;

namespace {

NetworkConfig machine(int w, int h, bool torus) {
  NetworkConfig n;
  n.width = w;
  n.height = h;
  n.topology = torus ? Topology::Torus : Topology::Mesh;
  n.vcs = 8;
  return n;
}

Schedule schedule(NetworkConfig n, std::vector<Coord> boards, Algo a, uint32_t words,
                  uint32_t chunk, Order order = Order::XY) {
  n.faults.boards = std::move(boards);
  AlgoParams p;
  p.algo = a;
  p.order = order;
  p.words = words;
  p.chunk_words = chunk;
  return build_schedule(FaultSet(n), p);
}

using Ranges = std::vector<std::pair<uint32_t, uint32_t>>;

// The continuation's transfers as text, "src>dst r|c offset+len", in list order.
std::string listing(const Schedule& s) {
  std::string t;
  for (const Xfer& x : s.xfers)
    t += (t.empty() ? "" : " ") + std::to_string(x.src) + ">" + std::to_string(x.dst) +
         (x.reduce ? " r " : " c ") + std::to_string(x.offset) + "+" + std::to_string(x.len);
  return t;
}

// By hand: chips 0, 1, 2; chip 2 dies. Old: 0->1 reduce [0,4), 2->1 reduce [4,8), then
// 1->0 copy [0,8). New (on 0 and 1): 0->1 reduce [0,4), 0->1 reduce [4,8), 1->0 copy
// [0,8). Worked out with the rules of docs/faults.md ("Resume"):
TEST(Resume, HandWorkedPlans) {
  ScheduleBuilder ob(3, 8);
  for (ChipId c : {0, 1, 2}) ob.set_participant(c, true);
  const int ph = ob.phase({Step::ReduceScatter});
  ob.add(0, 1, 0, 4, true, ph);
  ob.add(2, 1, 4, 4, true, ph);
  ob.add(1, 0, 0, 8, false, ph);
  const Schedule old = ob.finish();
  ScheduleBuilder nb(3, 8);
  for (ChipId c : {0, 1}) nb.set_participant(c, true);
  nb.phase({Step::ReduceScatter});
  nb.add(0, 1, 0, 4, true, ph);
  nb.add(0, 1, 4, 4, true, ph);
  nb.add(1, 0, 0, 8, false, ph);
  const Schedule next = nb.finish();
  using A = Applied;

  // All three applied: chip 1's [0,4) and chip 0's [0,4) hold chip 0 + chip 1 already,
  // so the first reduce and the first half of the copy are not run. [4,8) holds chip 2's
  // words on both chips: both restore it, and the reduce and the copy's second half run.
  ResumePlan p = plan_resume(old, {A::Full, A::Full, A::Full}, next);
  ASSERT_TRUE(p.ok) << p.why;
  EXPECT_EQ(listing(p.schedule), "0>1 r 4+4 1>0 c 4+4");
  EXPECT_EQ(p.restore[0], (Ranges{{4, 4}}));
  EXPECT_EQ(p.restore[1], (Ranges{{4, 4}}));
  EXPECT_TRUE(p.restore[2].empty());  // dead
  EXPECT_EQ(p.next_words, 16u);
  EXPECT_EQ(p.run_words, 8u);
  EXPECT_EQ(p.restore_words, 8u);

  // The first applied, the second half-way: chip 1's [0,4) is done; its [4,8) is
  // unknown and restored; chip 0 is untouched, so the copy back runs whole.
  p = plan_resume(old, {A::Full, A::Part, A::None}, next);
  ASSERT_TRUE(p.ok) << p.why;
  EXPECT_EQ(listing(p.schedule), "0>1 r 4+4 1>0 c 0+8");
  EXPECT_TRUE(p.restore[0].empty());
  EXPECT_EQ(p.restore[1], (Ranges{{4, 4}}));

  // Only the first applied: nothing is contaminated, nothing restored.
  p = plan_resume(old, {A::Full, A::None, A::None}, next);
  ASSERT_TRUE(p.ok) << p.why;
  EXPECT_EQ(listing(p.schedule), "0>1 r 4+4 1>0 c 0+8");
  EXPECT_EQ(p.restore_words, 0u);

  // The first applied only in part: everything runs, chip 1's [0,4) restored first.
  p = plan_resume(old, {A::Part, A::None, A::None}, next);
  ASSERT_TRUE(p.ok) << p.why;
  EXPECT_EQ(listing(p.schedule), listing(next));
  EXPECT_EQ(p.restore[1], (Ranges{{0, 4}}));
  EXPECT_TRUE(p.restore[0].empty());
}

// A result held by another chip comes by one copy: old 0->1 reduce [0,4) (so chip 1 holds
// 0 + 1 there); new: 1->0 reduce [0,4), then 0->1 copy [0,4). Chip 0's result 0 + 1 is
// where chip 1 is; chip 1 already holds it, so the copy back is not run.
TEST(Resume, FetchesAResultFromTheChipThatHoldsIt) {
  ScheduleBuilder ob(2, 4);
  ob.set_participant(0, true);
  ob.set_participant(1, true);
  const int ph = ob.phase({Step::ReduceScatter});
  ob.add(0, 1, 0, 4, true, ph);
  const Schedule old = ob.finish();
  ScheduleBuilder nb(2, 4);
  nb.set_participant(0, true);
  nb.set_participant(1, true);
  nb.phase({Step::ReduceScatter});
  nb.add(1, 0, 0, 4, true, ph);
  nb.add(0, 1, 0, 4, false, ph);
  const Schedule next = nb.finish();
  const ResumePlan p = plan_resume(old, {Applied::Full}, next);
  ASSERT_TRUE(p.ok) << p.why;
  EXPECT_EQ(listing(p.schedule), "1>0 c 0+4");
  EXPECT_EQ(p.copy_words, 4u);
  EXPECT_EQ(p.restore_words, 0u);
}

// Fault-free 2d aborted when a board dies, resumed as ft2d on the live chips, at 19
// points from the first transfers to nearly the end (every phase), in random orders.
struct Case {
  int w, h;
  bool torus;
  Coord board;
  Algo old_algo, next_algo;
  std::vector<Coord> old_boards;  // boards already dead before the run
  Order order = Order::XY;
};

void check_case(const Case& k, uint32_t words, uint32_t chunk, uint64_t* kept_total) {
  const NetworkConfig n = machine(k.w, k.h, k.torus);
  const Schedule old = schedule(n, k.old_boards, k.old_algo, words, chunk, k.order);
  std::vector<Coord> now = k.old_boards;
  now.push_back(k.board);
  const Schedule next = schedule(n, now, k.next_algo, words, chunk, k.order);
  for (int i = 1; i <= 19; ++i) {
    const double stop = i / 20.0;
    ResumePlan plan;
    const std::string r = execute_resumed_reference(old, next, 1000 + i, stop, &plan);
    EXPECT_EQ(r, "") << k.w << "x" << k.h << (k.torus ? " torus" : " mesh") << " board "
                     << k.board.x << "," << k.board.y << " words " << words << " stop " << stop;
    *kept_total += plan.next_words - plan.run_words;
  }
}

TEST(Resume, ExactSumsWhenAbortedAnywhere) {
  const std::vector<Case> cases = {
      {8, 8, true, {1, 1}, Algo::TwoD, Algo::FT2D, {}},
      {8, 8, false, {1, 1}, Algo::TwoD, Algo::FT2D, {}},
      {8, 8, false, {0, 3}, Algo::TwoD, Algo::FT2D, {}},
      {8, 8, true, {3, 3}, Algo::TwoD, Algo::FT2D, {}, Order::Both},
      {6, 5, false, {1, 1}, Algo::TwoD, Algo::Shrink, {}},
      // A second failure: ft2d with one hole aborted, resumed with two.
      {8, 8, true, {3, 2}, Algo::FT2D, Algo::FT2D, {{1, 1}}},
  };
  for (const Case& k : cases) {
    uint64_t kept = 0;
    check_case(k, 256, 16, &kept);
    check_case(k, 1000, 64, &kept);
    // Resume is worth having: across the abort points some work was saved.
    EXPECT_GT(kept, 0u) << k.w << "x" << k.h << " board " << k.board.x << "," << k.board.y;
  }
}

TEST(Resume, ExactSumsOn16x16) {
  uint64_t kept = 0;
  check_case({16, 16, true, {3, 4}, Algo::TwoD, Algo::FT2D, {}}, 512, 32, &kept);
  check_case({16, 16, false, {0, 0}, Algo::TwoD, Algo::FT2D, {}}, 512, 32, &kept);
  EXPECT_GT(kept, 0u);
}

// Failures that follow one another: 2d aborted by a board, its continuation aborted by a
// second board (each plan replays every run since the inputs), then by a chip. Planning
// the second from the inputs instead of the first continuation's buffers gave wrong sums
// in the simulator (FaultRecovery.SecondFailureDuringReconfigurationGetsItsOwnRound).
TEST(Resume, ExactSumsThroughFailuresThatFollowOneAnother) {
  for (bool torus : {true, false}) {
    const NetworkConfig n = machine(8, 8, torus);
    const Schedule s0 = schedule(n, {}, Algo::TwoD, 512, 32);
    const Schedule s1 = schedule(n, {{1, 1}}, Algo::FT2D, 512, 32);
    const Schedule s2 = schedule(n, {{1, 1}, {3, 2}}, Algo::FT2D, 512, 32);
    for (double a : {0.2, 0.5, 0.8})
      for (double b : {0.1, 0.4, 0.7}) {
        EXPECT_EQ(execute_chained_reference({&s0, &s1, &s2}, {a, b}, 77), "")
            << (torus ? "torus" : "mesh") << " stops " << a << " " << b;
      }
  }
}

// The checks can fail: a plan that keeps a contaminated piece gives wrong sums.
TEST(Resume, KeepingAContaminatedPieceBreaksTheSum) {
  const NetworkConfig n = machine(8, 8, true);
  const Schedule old = schedule(n, {}, Algo::TwoD, 256, 16);
  const Schedule next = schedule(n, {{1, 1}}, Algo::FT2D, 256, 16);
  // Not restoring what the plan restores (the dead chips' contributions stay in).
  int broken = 0, tried = 0;
  for (double stop : {0.2, 0.5, 0.8}) {
    ResumePlan plan;
    ASSERT_EQ(execute_resumed_reference(old, next, 7, stop, &plan), "");
    if (plan.restore_words == 0) continue;
    ++tried;
    const std::string r = execute_resumed_reference(old, next, 7, stop, nullptr, [](ResumePlan& p) {
      for (auto& r : p.restore) r.clear();
    });
    broken += !r.empty();
  }
  EXPECT_GT(tried, 0);
  EXPECT_EQ(broken, tried);
}

// The planner works through the buffer in strips of segments when a plan would need
// more than its memory bound (a 32x32 machine at the report's sizes): every pass treats
// each segment on its own, so any strip size gives the plan of one strip. Here from one
// segment per strip up to all of them, after a failure at several points of every
// phase (the aborted run's transfers applied in list order, one in part).
TEST(Resume, StripsGiveThePlanOfOneStrip) {
  struct K {
    bool torus;
    Order order;
    Algo next_algo;
  };
  for (const K& k : {K{true, Order::Both, Algo::FT2D}, K{false, Order::Both, Algo::FT2D},
                     K{true, Order::XY, Algo::FT2D}, K{false, Order::XY, Algo::Shrink}}) {
    const NetworkConfig n = machine(8, 8, k.torus);
    const Schedule old = schedule(n, {}, Algo::TwoD, 1000, 16, k.order);
    const Schedule next = schedule(n, {{1, 2}}, k.next_algo, 1000, 16, k.order);
    uint64_t kept = 0, restored = 0;
    for (double stop : {0.1, 0.3, 0.5, 0.7, 0.9}) {
      const size_t cut = (size_t)(stop * (double)old.xfers.size());
      std::vector<Applied> applied(old.xfers.size(), Applied::None);
      for (size_t i = 0; i < cut; ++i) applied[i] = Applied::Full;
      applied[cut] = Applied::Part;
      const ResumePlan one = plan_resume(old, applied, next);
      ASSERT_TRUE(one.ok) << one.why;
      int strips_seen = 0;
      // 48 bytes per chip and segment: 64 chips take 3,072 bytes a segment.
      for (double memory : {1.0, 3072.0 * 7, 3072.0 * 100}) {
        const ResumePlan p = plan_resume(old, applied, next, nullptr, memory);
        const std::string at = std::string(k.torus ? "torus" : "mesh") + " stop " + std::to_string(stop) +
                               " memory " + std::to_string(memory);
        ASSERT_TRUE(p.ok) << at << ": " << p.why;
        EXPECT_EQ(listing(p.schedule), listing(one.schedule)) << at;
        EXPECT_EQ(p.restore, one.restore) << at;
        EXPECT_EQ(p.next_words, one.next_words) << at;
        EXPECT_EQ(p.run_words, one.run_words) << at;
        EXPECT_EQ(p.copy_words, one.copy_words) << at;
        EXPECT_EQ(p.restore_words, one.restore_words) << at;
        EXPECT_EQ(p.restore_chips, one.restore_chips) << at;
        EXPECT_EQ(p.old_applied_words, one.old_applied_words) << at;
        EXPECT_EQ(p.old_clean_words, one.old_clean_words) << at;
        EXPECT_EQ(fingerprint(p.schedule), fingerprint(one.schedule)) << at;
        ++strips_seen;
      }
      EXPECT_EQ(strips_seen, 3);
      kept += one.kept_words();
      restored += one.restore_words;
    }
    // Something is kept and something restored, so the comparison covers both (at 0.5
    // the list's first two slices are whole sums with the dead chips' data, the others
    // untouched: nothing to keep there).
    EXPECT_GT(kept, 0u) << (k.torus ? "torus" : "mesh");
    EXPECT_GT(restored, 0u) << (k.torus ? "torus" : "mesh");
  }
}

TEST(Resume, RejectsMismatchedInput) {
  const NetworkConfig n = machine(4, 4, true);
  const Schedule a = schedule(n, {}, Algo::TwoD, 64, 8);
  const Schedule b = schedule(n, {}, Algo::TwoD, 128, 8);
  EXPECT_THROW(plan_resume(a, std::vector<Applied>(a.xfers.size()), b), std::invalid_argument);
  EXPECT_THROW(plan_resume(a, std::vector<Applied>(1), a), std::invalid_argument);
}

}  // namespace

namespace {
// The planner at the report's sizes: 2d on a 32x32 torus at 16 MiB per chip (64 KiB
// chunks, order both), aborted with its list's first `stop` applied, resumed as ft2d
// around board 8,8. Such a plan needs about 3.7 GB in one strip.
TEST(ResumeLarge, DISABLED_PlansA32x32TorusAt16MiB) {
  const NetworkConfig n = machine(32, 32, true);
  const uint32_t words = (16u << 20) / 64, chunk = 1024;
  const Schedule old = schedule(n, {}, Algo::TwoD, words, chunk, Order::Both);
  const Schedule next = schedule(n, {{8, 8}}, Algo::FT2D, words, chunk, Order::Both);
  std::vector<Applied> applied(old.xfers.size(), Applied::None);
  for (size_t i = 0; i < old.xfers.size() * 3 / 10; ++i) applied[i] = Applied::Full;
  const auto t0 = std::chrono::steady_clock::now();
  const ResumePlan p = plan_resume(old, applied, next);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(p.ok) << p.why;
  std::printf("plan: %.1f s, kept %llu of %llu words, restores %llu, %d rounds\n", s,
              (unsigned long long)p.kept_words(), (unsigned long long)p.next_words,
              (unsigned long long)p.restore_words, p.rounds);
}
}  // namespace
