// Collective schedules (models/collective/): the dependency rules on hand-made
// schedules, functional truth of every algorithm on real data (list order and random
// dependency-respecting orders) over many machines and fault sets, and link loads
// against hand formulas and the topology lower bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "models/collective/algorithms.h"
#include "models/collective/reference.h"
#include "models/routing/routes.h"

using namespace fm;
using namespace fm::coll;

namespace {

std::vector<uint32_t> deps(const DepLists& d, uint32_t i) {
  return std::vector<uint32_t>(d.idx.begin() + d.off[i], d.idx.begin() + d.off[i + 1]);
}
std::vector<uint32_t> send_deps(const Schedule& s, uint32_t i) { return deps(dependencies(s, true), i); }
std::vector<uint32_t> apply_deps(const Schedule& s, uint32_t i) { return deps(dependencies(s, false), i); }
using V = std::vector<uint32_t>;

NetworkConfig machine(int w, int h, bool torus) {
  NetworkConfig n;
  n.width = w;
  n.height = h;
  n.topology = torus ? Topology::Torus : Topology::Mesh;
  n.vcs = 8;  // enough for lash to route every fault set here minimally
  return n;
}

std::string name(const NetworkConfig& n, const AlgoParams& p) {
  std::string s = std::to_string(n.width) + "x" + std::to_string(n.height) +
                  (n.torus() ? " torus" : " mesh") + " " + to_string(p.algo) + " " +
                  to_string(p.order) + " line " + to_string(p.line) + " words " + std::to_string(p.words) + " chunk " +
                  std::to_string(p.chunk_words);
  for (const Coord& c : n.faults.chips) s += " chip " + std::to_string(c.x) + "," + std::to_string(c.y);
  for (const Coord& c : n.faults.boards) s += " board " + std::to_string(c.x) + "," + std::to_string(c.y);
  for (const LinkFault& l : n.faults.links) s += " link " + to_string(l);
  return s;
}

// The area of the largest rectangle of live chips with every link inside it live both
// ways (wrapping on a torus), found by trying every corner and size and checking each
// rectangle chip by chip and link by link: shrink's participant count, worked out
// independently of largest_rect's row-by-row growth.
int largest_live_rectangle(const FaultSet& f) {
  const Topology2D& t = f.topology();
  const int W = t.width(), H = t.height();
  const bool torus = t.torus();
  auto live_link = [&](int x, int y, Port p) {
    const ChipId a = t.id(x % W, y % H);
    const long n = t.neighbour(a, p);
    return n >= 0 && !f.link_dead(a, p) && !f.link_dead((ChipId)n, opposite(p));
  };
  int best = 0;
  for (int y0 = 0; y0 < H; ++y0)
    for (int x0 = 0; x0 < W; ++x0)
      for (int h = 1; h <= (torus ? H : H - y0); ++h)
        for (int w = 1; w <= (torus ? W : W - x0); ++w) {
          if (w * h <= best) continue;
          bool ok = true;
          for (int dy = 0; dy < h && ok; ++dy)
            for (int dx = 0; dx < w && ok; ++dx) {
              const int x = x0 + dx, y = y0 + dy;
              ok = !f.chip_dead(t.id(x % W, y % H)) && (dx == 0 || live_link(x - 1, y, kEast)) &&
                   (dy == 0 || live_link(x, y - 1, kNorth));
            }
          if (ok) best = w * h;
        }
  return best;
}

// Runs the schedule in list order and three random dependency-respecting orders, checks
// the participants (live chips, or the largest live rectangle for shrink), and that the
// algorithm does not beat the topology's lower bound. Returns the schedule for further
// checks.
Schedule check_sums(const NetworkConfig& n, const AlgoParams& p) {
  const std::string what = name(n, p);
  if (getenv("COLL_TRACE")) fprintf(stderr, "%s\n", what.c_str());
  FaultSet f(n);
  const Schedule s = build_schedule(f, p);
  EXPECT_EQ(s.words, p.words) << what;
  const int expect_participants = p.algo == Algo::Shrink ? largest_live_rectangle(f) : f.live_chips();
  EXPECT_EQ(s.participants(), expect_participants) << what;
  for (size_t c = 0; c < s.participant.size(); ++c)
    if (s.participant[c]) {
      EXPECT_FALSE(f.chip_dead((ChipId)c)) << what << " dead chip " << c;
    }
  for (uint64_t seed : {0, 1, 2, 3}) {
    const std::string r = execute_reference(s, seed);
    EXPECT_EQ(r, "") << what << " seed " << seed;
    if (!r.empty()) break;
  }
  // An algorithm cannot beat a lower bound.
  const RouteSet rs = build_routes(n, f);
  const ScheduleLoad l = schedule_load(s, f.topology(), rs.tables);
  const double tb = topology_bound_words(f, s.participant, p.words);
  EXPECT_LE(tb, algorithm_bound_words(l) * (1 + 1e-12)) << what;
  return s;
}

const Algo kAll[] = {Algo::Ring, Algo::BiRing, Algo::AltRing, Algo::TwoD,
                     Algo::FT2D, Algo::Shrink, Algo::Snake};

}  // namespace

// ---- Dependency rules on hand-made schedules --------------------------------------

TEST(CollectiveDeps, ReduceAfterReduceCommutesCopyDoesNot) {
  ScheduleBuilder b(3, 10);
  const int ph = b.phase({Step::ReduceScatter});
  b.add(0, 1, 0, 4, true, ph);   // 0: reduce into chip 1 [0,4)
  b.add(2, 1, 2, 4, true, ph);   // 1: reduce into chip 1 [2,6): commutes with 0
  b.add(0, 1, 3, 2, false, ph);  // 2: copy into chip 1 [3,5): after both reduces
  b.add(2, 1, 4, 1, true, ph);   // 3: reduce after the copy: after it
  const Schedule s = b.finish();
  EXPECT_EQ(apply_deps(s, 0), V{});
  EXPECT_EQ(apply_deps(s, 1), V{});
  EXPECT_EQ(apply_deps(s, 2), (V{0, 1}));
  EXPECT_EQ(apply_deps(s, 3), V{2});
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(send_deps(s, i), V{}) << i;
}

// Copy, then two reduces into the same range: the second reduce does not wait for the
// first (they commute), so it must wait for the copy itself, or it could land before the
// copy and be overwritten. Random orders then give the list order's result.
TEST(CollectiveDeps, EveryReduceAfterACopyWaitsForIt) {
  ScheduleBuilder b(4, 4);
  for (ChipId c = 0; c < 4; ++c) b.set_participant(c, true);
  const int ph = b.phase({Step::ReduceScatter});
  b.add(0, 1, 0, 4, false, ph);  // 0: copy into chip 1
  b.add(2, 1, 0, 4, true, ph);   // 1: reduce into chip 1
  b.add(3, 1, 0, 4, true, ph);   // 2: reduce into chip 1: after 0, not after 1
  b.add(1, 0, 0, 4, true, ph);   // 3: chip 1's sum out
  const Schedule s = b.finish();
  EXPECT_EQ(apply_deps(s, 1), V{0});
  EXPECT_EQ(apply_deps(s, 2), V{0});
  EXPECT_EQ(send_deps(s, 3), (V{0, 1, 2}));
}

