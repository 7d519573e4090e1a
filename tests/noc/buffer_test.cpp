// The router's VC buffers as storage (models/noc/router.h, InVc::cap): a ring starts at
// 8 slots and doubles, up to the buffer depth, when a flit arrives to a full one. That
// must change nothing that is simulated, only the memory behind it.
#include "models/noc/network.h"
#include "models/noc/router.h"
#include "tb/memory.h"
#include "tests/sim_util.h"

using namespace fm;
using namespace fm::test;

// Past saturation with deep, non-power-of-two buffers (8 -> 16 -> 20, and 8 -> 16 -> 32
// -> 37: both ways Router::grow unwraps a ring) every flit arrives exactly once and in
// order, and the results are byte for byte those of rings that start at full depth and
// never grow (KernelOptions::first_ring_slots = buf).
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
        Config cf = c;
        cf.run.kernel.first_ring_slots = first;
        nlohmann::json j = result_json(run_traffic(cf));
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

// The first ring size is the kernel option's, clamped to 1..buf, the same in every VC;
// the memory estimate charges that many slots per VC.
TEST(VcBuffers, FirstRingSizeFollowsTheKernelOption) {
  Config c = small_config(4, 4, Topology::Mesh);
  c.net.buf = 20;
  c.net.vcs = 2;
  const nlohmann::json j = in_child([c] {
    nlohmann::json out = nlohmann::json::array();
    Network net("net", c.net);
    for (int slots : {-1, 8, 16, 64}) {
      KernelOptions k;
      if (slots >= 0) {
        k.first_ring_slots = slots;
        net.set_kernel_options(k);
      }
      std::vector<int> seen;
      for (ChipId r = 0; r < (ChipId)net.chips(); ++r)
        for (int p = 0; p < kNumNetPorts; ++p)
          for (int v = 0; v < c.net.vcs; ++v) seen.push_back(net.router(r).ring_slots((Port)p, v));
      std::sort(seen.begin(), seen.end());
      out.push_back({seen.front(), seen.back()});
    }
    return out;
  });
  // Built: the default 8; then 8, 16, and 64 clamped to the buffer's 20.
  EXPECT_EQ(j.dump(), "[[8,8],[8,8],[16,16],[20,20]]");
  KernelOptions k;
  k.first_ring_slots = 16;
  // 16 chips, each VC 8 slots more than the default's.
  EXPECT_DOUBLE_EQ((double)(estimate_network_memory(c.net, k).total() - estimate_network_memory(c.net).total()),
                   16.0 * 8 * c.net.vcs * (4 + c.net.local_ports) * (double)Router::entry_bytes());
}

