// Local lanes (NetworkConfig::local_ports): a router with several local ports ejects
// and injects several flits per cycle, one lane per ICI direction.
//
// Hand-worked case on a 3x2 mesh: chips (0,0) and (2,0) each send K packets of S flits
// to (1,0), which receives from West and East. With one lane, the single local output
// carries at most one flit per cycle, so the last tail cannot be ejected before
// 2*K*S cycles after the first flit arrives. With four lanes, West arrivals eject on lane
// 3 and East arrivals on lane 1, so both streams run at one flit per cycle each: the run
// takes about K*S cycles plus the zero-load latency.
#include <map>
#include <random>

#include "models/noc/ni.h"
#include "models/routing/dor.h"
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

namespace {

// Packets queued at chip 0's NI for chip 1 on a 2x1 mesh, all on one lane: `prio[i]`
// (NetworkInterface::kFifo for none) and `ready[i]`; returns the packet numbers (the
// order they were queued in) in the order chip 1 ejected their tails.
nlohmann::json eject_order(std::vector<uint64_t> prio, std::vector<Cycle> ready) {
  return in_child([prio, ready] {
    NetworkConfig n;
    n.width = 2;
    n.height = 1;
    Network net("net", n);
    const std::string e = net.load_tables(build_dor_tables(n));
    if (!e.empty()) throw std::runtime_error(e);
    std::vector<EjectRecord> log;
    net.ni(1).set_eject_log(&log);
    sc_core::sc_start(net.clock().period());
    for (size_t i = 0; i < prio.size(); ++i) net.ni(0).send(1, 3, i, ready[i], prio[i]);
    sc_core::sc_start(net.clock().period() * 200.0);
    nlohmann::json order = nlohmann::json::array();
    for (const EjectRecord& r : log)
      if (r.seq == 2) order.push_back(r.packet);
    return order;
  });
}

}  // namespace

TEST(Lanes, AFreeLaneStartsTheReadyPacketOfLowestPriority) {
  const uint64_t F = NetworkInterface::kFifo;
  // Hand-worked: all ready at cycle 5; priorities 3, 1, 2 leave as packets 1, 2, 0.
  EXPECT_EQ(eject_order({3, 1, 2}, {5, 5, 5}), nlohmann::json({1, 2, 0}));
  // Without priorities, the order they were queued in.
  EXPECT_EQ(eject_order({F, F, F}, {5, 5, 5}), nlohmann::json({0, 1, 2}));
  // Priority only chooses among ready packets: packet 1 (priority 0) is ready at cycle
  // 60, after packet 0 (ready at 5, 3 flits) has left, and packet 2 (ready at 5) goes
  // while packet 1 is not yet ready.
  EXPECT_EQ(eject_order({5, 0, 9}, {5, 60, 5}), nlohmann::json({0, 2, 1}));
  // Two ready together with a third arriving while the first is injected: it overtakes
  // the second when its priority is lower (the lane chooses when it is free).
  EXPECT_EQ(eject_order({1, 7, 2}, {5, 5, 6}), nlohmann::json({0, 2, 1}));
}

// The NI's table of packets in flight against a std::map: random inserts, lookups and
// erases of ids drawn from a window wider than the table, so ids collide, probe runs
// wrap past the last slot and erasure must shift entries back (a wrong shift loses an
// entry that find() then misses).
TEST(PacketTable, AgreesWithAMapUnderCollisionsAndWrapAround) {
  struct Rec {
    uint32_t packet = 0;
    uint64_t value = 0;
  };
  PacketTable<Rec> t;
  std::map<uint32_t, uint64_t> ref;
  std::mt19937 rng(7);
  for (int step = 0; step < 200000; ++step) {
    // Ids from a few residue classes mod 64 and 128: heavy clustering in a small table.
    const uint32_t id = (uint32_t)(rng() % 40) * 64 + (uint32_t)(rng() % 3) + (step % 2 ? 125 : 0);
    Rec* r = t.find(id);
    ASSERT_EQ(r != nullptr, ref.count(id) == 1) << "step " << step << " id " << id;
    if (r) {
      ASSERT_EQ(r->value, ref[id]);
      if (rng() % 2) {
        t.erase(r);
        ref.erase(id);
      }
    } else if (ref.size() < 100) {
      t.insert(id).value = step;
      ref[id] = step;
    }
    ASSERT_EQ(t.size(), ref.size());
  }
  for (const auto& [id, v] : ref) {
    Rec* r = t.find(id);
    ASSERT_NE(r, nullptr) << id;
    EXPECT_EQ(r->value, v);
  }
}