TEST(CollectiveDeps, WriteAfterReadWaitsForTheRead) {
  ScheduleBuilder b(3, 8);
  const int ph = b.phase({Step::ReduceScatter});
  b.add(1, 2, 0, 4, true, ph);   // 0: chip 1 reads [0,4)
  b.add(0, 1, 2, 4, false, ph);  // 1: copy into chip 1 [2,6): must wait for read 0
  b.add(0, 1, 4, 4, true, ph);   // 2: reduce into chip 1 [4,8): after copy 1 (overlap)
  b.add(0, 1, 6, 2, true, ph);   // 3: reduce [6,8): commutes with 2, no read there
  const Schedule s = b.finish();
  EXPECT_EQ(apply_deps(s, 1), V{0});
  EXPECT_EQ(apply_deps(s, 2), V{1});
  EXPECT_EQ(apply_deps(s, 3), V{});
}

TEST(CollectiveDeps, SendWaitsForEarlierWritesIntoItsRangeOnly) {
  ScheduleBuilder b(4, 8);
  const int ph = b.phase({Step::ReduceScatter});
  b.add(0, 1, 0, 4, true, ph);  // 0: into chip 1 [0,4)
  b.add(2, 1, 0, 2, true, ph);  // 1: into chip 1 [0,2)
  b.add(1, 3, 2, 2, true, ph);  // 2: chip 1 sends [2,4): needs 0, not 1
  b.add(1, 3, 4, 4, true, ph);  // 3: chip 1 sends [4,8): nothing written there
  b.add(3, 1, 0, 8, false, ph);  // 4: copy over chip 1: after 0, 1 and reads 2, 3
  b.add(1, 2, 0, 8, true, ph);   // 5: chip 1 sends: only the copy matters now
  const Schedule s = b.finish();
  EXPECT_EQ(send_deps(s, 2), V{0});
  EXPECT_EQ(send_deps(s, 3), V{});
  EXPECT_EQ(apply_deps(s, 4), (V{0, 1, 2, 3}));
  EXPECT_EQ(send_deps(s, 5), V{4});
  EXPECT_EQ(execute_reference(s, 0).empty(), false);  // not an allreduce: sums differ
}

TEST(CollectiveDeps, RandomOrderCatchesAMissingDependency) {
  // A two-chip allreduce by hand: 0 -> 1 reduce, 1 -> 0 copy. Correct as built; with the
  // copy's send dependency removed, some random order sends before the reduce arrived.
  ScheduleBuilder b(2, 16);
  b.set_participant(0, true);
  b.set_participant(1, true);
  const int ph = b.phase({Step::ReduceScatter});
  b.add(0, 1, 0, 16, true, ph);
  b.add(1, 0, 0, 16, false, ph);
  Schedule s = b.finish();
  ASSERT_EQ(send_deps(s, 1), V{0});
  for (uint64_t seed : {0, 1, 2, 3, 4}) EXPECT_EQ(execute_reference(s, seed), "") << seed;
  s.send_succ_idx.clear();
  s.send_succ_off.assign(3, 0);
  s.send_deps.assign(2, 0);
  int bad = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) bad += !execute_reference(s, seed).empty();
  EXPECT_GT(bad, 0);
  EXPECT_EQ(execute_reference(s, 0), "");  // list order does not need the deps
}

TEST(CollectiveDeps, InitialWordsDiffer) {
  EXPECT_NE(initial_word(0, 0), initial_word(1, 0));
  EXPECT_NE(initial_word(0, 0), initial_word(0, 1));
  EXPECT_EQ(initial_word(5, 7), initial_word(5, 7));
}

// ---- Functional truth ----------------------------------------------------------------

TEST(CollectiveSums, EveryAlgorithmFaultFree) {
  const int sizes[][2] = {{1, 1}, {2, 2}, {3, 5}, {5, 4}, {7, 7}, {8, 8}, {1, 8}, {8, 1}, {2, 6}, {4, 3}};
  for (bool torus : {false, true})
    for (const auto& sz : sizes)
      for (Algo a : kAll)
        for (Order o : {Order::XY, Order::YX, Order::Both}) {
          const bool two_d = a == Algo::TwoD || a == Algo::FT2D || a == Algo::Shrink;
          if (!two_d && o != Order::XY) continue;
          for (Line l : {Line::Ring, Line::Chain, Line::Auto}) {
            if (!two_d && l != Line::Ring) continue;
            AlgoParams p;
            p.algo = a;
            p.order = o;
            p.line = l;
            p.words = 53;  // not divisible by any ring size here: uneven shards
            p.chunk_words = 4;
            check_sums(machine(sz[0], sz[1], torus), p);
          }
        }
}

TEST(CollectiveSums, FewerWordsThanChips) {
  // Zero-length shards are skipped; the sum is still exact.
  for (Algo a : kAll) {
    AlgoParams p;
    p.algo = a;
    p.order = Order::Both;
    p.words = 3;
    p.chunk_words = 1;
    check_sums(machine(5, 4, true), p);
    check_sums(machine(4, 5, false), p);
  }
}

TEST(CollectiveSums, EverySingleBoardHoleOn8x8) {
  for (bool torus : {false, true})
    for (int bx = 0; bx < 4; ++bx)
      for (int by = 0; by < 4; ++by)
        for (Algo a : {Algo::FT2D, Algo::Shrink, Algo::Snake})
          for (Order o : {Order::XY, Order::YX, Order::Both})
            for (Line l : {Line::Ring, Line::Chain, Line::Auto}) {
              if (a == Algo::Snake && (o != Order::XY || l != Line::Ring)) continue;
              NetworkConfig n = machine(8, 8, torus);
              n.faults.boards = {Coord{bx, by}};
              AlgoParams p;
              p.algo = a;
              p.order = o;
              p.line = l;
              p.words = 97;
              p.chunk_words = 5;
              check_sums(n, p);
            }
}

