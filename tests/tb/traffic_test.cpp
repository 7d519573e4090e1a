// Whole-network properties under synthetic traffic: conservation and ordering under
// every pattern up to and past saturation, the saturation throughput of uniform
// traffic on an 8x8 mesh, determinism, and the guards.
#include "models/routing/dor.h"
#include "tests/sim_util.h"

using namespace fm;
using namespace fm::test;

namespace {

Config traffic(int w, int h, Topology t, Pattern p, double rate, Cycle cycles) {
  Config c = small_config(w, h, t);
  c.traffic.pattern = p;
  c.traffic.rate = rate;
  c.run.warmup = 500;
  c.run.cycles = cycles;
  if (p == Pattern::Hotspot) c.traffic.hotspots = {{1, 1}, {w - 2, h - 3}};
  return c;
}

void expect_conserved(const nlohmann::json& j, const std::string& what) {
  EXPECT_TRUE(j.value("ok", false)) << what << ": " << j.value("message", std::string());
  EXPECT_EQ(j.value("violations", 1), 0) << what;
  EXPECT_EQ(j.value("flits_injected", 0), j.value("flits_ejected", -1)) << what;
  EXPECT_EQ(j.value("packets_created", 0), j.value("packets_delivered", -1)) << what;
  EXPECT_GT(j.value("flits_injected", 0), 0) << what;
}

}  // namespace

// Every pattern, below and well past saturation, on a mesh and a torus: every flit is
// ejected exactly once, in order, at its destination (the NI and router monitors count
// any breach as a violation), and the network drains without the watchdog firing.
TEST(Conservation, EveryPatternBelowAndPastSaturation) {
  for (Topology topo : {Topology::Mesh, Topology::Torus})
    for (int p = 0; p <= (int)Pattern::Hotspot; ++p)
      for (double rate : {0.05, 0.9}) {
        Config c = traffic(8, 8, topo, (Pattern)p, rate, 3000);
        c.traffic.packet_min = 1;
        c.traffic.packet_max = 6;
        const std::string what = std::string(to_string(topo)) + " " + to_string((Pattern)p) +
                                 " rate " + std::to_string(rate);
        expect_conserved(traffic_in_child(c), what);
      }
}

// Long runs with small buffers and long packets (packets longer than a buffer) and
// every pipeline depth and arbiter: the stress that would expose a credit or VC bug.
TEST(Conservation, SmallBuffersLongPacketsAllPipelines) {
  for (int pipe = 1; pipe <= 4; ++pipe)
    for (Arbiter a : {Arbiter::RoundRobin, Arbiter::ISlip}) {
      Config c = traffic(6, 5, pipe % 2 ? Topology::Torus : Topology::Mesh, Pattern::Uniform, 0.6, 20000);
      c.net.buf = 2;
      c.net.vcs = 3;
      c.net.pipeline = pipe;
      c.net.arbiter = a;
      c.net.link_latency = 2;
      c.net.credit_latency = 3;
      c.traffic.packet_min = 1;
      c.traffic.packet_max = 9;
      expect_conserved(traffic_in_child(c), "pipeline " + std::to_string(pipe));
    }
}

// Uniform random on an 8x8 mesh with XY routing: the bisection bound is 0.5 flits/node/
// cycle (each of the 8 rows crosses the bisection in both directions; half the traffic
// crosses it), and a 2 VC x 8 flit router gets at least 0.33 of it. Offered load 0.8 is
// far past saturation, so the accepted rate is the saturation throughput.
TEST(Saturation, UniformOn8x8MeshIsBelowBisectionBound) {
  Config c = traffic(8, 8, Topology::Mesh, Pattern::Uniform, 0.8, 10000);
  c.run.warmup = 3000;
  c.net.vcs = 2;
  c.net.buf = 8;
  const auto j = traffic_in_child(c);
  expect_conserved(j, "saturation");
  const double acc = j.value("accepted_flit_rate", 0.0);
  EXPECT_LT(acc, 0.5);
  EXPECT_GE(acc, 0.33);
  EXPECT_GT(j.value("offered_flit_rate", 0.0), acc);  // it really is saturated
}

