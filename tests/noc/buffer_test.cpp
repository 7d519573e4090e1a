// The router's VC buffers as storage (models/noc/router.h, InVc::cap): a ring starts at
// 8 slots and doubles, up to the buffer depth, when a flit arrives to a full one. That
// must change nothing that is simulated, only the memory behind it.
#include "models/noc/router.h"
#include "tests/sim_util.h"

using namespace fm;
using namespace fm::test;

// Past saturation with deep, non-power-of-two buffers (8 -> 16 -> 20, and 8 -> 16 -> 32
// -> 37: both ways Router::grow unwraps a ring) every flit arrives exactly once and in
// order, and the results are byte for byte those of rings that start at full depth and
// never grow (Router::first_ring_slots = buf).
TEST(VcBuffers, GrowingRingsGiveTheResultsOfFullOnes) {
  for (int buf : {20, 37}) {
    Config c = small_config(6, 6, Topology::Torus);
    c.traffic.pattern = Pattern::Transpose;
    c.traffic.rate = 0.9;
    c.traffic.packet_min = 1;
    c.traffic.packet_max = 12;
    c.run.warmup = 500;
    c.run.cycles = 4000;
    c.net.buf = buf;
    c.net.vcs = 2;
    c.net.link_latency = 3;
    auto run_with = [&](int first) {
      return in_child([c, first] {
        Router::first_ring_slots = first;
        nlohmann::json j = result_json(run_traffic(c));
        j.erase("simulator");
        j.erase("wall_seconds");
        j.erase("router_cycles_per_second");
        return j;
      });
    };
    const nlohmann::json growing = run_with(8), full = run_with(buf);
    const std::string what = "buf " + std::to_string(buf);
    EXPECT_TRUE(growing.value("ok", false)) << what << ": " << growing.value("message", std::string());
    EXPECT_EQ(growing.value("violations", 1), 0) << what;
    EXPECT_GT(growing.value("flits_injected", 0), 0) << what;
    EXPECT_EQ(growing.value("flits_injected", 0), growing.value("flits_ejected", -1)) << what;
    EXPECT_EQ(growing.dump(), full.dump()) << what;
  }
}