TEST(CollectiveSums, SlicedSchedulesSumExactly) {
  // --slices cuts the range into slices run one after another, each with its own fold,
  // rings and unfold; any count (including more slices than words) must still give
  // every live chip the exact sum. Auto is one count for the whole family, holes or not,
  // so that default runs of 2d, shrink and ft2d compare like for like (and ft2d without
  // a hole is 2d).
  for (bool torus : {false, true})
    for (int hole : {0, 1})
      for (Algo a : {Algo::TwoD, Algo::FT2D, Algo::Shrink})
        for (Order o : {Order::XY, Order::Both})
          for (uint32_t sl : {0u, 1u, 2u, 3u, 7u, 64u})
            for (uint32_t words : {5u, 97u}) {
              if (a == Algo::TwoD && hole) continue;
              NetworkConfig n = machine(7, 6, torus);
              if (hole) n.faults.boards = {Coord{1, 1}};
              AlgoParams p;
              p.algo = a;
              p.order = o;
              p.words = words;
              p.chunk_words = 4;
              p.slices = sl;
              check_sums(n, p);
            }
  AlgoParams p;
  p.words = 600;
  p.chunk_words = 7;
  const auto same = [](const Schedule& a, const Schedule& b) {
    if (a.xfers.size() != b.xfers.size()) return false;
    for (size_t i = 0; i < a.xfers.size(); ++i)
      if (a.xfers[i].src != b.xfers[i].src || a.xfers[i].dst != b.xfers[i].dst ||
          a.xfers[i].offset != b.xfers[i].offset || a.xfers[i].len != b.xfers[i].len)
        return false;
    return true;
  };
  for (int hole : {0, 1}) {
    NetworkConfig n = machine(6, 5, false);
    if (hole) n.faults.boards.push_back(Coord{1, 1});
    for (Algo a : {Algo::TwoD, Algo::FT2D, Algo::Shrink}) {
      if (a == Algo::TwoD && hole) continue;
      p.algo = a;
      p.slices = 0;
      const Schedule automatic = build_schedule(FaultSet(n), p);
      p.slices = kAutoSlices;
      EXPECT_TRUE(same(automatic, build_schedule(FaultSet(n), p))) << "algo " << (int)a << " hole " << hole;
      p.slices = 1;
      EXPECT_FALSE(same(automatic, build_schedule(FaultSet(n), p))) << "algo " << (int)a << " hole " << hole;
    }
  }
  p.slices = kMaxSlices + 1;
  EXPECT_THROW(build_schedule(FaultSet(machine(6, 5, false)), p), ConfigError);
}

TEST(CollectiveSums, OddMachinesChipHolesLinkFaultsAndTwoHoles) {
  struct Case {
    int w, h;
    std::vector<Coord> chips, boards;
    std::vector<LinkFault> links;
  };
  const std::vector<Case> cases = {
      {3, 5, {{1, 2}}, {}, {}},
      {5, 4, {{0, 0}}, {}, {}},
      {7, 7, {{3, 3}}, {}, {}},
      {7, 7, {}, {{1, 1}}, {}},  // a 2x2 board in the middle of 7x7
      {7, 7, {}, {{3, 3}}, {}},  // the 1x1 corner board of 7x7
      {8, 8, {}, {{0, 0}, {3, 3}}, {}},
      {8, 8, {}, {{1, 1}, {2, 2}}, {}},  // two boards touching at a corner
      {8, 8, {}, {{1, 1}, {1, 2}}, {}},  // a 2x4 hole
      {8, 8, {}, {}, {{{3, 3}, kEast, true}}},
      {8, 8, {}, {}, {{{3, 3}, kEast, true}, {{5, 1}, kNorth, true}}},
      {8, 8, {{6, 6}}, {{1, 1}}, {{{3, 5}, kNorth, true}}},
      {6, 5, {}, {}, {{{2, 2}, kEast, false}}},  // one-way
      {2, 2, {{1, 1}}, {}, {}},
      {1, 8, {{0, 3}}, {}, {}},
      {8, 1, {{5, 0}}, {}, {}},
      // ft2d falls back to bands: chip (5,3) of cut row 3 has no live column neighbour.
      {8, 8, {{0, 3}, {5, 2}, {5, 4}}, {}, {}},
      // No full row or column at all.
      {5, 5, {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}}, {}, {}},
      {6, 6, {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}}, {}, {}},
  };
  for (const Case& c : cases)
    for (bool torus : {false, true}) {
      if ((c.w == 1 || c.h == 1) && !torus) continue;  // a dead chip cuts a mesh line
      NetworkConfig n = machine(c.w, c.h, torus);
      n.faults.chips = c.chips;
      n.faults.boards = c.boards;
      n.faults.links = c.links;
      {
        FaultSet f(n);
        if (!f.connectivity().empty()) continue;
      }
      for (Algo a : kAll)
        for (Order o : {Order::XY, Order::YX, Order::Both}) {
          const bool two_d = a == Algo::FT2D || a == Algo::Shrink || a == Algo::TwoD;
          if (!two_d && o != Order::XY) continue;
          const bool holes = !c.chips.empty() || !c.boards.empty();
          if (a == Algo::TwoD && holes) continue;
          for (Line l : {Line::Ring, Line::Chain, Line::Auto}) {
            if (!two_d && l != Line::Ring) continue;
            AlgoParams p;
            p.algo = a;
            p.order = o;
            p.line = l;
            p.words = 61;
            p.chunk_words = 3;
            check_sums(n, p);
          }
        }
    }
}

TEST(CollectiveSums, TwoDRefusesHolesNamingTheAlternatives) {
  NetworkConfig n = machine(8, 8, false);
  n.faults.boards = {Coord{1, 1}};
  FaultSet f(n);
  AlgoParams p;
  p.algo = Algo::TwoD;
  p.words = 10;
  p.chunk_words = 2;
  try {
    build_schedule(f, p);
    FAIL() << "2d accepted a hole";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("--algo ft2d"), std::string::npos) << e.what();
  }
  p.words = 0;
  p.algo = Algo::FT2D;
  EXPECT_THROW(build_schedule(f, p), ConfigError);
}

TEST(CollectiveSums, ShrinkUsesTheLargestFaultFreeRectangle) {
  // 8x8 mesh, board (1,1) dead (chips x,y in 2..3): the largest rectangle is 8x4
  // (rows 4..7), 32 chips.
  NetworkConfig n = machine(8, 8, false);
  n.faults.boards = {Coord{1, 1}};
  AlgoParams p;
  p.algo = Algo::Shrink;
  p.words = 40;
  p.chunk_words = 8;
  const Schedule s = check_sums(n, p);
  EXPECT_EQ(s.participants(), 32);
  // On a torus the rectangle may wrap: everything but rows 2..3 is 8x6 = 48 chips.
  n.topology = Topology::Torus;
  EXPECT_EQ(check_sums(n, p).participants(), 48);
}

// count_transfers (the memory estimate's input, counted in closed form per line) is the
// built schedule's transfer count, for every algorithm, order and line kind, with and
// without holes and slices, with a chunk that does not divide the shards.
TEST(CollectiveSums, CountTransfersEqualsTheBuiltSchedule) {
  for (bool torus : {false, true})
    for (int hole : {0, 1, 2})
      for (Algo a : kAll)
        for (Order o : {Order::XY, Order::YX, Order::Both})
          for (uint32_t sl : {0u, 3u})
          for (Line line : {Line::Ring, Line::Chain, Line::Auto}) {
            const bool two_d = a == Algo::TwoD || a == Algo::FT2D || a == Algo::Shrink;
            if ((!two_d && (o != Order::XY || sl || line != Line::Ring)) ||
                (a == Algo::TwoD && hole))
              continue;
            NetworkConfig n = machine(8, 6, torus);
            if (hole >= 1) n.faults.boards.push_back(Coord{1, 1});
            if (hole == 2) n.faults.links.push_back({{6, 4}, kNorth, true});
            AlgoParams p;
            p.algo = a;
            p.order = o;
            p.words = 517;
            p.chunk_words = 6;
            p.slices = sl;
            p.line = line;
            const FaultSet f(n);
            EXPECT_EQ(count_transfers(f, p), build_schedule(f, p).xfers.size()) << name(n, p);
          }
}