// Same seed, byte-identical JSON once the host-timing fields are removed; another seed
// gives different results.
TEST(Determinism, SameSeedSameBytesOtherSeedDiffers) {
  auto strip = [](nlohmann::json j) {
    j.erase("wall_seconds");
    j.erase("router_cycles_per_second");
    j.erase("simulator");
    return j.dump();
  };
  Config c = traffic(8, 8, Topology::Torus, Pattern::Uniform, 0.3, 4000);
  const std::string a = strip(traffic_in_child(c));
  const std::string b = strip(traffic_in_child(c));
  EXPECT_EQ(a, b);
  c.run.seed = 2;
  EXPECT_NE(a, strip(traffic_in_child(c)));
}

// Torus rings without dateline classes (every VC allowed) deadlock under heavy
// tornado traffic; the watchdog stops the run and says where flits are stuck.
TEST(Watchdog, FiresOnDeadlockAndReportsWhere) {
  Config c = traffic(8, 8, Topology::Torus, Pattern::Tornado, 1.0, 20000);
  c.net.buf = 2;
  c.traffic.packet_min = c.traffic.packet_max = 8;
  c.run.watchdog = 2000;
  const auto j = in_child([c] {
    auto tables = build_dor_tables(c.net);
    for (auto& t : tables)
      for (int d = 0; d < t.size(); ++d) {
        RouteEntry e = t.lookup(d);
        e.vc_mask = all_vcs_mask(c.net.vcs);
        t.set(d, e);
      }
    RunOptions o;
    o.tables = &tables;
    o.check_routes = false;  // the checker would refuse these tables before the run
    return nlohmann::json(result_json(run_traffic(c, o)));
  });
  EXPECT_FALSE(j.value("ok", true));
  EXPECT_EQ(j.value("stop_reason", std::string()), "watchdog");
  const std::string m = j.value("message", std::string());
  EXPECT_NE(m.find("no flit moved"), std::string::npos) << m;
  EXPECT_NE(m.find("router"), std::string::npos) << m;
}

// The drain guard: a drain limit too short to deliver a saturated backlog stops the
// run with a clear reason instead of running on.
TEST(Guards, MaxDrainStopsAndSaysSo) {
  Config c = traffic(8, 8, Topology::Mesh, Pattern::Uniform, 0.9, 5000);
  c.run.max_drain = 10;
  const auto j = traffic_in_child(c);
  EXPECT_FALSE(j.value("ok", true));
  EXPECT_EQ(j.value("stop_reason", std::string()), "max-drain");
  EXPECT_NE(j.value("flits_injected", 0), j.value("flits_ejected", 0));
}

// Statistics that can be checked by hand: with a single source the measured packets,
// hop count and link use follow from the pattern.
TEST(Statistics, SingleSourceBitComplement) {
  Config c = traffic(4, 4, Topology::Mesh, Pattern::BitComplement, 0.2, 5000);
  c.traffic.sources = {{0, 0}};
  const auto j = traffic_in_child(c);
  expect_conserved(j, "single source");
  EXPECT_DOUBLE_EQ(j.value("avg_hops", 0.0), 6.0);  // (0,0) -> (3,3)
  // Only the 6 links of the XY path carry flits: 3 East on row 0, 3 North on column 3.
  int used = 0;
  for (const auto& l : j["link_utilization"]) {
    if (l["utilization"].get<double>() == 0) continue;
    ++used;
    const bool east_row0 = l["port"] == "E" && l["y"] == 0;
    const bool north_col3 = l["port"] == "N" && l["x"] == 3;
    EXPECT_TRUE(east_row0 || north_col3) << l.dump();
  }
  EXPECT_EQ(used, 6);
  // The only source's offered load is 0.2; spread over 16 nodes.
  EXPECT_NEAR(j.value("offered_flit_rate", 0.0), 0.2 / 16, 0.2 / 16 * 0.15);
}
