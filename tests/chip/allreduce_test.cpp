// The allreduce testbench end to end: every algorithm's sums are exact on small meshes
// and tori (with and without holes), the ring's time matches the analytic bandwidth
// formula, bus bandwidth respects the links, and the flits add up.
#include "models/collective/algorithms.h"
#include "tb/allreduce_run.h"
#include "tests/sim_util.h"

using namespace fm;
using namespace fm::test;

namespace {

Config ar_config(int w, int h, Topology t, coll::Algo a, uint64_t bytes) {
  Config c = small_config(w, h, t);
  c.net.local_ports = 4;
  c.coll.algo = a;
  c.coll.bytes = bytes;
  c.coll.chunk_bytes = 4096;
  c.coll.verify = Verify::On;
  return c;
}

nlohmann::json run(const Config& c) {
  return in_child([c] { return nlohmann::json::parse(allreduce_json(run_allreduce(c)).dump()); });
}

std::string describe(const Config& c) {
  return std::to_string(c.net.width) + "x" + std::to_string(c.net.height) + " " +
         to_string(c.net.topology) + " " + coll::to_string(c.coll.algo) + " " +
         std::to_string(c.net.faults.boards.size()) + " failed board(s)";
}

void expect_exact(const Config& c) {
  const auto j = run(c);
  EXPECT_TRUE(j.value("ok", false)) << describe(c) << ": " << j.value("message", std::string());
  EXPECT_EQ(j.value("verified", nlohmann::json()), nlohmann::json(true)) << describe(c);
  EXPECT_EQ(j.value("flits_injected", 0UL), j.value("flits_ejected", 1UL)) << describe(c);
}

const coll::Algo kAll[] = {coll::Algo::Ring, coll::Algo::BiRing, coll::Algo::AltRing,
                           coll::Algo::TwoD, coll::Algo::FT2D, coll::Algo::Shrink,
                           coll::Algo::Snake};

struct Shape {
  int w, h;
  Topology t;
};
class SumsFaultFree : public ::testing::TestWithParam<Shape> {};

}  // namespace

// Every algorithm on fault-free shapes: odd, even, non-square, mesh and torus. The
// buffer (1000 words + a part word) is not a multiple of any ring size, so shards are
// uneven.
TEST_P(SumsFaultFree, EveryAlgorithmExact) {
  const Shape s = GetParam();
  for (coll::Algo a : kAll) expect_exact(ar_config(s.w, s.h, s.t, a, 64 * 1000 + 8));
}
INSTANTIATE_TEST_SUITE_P(Shapes, SumsFaultFree,
                         ::testing::Values(Shape{2, 2, Topology::Mesh}, Shape{3, 3, Topology::Mesh},
                                           Shape{5, 4, Topology::Mesh}, Shape{3, 5, Topology::Torus},
                                           Shape{4, 4, Topology::Torus}, Shape{7, 7, Topology::Mesh},
                                           Shape{8, 8, Topology::Torus}, Shape{6, 2, Topology::Mesh}),
                         [](const auto& i) {
                           return std::to_string(i.param.w) + "x" + std::to_string(i.param.h) +
                                  (i.param.t == Topology::Torus ? "torus" : "mesh");
                         });

// Every single-board hole on an 8x8 mesh and torus: the fault-tolerant algorithm and
// both baselines give every live chip (every participant for shrink) the exact sum.
class SumsEveryHole : public ::testing::TestWithParam<int> {};
TEST_P(SumsEveryHole, Ft2dShrinkSnakeExact) {
  const int b = GetParam();
  for (Topology t : {Topology::Mesh, Topology::Torus})
    for (coll::Algo a : {coll::Algo::FT2D, coll::Algo::Shrink, coll::Algo::Snake}) {
      Config c = ar_config(8, 8, t, a, 64 * 600);
      c.net.faults.boards.push_back({b % 4, b / 4});
      expect_exact(c);
    }
}
INSTANTIATE_TEST_SUITE_P(Boards, SumsEveryHole, ::testing::Range(0, 16));

TEST(Allreduce, TwoHolesAndALinkFault) {
  Config c = ar_config(8, 8, Topology::Mesh, coll::Algo::FT2D, 64 * 500);
  c.net.faults.boards = {{0, 0}, {2, 2}};
  expect_exact(c);
  Config l = ar_config(6, 6, Topology::Torus, coll::Algo::FT2D, 64 * 500);
  l.net.faults.links.push_back({{2, 3}, kEast, true});
  expect_exact(l);
}