// ---- Loads against hand formulas -------------------------------------------------------

namespace {
ScheduleLoad load_of(const NetworkConfig& n, const AlgoParams& p) {
  FaultSet f(n);
  const Schedule s = build_schedule(f, p);
  return schedule_load(s, f.topology(), build_routes(n, f).tables);
}
uint64_t max_on(const ScheduleLoad& l, const Topology2D& t, std::initializer_list<Port> ports) {
  uint64_t m = 0;
  for (int c = 0; c < t.chips(); ++c)
    for (Port p : ports) m = std::max(m, l.link_words[c * 4 + p]);
  return m;
}
}  // namespace

TEST(CollectiveLoad, RingsOnALineMatchTheRingFormula) {
  // A ring of N chips moves 2 (N-1)/N of the buffer over each ring edge; shards differ
  // by at most one word, so the busiest edge is within 2 words of the formula.
  for (int N : {2, 3, 5, 8, 13})
    for (uint32_t S : {100u, 101u, 997u}) {
      const double ring = 2.0 * (N - 1) / N * S;
      AlgoParams p;
      p.words = S;
      p.chunk_words = 7;
      // Mesh line, one-way natural ring: east links carry one edge each, the closing
      // edge runs back over every west link.
      p.algo = Algo::Ring;
      EXPECT_NEAR((double)load_of(machine(N, 1, false), p).max_link_words, ring, 2.0) << N << " " << S;
      // Mesh line, alternate-node ring: each link direction carries one ring edge.
      p.algo = Algo::AltRing;
      EXPECT_NEAR((double)load_of(machine(1, N, false), p).max_link_words, ring, 2.0) << N << " " << S;
      // Torus ring, both ways: half the buffer each way.
      if (N >= 3) {
        p.algo = Algo::BiRing;
        EXPECT_NEAR((double)load_of(machine(N, 1, true), p).max_link_words, ring / 2, 2.0) << N << " " << S;
      }
    }
}

TEST(CollectiveLoad, TwoDMatchesTheTwoDimensionalFormula) {
  // Fault-free W x H, order xy, S a multiple of 4 W H so every shard is whole.
  //   torus: each row a ring both ways, then each column on the 1/W it owns:
  //          X links S (W-1)/W, Y links S (H-1)/(W H).
  //   mesh:  alternate-node rings one way: X links 2 S (W-1)/W, Y links 2 S (H-1)/(W H).
  const int sizes[][2] = {{3, 3}, {4, 3}, {5, 7}, {8, 8}, {6, 4}};
  for (const auto& sz : sizes) {
    const int W = sz[0], H = sz[1];
    const uint32_t S = 4u * W * H * 5;
    AlgoParams p;
    p.algo = Algo::TwoD;
    p.words = S;
    p.chunk_words = 11;
    p.slices = 1;  // the formula's shards; slices round each of theirs separately
    for (bool torus : {true, false}) {
      const NetworkConfig n = machine(W, H, torus);
      const Topology2D t(n);
      const ScheduleLoad l = load_of(n, p);
      const uint64_t k = torus ? 1 : 2;
      EXPECT_EQ(max_on(l, t, {kEast, kWest}), k * S * (W - 1) / W) << W << "x" << H << torus;
      EXPECT_EQ(max_on(l, t, {kNorth, kSouth}), k * S * (H - 1) / (W * H)) << W << "x" << H << torus;
      EXPECT_EQ(l.max_hops, torus ? 1 : 2);
      // Order yx is the transpose.
      AlgoParams q = p;
      q.order = Order::YX;
      const ScheduleLoad m = load_of(n, q);
      EXPECT_EQ(max_on(m, t, {kNorth, kSouth}), k * S * (H - 1) / H) << W << "x" << H << torus;
      EXPECT_EQ(max_on(m, t, {kEast, kWest}), k * S * (W - 1) / (W * H)) << W << "x" << H << torus;
    }
  }
}

TEST(CollectiveLoad, ChainLinesCarryTheRangeOncePerLinkDirection) {
  // Chain lines (--line chain, and auto on a mesh): link (i, i+1) of a line of n chips
  // carries the shards owned beyond it, (n-1-i) S/n, in the reduce-scatter and those
  // owned before it, (i+1) S/n, in the all-gather: exactly S per direction, against
  // 2 S (n-1)/n for the alternate-node ring. Fault-free W x H mesh, order xy, S a
  // multiple of W H so every shard is whole: X links S, Y links S / W; every transfer
  // one hop.
  const int sizes[][2] = {{3, 3}, {4, 3}, {5, 7}, {8, 8}, {6, 4}, {16, 2}};
  for (const auto& sz : sizes) {
    const int W = sz[0], H = sz[1];
    const uint32_t S = 4u * W * H * 5;
    for (Line l : {Line::Chain, Line::Auto}) {
      AlgoParams p;
      p.algo = Algo::TwoD;
      p.line = l;
      p.words = S;
      p.chunk_words = 11;
      p.slices = 1;
      const NetworkConfig n = machine(W, H, false);
      const Topology2D t(n);
      const ScheduleLoad m = load_of(n, p);
      // Every link direction carries exactly the range, not just the busiest.
      for (ChipId c = 0; c < (ChipId)t.chips(); ++c)
        for (Port q : {kEast, kWest, kNorth, kSouth}) {
          if (t.neighbour(c, q) < 0) continue;
          const bool x = q == kEast || q == kWest;
          EXPECT_EQ(m.link_words[c * 4 + q], x ? S : S / W) << W << "x" << H << " chip " << c << " port " << q;
        }
      EXPECT_EQ(m.max_hops, 1);
      // Against the alternate-node ring: 2 (W-1)/W times the chain's X load.
      p.line = Line::Ring;
      EXPECT_EQ(load_of(n, p).max_link_words, 2ull * S * (W - 1) / W) << W << "x" << H;
    }
  }
  // On a torus, auto keeps the closed rings (S (n-1)/n per direction, below the chain's
  // S), chain forces chains.
  const NetworkConfig n = machine(6, 4, true);
  const Topology2D t(n);
  const uint32_t S = 4u * 6 * 4 * 5;
  AlgoParams p;
  p.algo = Algo::TwoD;
  p.words = S;
  p.chunk_words = 11;
  p.slices = 1;
  p.line = Line::Auto;
  EXPECT_EQ(max_on(load_of(n, p), t, {kEast, kWest}), S * 5 / 6);
  p.line = Line::Chain;
  EXPECT_EQ(max_on(load_of(n, p), t, {kEast, kWest}), S);
}

