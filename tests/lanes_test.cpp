// Local lanes (NetworkConfig::local_ports): a router with several local ports ejects
// and injects several flits per cycle, one lane per ICI direction.
//
// Hand-worked case on a 3x2 mesh: chips (0,0) and (2,0) each send K packets of S flits
// to (1,0), which receives from West and East. With one lane, the single local output
// carries at most one flit per cycle, so the last tail cannot be ejected before
// 2*K*S cycles after the first flit arrives. With four lanes, West arrivals eject on lane
// 3 and East arrivals on lane 1, so both streams run at one flit per cycle each: the run
// takes about K*S cycles plus the zero-load latency.
#include "tests/sim_util.h"

using namespace fm;
using namespace fm::test;

namespace {

constexpr int kPackets = 50, kSize = 8;

nlohmann::json converge(int lanes) {
  return in_child([lanes] {
    NetworkConfig n;
    n.width = 3;
    n.height = 2;
    n.local_ports = lanes;
    Network net("net", n);
    const std::string e = net.load_tables(build_dor_tables(n));
    if (!e.empty()) throw std::runtime_error(e);
    const ChipId d = net.topology().id(1, 0);
    std::vector<ScriptedSource::Packet> pk;
    for (int i = 0; i < kPackets; ++i) pk.push_back({1, d, kSize});
    ScriptedSource a(pk), b(pk);
    attach_source(net, net.topology().id(0, 0), &a);
    attach_source(net, net.topology().id(2, 0), &b);
    nlohmann::json r;
    Cycle done = 0;
    for (Cycle t = 0; t < 5000 && !done; t += 1) {
      sc_core::sc_start(net.clock().period());
      if (net.ni(d).stats().packets_delivered == 2 * kPackets) done = net.clock().now();
    }
    r["done"] = done;
    r["violations"] = net.counters().violations;
    r["ejected"] = net.counters().flits_ejected;
    return r;
  });
}

}  // namespace

TEST(Lanes, OneLaneSerialisesEjectionFourLanesDoNot) {
  const auto one = converge(1), four = converge(4);
  const long flits = kPackets * kSize;
  ASSERT_EQ(one.value("ejected", 0L), 2 * flits);
  ASSERT_EQ(four.value("ejected", 0L), 2 * flits);
  EXPECT_EQ(one.value("violations", 1), 0);
  EXPECT_EQ(four.value("violations", 1), 0);
  // One lane: the local output is the bottleneck, 2 * flits cycles at least.
  EXPECT_GE(one.value("done", 0L), 2 * flits);
  // Four lanes: both streams at full rate; 1 hop zero-load latency is a few cycles.
  EXPECT_LE(four.value("done", 0L), flits + 20);
}

TEST(Lanes, LaneOfDealsDirectionsOut) {
  EXPECT_EQ(lane_of(kNorth, 4), 0);
  EXPECT_EQ(lane_of(kWest, 4), 3);
  EXPECT_EQ(lane_of(kLocal + 2, 4), 2);
  EXPECT_EQ(lane_of(kWest, 2), 1);
  EXPECT_EQ(lane_of(kEast, 1), 0);
}