TEST(Allreduce, TwoDRefusesHolesPointingToFt2d) {
  Config c = ar_config(4, 4, Topology::Mesh, coll::Algo::TwoD, 64 * 100);
  c.net.faults.chips.push_back({1, 1});
  const auto r = run_isolated([c] {
    try {
      run_allreduce(c);
    } catch (const ConfigError& e) {
      return std::string("refused: ") + e.what();
    }
    return std::string("ran");
  });
  EXPECT_NE(r.output.find("refused"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("ft2d"), std::string::npos) << r.output;
}

// Ring allreduce on a 4x2 mesh: a Hamiltonian ring of n = 8 chips with 1-hop steps.
// Bandwidth term: each chip sends 2(n-1)/n * S words over its one ring link, one flit per
// cycle, plus one header flit per `packet_words` data flits:
//   T_bw = 2(n-1)/n * W * (D+1)/D cycles, W = words per chip, D = packet_words.
// Latency term: the schedule is a pipeline of 2(n-1) steps; with C chunks per shard the
// last chunk leaves a step at most one chunk time plus a hop latency after the one
// before it, so T <= T_bw + 2(n-1) * (c (D+1)/D + h), with c words per chunk and h a hop
// latency of at most 12 cycles (zero-load: 1 + 2(P-1) + L + 1 + HBM and reduce time of a
// packet at 9 and 15 words per cycle, see docs/router-microarchitecture.md and docs/chip.md).
TEST(Allreduce, RingTimeMatchesBandwidthFormula) {
  const int n = 8, D = 32;
  const uint64_t words = 8 * 1024, chunk = 64;  // 512 KiB, 4 KiB chunks
  Config c = ar_config(4, 2, Topology::Mesh, coll::Algo::Ring, words * 64);
  c.chip.packet_words = D;
  const auto j = run(c);
  ASSERT_TRUE(j.value("ok", false)) << j.dump();
  const double t_bw = 2.0 * (n - 1) / n * words * (D + 1) / D;
  const double t_max = t_bw + 2.0 * (n - 1) * (chunk * (D + 1.0) / D + 12);
  const double t = j.value("cycles", 0.0);
  EXPECT_GE(t, t_bw);
  EXPECT_LE(t, t_max) << "bandwidth term " << t_bw;
  // A unidirectional ring uses one outgoing link per chip: bus bandwidth <= link bandwidth.
  EXPECT_LE(j.value("busbw_GBps", 1e9), c.net.link_gbps);
  EXPECT_GT(j.value("busbw_GBps", 0.0), 0.85 * c.net.link_gbps);
}

// No algorithm's bus bandwidth exceeds what a chip's four links can carry, and no run
// beats either lower bound. Both bounds count data words only, and a packet carries at
// most D = packet_words data flits behind its one header flit, so a link moves data at
// most D/(D+1) of its cycles: no run comes closer to a bound than D/(D+1) (32/33 here;
// the rings reach 0.966-0.968). The algorithm bound is the busiest link here (HBM and
// reduction are faster), which the ceiling's argument needs.
TEST(Allreduce, BusBandwidthAndBoundsAreRespected) {
  for (Topology t : {Topology::Mesh, Topology::Torus})
    for (coll::Algo a : kAll) {
      Config c = ar_config(4, 4, t, a, 64 * 2048);
      c.coll.verify = Verify::Off;
      const auto j = run(c);
      ASSERT_TRUE(j.value("ok", false)) << describe(c);
      EXPECT_LE(j.value("busbw_GBps", 1e9), 4 * c.net.link_gbps) << describe(c);
      const double ceiling = c.chip.packet_words / (c.chip.packet_words + 1.0);
      EXPECT_EQ(j.value("bound_cycles", 0.0), j.value("max_link_words", 1.0)) << describe(c);
      EXPECT_LE(j.value("bound_ratio", 2.0), ceiling * (1 + 1e-12)) << describe(c);
      EXPECT_LE(j.value("topo_bound_ratio", 2.0), ceiling * (1 + 1e-12)) << describe(c);
      EXPECT_EQ(j.value("verified", nlohmann::json(1)), nlohmann::json(nullptr));
    }
}

namespace {

// Chain lines at flit level: 2d, ft2d around a board and shrink on meshes with --line
// chain give exact sums, never beat their link-load bound, and on a mesh 2d with chains
// is faster than with alternate-node rings, whose busiest link carries 2 (W-1)/W times
// as much (6 chips per row: 5/3 x).
TEST(Allreduce, ChainLinesAreExactAndFasterOnAMesh) {
  Config ring = ar_config(6, 4, Topology::Mesh, coll::Algo::TwoD, 256 * 1024);
  Config chain = ring;
  chain.coll.line = coll::Line::Chain;
  const auto a = run(ring), b = run(chain);
  for (const auto* j : {&a, &b}) {
    EXPECT_TRUE(j->value("ok", false)) << j->value("message", std::string());
    EXPECT_EQ(j->value("verified", nlohmann::json()), nlohmann::json(true));
    EXPECT_LE(j->value("bound_ratio", 2.0), 1.0);
  }
  EXPECT_EQ(b["config"]["line"], "chain");
  // Slices round each shard, so the ratio is within a few words of 5/3.
  EXPECT_NEAR(a["max_link_words"].get<double>() / b["max_link_words"].get<double>(), 5.0 / 3.0, 0.005);
  EXPECT_LT(b.value("cycles", 0) * 1.2, a.value("cycles", 0)) << a["cycles"] << " " << b["cycles"];
  for (coll::Algo algo : {coll::Algo::FT2D, coll::Algo::Shrink}) {
    Config c = ar_config(8, 8, Topology::Mesh, algo, 128 * 1024);
    c.net.faults.boards = {Coord{1, 2}};
    c.coll.line = coll::Line::Auto;
    expect_exact(c);
  }
}

}  // namespace

// Long links: a snake ring on an 8x8 mesh is 126 dependent steps, each paying at least
// the 1,000-cycle link latency, so it takes more than 126,000 cycles however few flits
// it moves. The automatic cycle limit must leave room for that latency chain (it once
// allowed only 100,000 cycles beyond the flit term, and such runs stopped at the limit).
TEST(Allreduce, LongLinksFinishWithinTheAutomaticCycleLimit) {
  Config c = ar_config(8, 8, Topology::Mesh, coll::Algo::Snake, 4096);
  c.net.link_latency = c.net.credit_latency = 1000;
  c.net.buf = 2008;  // covers the 2,004-cycle credit loop for one VC
  const auto j = run(c);
  ASSERT_TRUE(j.value("ok", false)) << j.value("message", std::string());
  EXPECT_EQ(j.value("verified", nlohmann::json()), nlohmann::json(true));
  const double steps = 2.0 * (64 - 1);
  EXPECT_GE(j.value("cycles", 0.0), steps * c.net.link_latency);
  EXPECT_LE(j.value("cycles", 0.0), j.value("max_cycles_limit", 0.0));
}