// A torus column that lost one link: with chain lines its phase-2 group runs along the
// path that is left (one hop per transfer) instead of an alternate-node ring whose long
// edges detour around the dead link.
TEST(CollectiveLoad, TorusLineThatLostALinkBecomesAChain) {
  NetworkConfig n = machine(6, 6, true);
  n.faults.links = {LinkFault{{2, 2}, kNorth, true}};
  AlgoParams p;
  p.algo = Algo::FT2D;
  p.words = 6 * 6 * 20;
  p.chunk_words = 7;
  p.slices = 1;
  p.line = Line::Auto;
  check_sums(n, p);
  const ScheduleLoad chain = load_of(n, p);
  p.line = Line::Ring;
  const ScheduleLoad ring = load_of(n, p);
  EXPECT_LT(chain.max_hops, ring.max_hops);
  EXPECT_LE(chain.max_link_words, ring.max_link_words);
}

// A torus row that lost one link, with chain lines allowed (auto, chain): ft2d keeps it
// among the full lines as a chain from just past the dead link instead of folding it
// into its neighbours. Hand formulas, 6x6 torus, order xy, one slice, S a multiple of
// 2 W H (whole shards in both halves of every two-way ring): along the broken row every
// live link direction carries exactly S (the chain) and the dead one nothing; the other
// rows' two-way rings S (W-1)/W; the columns, whose groups stay straight because the
// chain's shards are owned column by column as the rings' are, S (H-1)/(W H); every
// transfer one hop (nothing folds or detours). With --line chain every line is a chain
// (S per direction; the intact lines leave their wraparound links idle). With --line
// ring the broken row folds instead.
TEST(CollectiveLoad, Ft2dTorusRowThatLostALinkRunsAsAChain) {
  const int W = 6, H = 6;
  const uint32_t S = 2u * W * H * 5;
  NetworkConfig n = machine(W, H, true);
  n.faults.links = {LinkFault{{2, 3}, kEast, true}};  // (2,3) <-> (3,3)
  const Topology2D t(n);
  for (Line l : {Line::Auto, Line::Chain}) {
    AlgoParams p;
    p.algo = Algo::FT2D;
    p.order = Order::XY;
    p.line = l;
    p.words = S;
    p.chunk_words = 7;
    p.slices = 1;
    check_sums(n, p);
    const ScheduleLoad m = load_of(n, p);
    EXPECT_EQ(m.max_hops, 1) << to_string(l);
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) {
        const ChipId c = t.id(x, y);
        for (Port q : {kEast, kWest}) {
          const bool dead = y == 3 && ((x == 2 && q == kEast) || (x == 3 && q == kWest));
          // Forced chains on the intact lines run 0..n-1 and leave the wraparound idle.
          const bool wrap = (x == W - 1 && q == kEast) || (x == 0 && q == kWest);
          const bool idle = dead || (l == Line::Chain && y != 3 && wrap);
          const uint64_t want = idle ? 0 : y == 3 || l == Line::Chain ? S : (uint64_t)S * (W - 1) / W;
          EXPECT_EQ(m.link_words[c * 4 + q], want) << to_string(l) << " chip " << x << "," << y << " port " << q;
        }
        for (Port q : {kNorth, kSouth}) {
          const bool wrap = (y == H - 1 && q == kNorth) || (y == 0 && q == kSouth);
          const uint64_t want = l == Line::Chain ? (wrap ? 0 : S / W) : (uint64_t)S * (H - 1) / (W * H);
          EXPECT_EQ(m.link_words[c * 4 + q], want) << to_string(l) << " chip " << x << "," << y << " port " << q;
        }
      }
  }
  AlgoParams p;
  p.algo = Algo::FT2D;
  p.order = Order::XY;
  p.line = Line::Ring;
  p.words = S;
  p.chunk_words = 7;
  p.slices = 1;
  const Schedule ring = build_schedule(FaultSet(n), p);
  bool folds = false;
  for (const Phase& ph : ring.phases) folds = folds || ph.step == Step::Fold;
  EXPECT_TRUE(folds);
}

// Two holes in different rows and columns of a torus (ft2d, order xy): a column's full
// rows are then two runs, one on each side of either hole's leaf rows. Its phase-2
// group crosses the other hole's leaf rows straight (their routers forward) and breaks
// only where its own column is dead, so every transfer of the column phases runs
// straight along its column: no hop east or west. Before (2026-12-05) such a group had
// two gaps, fell back to an alternate-node ring over its members, and that ring's edges
// across the hole detoured through the neighbouring columns (16x32 torus, 4 MiB, order
// both, auto: 107,894 cycles, against 65,344 after).
TEST(CollectiveLoad, Ft2dColumnGroupsCrossAnotherHolesLeafRowsStraight) {
  NetworkConfig n = machine(8, 16, true);
  n.faults.boards = {Coord{1, 1}, Coord{3, 5}};  // chips x 2-3, y 2-3 and x 6-7, y 10-11
  FaultSet f(n);
  const RouteSet rs = build_routes(n, f);
  const Topology2D& t = f.topology();
  for (Line l : {Line::Ring, Line::Chain, Line::Auto}) {
    AlgoParams p;
    p.algo = Algo::FT2D;
    p.order = Order::XY;
    p.line = l;
    p.words = 2u * 8 * 16 * 3;
    p.chunk_words = 5;
    p.slices = 1;
    const Schedule s = check_sums(n, p);
    int column_xfers = 0;
    for (const Xfer& x : s.xfers) {
      if (s.phases[x.phase].dim != Dim::Y) continue;
      const std::string ph = phase_name(s.phases[x.phase]);
      ++column_xfers;
      const std::string what = std::string(to_string(l)) + " " + ph + " " + std::to_string(t.x(x.src)) + "," +
                               std::to_string(t.y(x.src)) + " -> " + std::to_string(t.x(x.dst)) + "," +
                               std::to_string(t.y(x.dst));
      EXPECT_EQ(t.x(x.src), t.x(x.dst)) << what;
      ChipId c = x.src;
      for (int hop = 0; c != x.dst && hop < 64; ++hop) {
        const RouteEntry e = rs.tables[c].lookup(x.dst);
        ASSERT_TRUE(e.port == kNorth || e.port == kSouth) << what << " hop " << hop << " at chip " << c;
        c = (ChipId)t.neighbour(c, (Port)e.port);
      }
      EXPECT_EQ(c, x.dst) << what;
    }
    EXPECT_GT(column_xfers, 0) << to_string(l);
  }
}

// Order both around faults (ft2d): the split between the xy and the yx half follows
// each half's cost. A dead x link slows the xy half (its broken row runs as a chain
// whose end links carry 5/6 of its reduce-scatter, against 5/12 on a closed two-way
// ring), so the xy half gets less; worked by hand for this 6x6 torus from the busiest
// chip pair per phase (per word of the half: xy 5/6 + 5/72 + 5/72 + 5/6, yx 5/12 +
// 5/36 + 5/36 + 5/12): xy share 1.111 / 2.917 = 0.381. A dead y link mirrors it. A
// fault-free machine and a board in the middle of a square torus split evenly.
TEST(CollectiveLoad, Ft2dOrderBothSplitFollowsEachHalfsCost) {
  const uint32_t S = 7200;
  auto xy_words = [&](const std::vector<LinkFault>& links, const std::vector<Coord>& boards) {
    NetworkConfig n = machine(6, 6, true);
    n.faults.links = links;
    n.faults.boards = boards;
    AlgoParams p;
    p.algo = Algo::FT2D;
    p.order = Order::Both;
    p.line = Line::Auto;
    p.words = S;
    p.chunk_words = 40;
    p.slices = 1;
    const Schedule s = build_schedule(FaultSet(n), p);
    uint32_t end = 0;  // the xy half is [0, end)
    for (const Xfer& x : s.xfers)
      if (s.phases[x.phase].half == Half::XY) end = std::max(end, x.offset + x.len);
    check_sums(n, p);
    return end;
  };
  const uint32_t e = xy_words({LinkFault{{2, 3}, kEast, true}}, {});
  EXPECT_NEAR((double)e / S, 0.381, 0.005);
  const uint32_t nth = xy_words({LinkFault{{3, 2}, kNorth, true}}, {});
  EXPECT_NEAR((double)nth / S, 1 - 0.381, 0.005);
  EXPECT_EQ(xy_words({}, {}), S / 2);
  EXPECT_EQ(xy_words({}, {{1, 1}}), S / 2);
}

TEST(CollectiveLoad, HbmAndReduceWordsOfARing) {
  // Ring of N on a torus line: each chip adds (N-1)/N of the buffer, reads for sends
  // 2 (N-1)/N, writes copies (N-1)/N.
  const int N = 5;
  const uint32_t S = 100;
  AlgoParams p;
  p.algo = Algo::Ring;
  p.words = S;
  p.chunk_words = 3;
  const ScheduleLoad l = load_of(machine(N, 1, true), p);
  for (int c = 0; c < N; ++c) {
    EXPECT_EQ(l.chip_reduce_words[c], S * (N - 1) / N);
    EXPECT_EQ(l.chip_hbm_words[c], 2 * S * (N - 1) / N + S * (N - 1) / N + 2 * S * (N - 1) / N);
  }
}

TEST(CollectiveLoad, TopologyBoundFormulas) {
  // Fault-free 8x8 torus: gossip 2 (n-1) S over 256 link directions (per chip S/4, cuts
  // S/16 are lower).
  const uint32_t S = 6400;
  NetworkConfig n = machine(8, 8, true);
  FaultSet f(n);
  std::vector<char> all(64, 1);
  EXPECT_DOUBLE_EQ(topology_bound_words(f, all, S), 2.0 * 63 * S / 256);
  // 8x1 mesh line: the end chips have one link, and the middle cut one link each way: S.
  // (Reduce toward the middle and broadcast back achieves it; a ring needs 2 (n-1)/n S.)
  NetworkConfig line = machine(8, 1, false);
  FaultSet fl(line);
  EXPECT_DOUBLE_EQ(topology_bound_words(fl, std::vector<char>(8, 1), S), S);
  // A dead chip takes 8 link directions: gossip 2 * 62 S / 248.
  n.faults.chips = {Coord{3, 3}};
  FaultSet fh(n);
  std::vector<char> live(64, 1);
  live[3 * 8 + 3] = 0;
  EXPECT_DOUBLE_EQ(topology_bound_words(fh, live, S), 2.0 * 62 * S / 248);
  // Shrink's participants on a 2x2 mesh without chip (1,1): a chip with one live link
  // must send S over it.
  NetworkConfig tiny = machine(2, 2, false);
  tiny.faults.chips = {Coord{1, 1}};
  FaultSet ft(tiny);
  EXPECT_DOUBLE_EQ(topology_bound_words(ft, {1, 1, 1, 0}, S), S);
}

TEST(CollectiveLoad, Ft2dAroundOneBoardMatchesItsDesign) {
  // ft2d, order xy, one failed 2x2 board on 16 x 12 (docs/collectives.md). The cut
  // rows' chips are leaves: they reduce the buffer along their own row segments (chains)
  // and hand each piece down (up) their column to its owner in the nearest full row;
  // the full rows alone run the 2d scheme.
  //   torus: the full rows' two-way rings dominate: S (W-1)/W, as without the hole.
  //   mesh:  columns the hole cuts own nothing (their column group would detour over
  //          fully loaded row links) and their alternate-node ring partners (x-2, x+2)
  //          own a double share; with 3 units per column, 6 per partner: u = S/(3W+6)
  //          and every ring edge carries at most 2 S - 6u = 2 S (1 - 1/(W+2)).
  //          With the hole at the west side (columns 0, 1 cut) those columns leave the
  //          rings: their full-row chips hand over eastward like leaves, and the rows'
  //          rings span the other W-2 columns: 2 S (1 - 1/(W-2)), below fault-free.
  //          So with a hole in a corner (the side columns holding it leave too). With
  //          it at the south side, rows 0-1 hand over north, no column is cut and the
  //          rows' rings are the fault-free ones: 2 S (W-1)/W.
  // In each case fewer words than the one ring through all live chips (the snake).
  const int W = 16, H = 12;
  const uint32_t S = 96 * 1000;
  struct Case {
    bool torus;
    Coord hole;
    double expect;
  };
  const Case cases[] = {
      {true, {3, 2}, S * (W - 1.0) / W},
      {true, {0, 3}, S * (W - 1.0) / W},
      {true, {0, 0}, S * (W - 1.0) / W},
      {false, {3, 2}, 2.0 * S * (1 - 1.0 / (W + 2))},
      {false, {0, 3}, 2.0 * S * (1 - 1.0 / (W - 2))},
      {false, {7, 3}, 2.0 * S * (1 - 1.0 / (W - 2))},
      {false, {0, 0}, 2.0 * S * (1 - 1.0 / (W - 2))},
      {false, {7, 0}, 2.0 * S * (1 - 1.0 / (W - 2))},
      {false, {3, 0}, 2.0 * S * (W - 1) / W},
  };
  for (const Case& c : cases) {
    NetworkConfig n = machine(W, H, c.torus);
    n.faults.boards.push_back(c.hole);
    AlgoParams p;
    p.algo = Algo::FT2D;
    p.words = S;
    p.chunk_words = S;
    p.slices = 1;
    const ScheduleLoad l = load_of(n, p);
    const std::string what = std::string(c.torus ? "torus" : "mesh") + " hole " +
                             std::to_string(c.hole.x) + "," + std::to_string(c.hole.y);
    EXPECT_NEAR((double)l.max_link_words, c.expect, 2.0) << what;
    // Slices (auto: kAutoSlices) keep the design; each rounds its shards separately.
    p.slices = 0;
    EXPECT_NEAR((double)load_of(n, p).max_link_words, c.expect, 2.0 * kAutoSlices) << what;
    p.algo = Algo::Snake;
    EXPECT_LT(l.max_link_words, load_of(n, p).max_link_words) << what;
  }
}

TEST(CollectiveLoad, Ft2dSegmentChainsCarryTheirRangeOnce) {
  // The leaves of a cut line reduce along their segment as a chain: over the fold and
  // the unfold each word of the chain's range crosses each link of the chain once each
  // way, whoever owns it (an alternate-node ring would carry 2 (1-1/n) of it each way).
  // When a piece is reduced to one leaf and copied back from another, the two
  // directions of a link share those 2 words unevenly, so the checks below are on the
  // sum of a link's two directions.
  const uint32_t S = 96 * 1000;
  AlgoParams p;
  p.algo = Algo::FT2D;
  p.words = S;
  p.chunk_words = S;
  p.slices = 1;
  // 8x5 mesh, chip (3,2) dead: row 2 is the only cut line, two unpaired segments
  // (x 0-2 and 4-7) reducing all of [0, S); nothing else uses their row links. The
  // pieces owned over the other segment are reduced to one leaf and copied back from
  // another, so a link's two directions split 2 S unevenly; each stays below what a
  // fault-free row's alternate-node ring puts on a link, 2 S (1 - 1/W).
  {
    NetworkConfig n = machine(8, 5, false);
    n.faults.chips = {Coord{3, 2}};
    FaultSet f(n);
    const ScheduleLoad l = load_of(n, p);
    const Topology2D& t = f.topology();
    for (int x : {0, 1, 4, 5, 6}) {
      const uint64_t e = l.link_words[t.id(x, 2) * 4 + kEast];
      const uint64_t w = l.link_words[t.id(x + 1, 2) * 4 + kWest];
      EXPECT_EQ(e + w, 2ull * S) << x;
      EXPECT_LT(std::max(e, w), 2.0 * S * (1 - 1.0 / 8)) << x;
    }
  }
  // 16x12 torus, board (3,2) dead: rows 4 and 5 are cut over the same columns and fold
  // away from each other (down, up), so they pair: [0, pe) with pe = S (W-1)/W is split
  // in halves, each chip first adding its partner's half into its partner (and copying
  // it back at the end), and each segment chains its half plus [pe, S), R = S - pe/2 =
  // 51,000 words. The hole's pieces are reduced to one leaf and copied back from
  // another (docs/collectives.md), so a link's two directions split 2 R unevenly:
  //   segment row links, both ways together: 2 R, each way at most pe
  //   the partners' column links:   pe = 90,000 (pe/2 there and pe/2 back)
  //   the full rows' two-way rings: S (W-1)/W = 90,000, the busiest.
  {
    const int W = 16;
    NetworkConfig n = machine(W, 12, true);
    n.faults.boards = {Coord{3, 2}};
    FaultSet f(n);
    const ScheduleLoad l = load_of(n, p);
    const Topology2D& t = f.topology();
    const uint64_t pe = (uint64_t)S * (W - 1) / W;
    for (int y : {4, 5})
      for (int x = 8; x != 5; x = (x + 1) % W) {  // the segment 8..15, 0..5
        const uint64_t e = l.link_words[t.id(x, y) * 4 + kEast];
        const uint64_t w = l.link_words[t.id((x + 1) % W, y) * 4 + kWest];
        EXPECT_EQ(e + w, 2 * (S - pe / 2)) << x << "," << y;
        EXPECT_LE(std::max(e, w), pe) << x << "," << y;
      }
    for (int x = 0; x < W; ++x) {
      if (x == 6 || x == 7) continue;
      EXPECT_EQ(l.link_words[t.id(x, 4) * 4 + kNorth], pe) << x;
      EXPECT_EQ(l.link_words[t.id(x, 5) * 4 + kSouth], pe) << x;
    }
    EXPECT_EQ(l.max_link_words, pe);
  }
}

TEST(CollectiveLoad, Ft2dBothOnATorusBeatsTheBaselines) {
  // Order both on a 16x12 torus with one board out: fault-free both loads every link
  // about S/2. Each half's leaves chain their half (S/2) along their segments, the two
  // rows the board cuts paired over 5/8 of it: the partners' column link carries, each
  // way, half of the paired 5/16 S there and half back (5/16 S), on top of the other
  // half's column ring (S/2 (1 - 1/H)) and the hand-overs of one column's pieces and a
  // share of the hole's (a few S/(2W)). So ft2d's busiest link is at most
  // S/2 (1 - 1/H) + 5/16 S + S/W (0.83 S), while shrink's rectangle loses the
  // wraparound in one dimension (~S) and the snake is ~S.
  const uint32_t S = 96 * 1000;
  NetworkConfig n = machine(16, 12, true);
  n.faults.boards = {Coord{3, 2}};
  AlgoParams p;
  p.order = Order::Both;
  p.words = S;
  p.chunk_words = S;
  p.algo = Algo::FT2D;
  const uint64_t ft = load_of(n, p).max_link_words;
  const uint32_t W = 16, H = 12;
  EXPECT_GE(ft, S / 2 * (H - 1) / H + 5 * S / 16);
  EXPECT_LE(ft, S / 2 * (H - 1) / H + 5 * S / 16 + S / W);
  p.algo = Algo::Shrink;
  EXPECT_LT(ft, load_of(n, p).max_link_words);
  p.algo = Algo::Snake;
  EXPECT_LT(ft, load_of(n, p).max_link_words);
}

TEST(CollectiveLoad, Ft2dOrderBothKeepsSideChipsInTheirRings) {
  // A ring member moves 5 S (1 - 1/n) words through HBM per dimension's share (RS: add
  // 2 words per word received, read 1 per word sent; AG: write 1, read 1), about 5 S
  // in all on 8x8. With one order ft2d trims the columns a corner board makes faulty
  // out of the rings, and their chips hand their whole buffer to the chip next to the
  // core: that chip adds it (2 words per word) and copies it back (1), 3 S more with
  // one order, 1.5 S with order both (each order has half the buffer). Order both must
  // not trim (that HBM paces every ring through the chip), so no chip may reach
  // fault-free + S; with one order the trimming stays (that chip is near 3 S above).
  const uint32_t S = 64 * 1000;
  const NetworkConfig ff = machine(8, 8, false);
  AlgoParams p;
  p.words = S;
  p.chunk_words = S;
  auto busiest_hbm = [&](const NetworkConfig& n) {
    uint64_t m = 0;
    for (uint64_t w : load_of(n, p).chip_hbm_words) m = std::max(m, w);
    return m;
  };
  p.algo = Algo::TwoD;
  p.order = Order::Both;
  const uint64_t ff_hbm = busiest_hbm(ff);
  EXPECT_LT(ff_hbm, 5 * (uint64_t)S);
  p.algo = Algo::FT2D;
  for (Coord b : {Coord{0, 0}, Coord{3, 0}, Coord{0, 3}, Coord{3, 3}}) {
    NetworkConfig n = ff;
    n.faults.boards = {b};
    p.order = Order::Both;
    EXPECT_LT(busiest_hbm(n), ff_hbm + S) << b.x << "," << b.y;
    p.order = Order::XY;
    const uint64_t hbm = busiest_hbm(n);
    EXPECT_GT(hbm, ff_hbm + 2 * (uint64_t)S) << b.x << "," << b.y;
  }
}

TEST(CollectiveLoad, Ft2dOrderBothHandsTheOtherSegmentsPiecesToLateParents) {
  // 32x8 mesh, board 6,2 out (x 12-13, y 4-5), order both. Row 4 is cut into x 0-11
  // and x 14-31; its leaves hand over into row 3, whose alternate-node ring is 0, 2,
  // ..., 30, 31, 29, ..., 1. A piece owned by x 14..31 enters through the leaves under
  // the last eight parents of x 0-11 to pass it on before its owner: walking back from
  // any such owner the ring meets 10, 8, 6, 4, 2, 0 and then 1, 3 (from 14: 12, 10, ...,
  // 0, 1, 3; from 15: 17, ..., 31, 30, ..., 14, 12, 10, ..., 0, 1, 3). So the leaves at
  // x 5, 7, 9 and 11 hand over only the piece of the parent above them (S/60 of the
  // xy half: 30 owning columns), while the other eight also carry an eighth of the
  // other segment's 18 pieces (0.3 S / 8 each). Spread over all twelve leaves, or over
  // four, some of those eight would carry no more than x 5.
  const uint32_t S = 60 * 1024;
  NetworkConfig n = machine(32, 8, false);
  n.faults.boards = {Coord{6, 2}};
  AlgoParams p;
  p.algo = Algo::FT2D;
  p.order = Order::Both;
  p.words = S;
  p.chunk_words = S;
  p.slices = 1;
  const Schedule s = check_sums(n, p);
  FaultSet f(n);
  const Topology2D& t = f.topology();
  uint64_t handed[12] = {};
  for (const Xfer& x : s.xfers)
    if (s.phases[x.phase].step == Step::Fold && x.reduce && t.y(x.src) == 4 &&
        t.y(x.dst) == 3 && t.x(x.src) <= 11)
      handed[t.x(x.src)] += x.len;
  for (int x : {0, 1, 2, 3, 4, 6, 8, 10})
    for (int y : {5, 7, 9, 11}) EXPECT_GT(handed[x], 2 * handed[y]) << x << " vs " << y;
  for (int y : {5, 7, 9, 11}) EXPECT_GT(handed[y], 0u) << y;
}

TEST(CollectiveLoad, Ft2dWithoutFaultsIsTwoD) {
  for (bool torus : {true, false})
    for (Order o : {Order::XY, Order::YX, Order::Both}) {
      const NetworkConfig n = machine(6, 5, torus);
      AlgoParams p;
      p.words = 600;
      p.chunk_words = 7;
      p.order = o;
      p.algo = Algo::TwoD;
      const ScheduleLoad a = load_of(n, p);
      p.algo = Algo::FT2D;
      const ScheduleLoad b = load_of(n, p);
      EXPECT_EQ(a.link_words, b.link_words) << torus << " " << to_string(o);
    }
}

TEST(CollectiveScale, ThirtyTwoSquaredTorusBuildsItsMillionsOfTransfers) {
  // 2d on a 32x32 torus, 1.6M words, chunks of 1024 (the size ScheduleBuilder must
  // handle). Hand count: X phase, 32 rows x 2 directions x 32 shards of 25000 words
  // (25 chunks) x 31 steps, reduce-scatter and all-gather; Y phase, 32 columns x 2
  // pieces (one per X direction) x 2 directions x 32 shards of 390-391 words (1 chunk)
  // x 31 steps, both phases.
  NetworkConfig n = machine(32, 32, true);
  FaultSet f(n);
  AlgoParams p;
  p.algo = Algo::TwoD;
  p.words = 1600000;
  p.chunk_words = 1024;
  p.slices = 1;  // the hand count is for the whole buffer as one slice
  const Schedule s = build_schedule(f, p);
  const size_t x = 32ull * 2 * 32 * 25 * 31 * 2, y = 32ull * 2 * 2 * 32 * 1 * 31 * 2;
  EXPECT_EQ(s.xfers.size(), x + y);
  // Pipelined rings need few dependencies per transfer.
  EXPECT_LE(s.send_succ_idx.size(), 2 * s.xfers.size());
  EXPECT_LE(s.apply_succ_idx.size(), 2 * s.xfers.size());
  const DepLists sd = dependencies(s, true);
  for (size_t i = 0; i + 1 < sd.off.size(); i += 9973) {
    for (uint32_t k = sd.off[i]; k < sd.off[i + 1]; ++k) {
      EXPECT_LT(sd.idx[k], i);
      const Xfer& d = s.xfers[sd.idx[k]];
      EXPECT_EQ(d.dst, s.xfers[i].src);
    }
  }
}

TEST(CollectiveSums, RandomFaultSets) {
  // 150 random machines (1..9 x 1..9, mesh or torus) with random dead chips, maybe a
  // board, and random one- or two-way link faults; every connected one must give exact
  // sums for ft2d, shrink and snake in every order (seeded, so deterministic).
  std::mt19937 rng(20261130);
  int checked = 0;
  for (int it = 0; it < 150; ++it) {
    NetworkConfig n = machine(1 + rng() % 9, 1 + rng() % 9, rng() % 2);
    const int nc = rng() % 4, nl = rng() % 4;
    for (int i = 0; i < nc; ++i)
      n.faults.chips.push_back(Coord{(int)(rng() % n.width), (int)(rng() % n.height)});
    if (rng() % 3 == 0)
      n.faults.boards.push_back(
          Coord{(int)(rng() % ((n.width + 1) / 2)), (int)(rng() % ((n.height + 1) / 2))});
    for (int i = 0; i < nl; ++i) {
      LinkFault l;
      l.at = Coord{(int)(rng() % n.width), (int)(rng() % n.height)};
      l.dir = (Port)(rng() % 4);
      l.both = rng() % 2;
      const Topology2D t(n);
      if (t.neighbour(t.id(l.at.x, l.at.y), l.dir) >= 0) n.faults.links.push_back(l);
    }
    try {
      FaultSet f(n);
      if (!f.connectivity().empty()) continue;
    } catch (const ConfigError&) {
      continue;  // every chip dead
    }
    for (Algo a : {Algo::FT2D, Algo::Shrink, Algo::Snake})
      for (Order o : {Order::XY, Order::YX, Order::Both}) {
        if (a == Algo::Snake && o != Order::XY) continue;
        AlgoParams p;
        p.algo = a;
        p.order = o;
        p.words = 1 + rng() % 120;
        p.chunk_words = 1 + rng() % 16;
        check_sums(n, p);
        ++checked;
      }
  }
  EXPECT_GT(checked, 500);
}
