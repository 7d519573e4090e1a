// The mesh-level RTL check (docs/cosim.md, "Mesh-level check"): a network built from
// verilated RTL routers (tb/rtl_mesh_router.h, through Network's router factory) and the
// same network built from the SystemC model Router run the same traffic, or the same
// allreduce, and must eject every flit at the same node in the same cycle and finish in
// the same cycle. With a bug-injection RTL build the same comparison must fail.
//
// Each run is its own child process (SystemC elaborates once per process) and returns
// its ejection log: one (cycle, chip, src, packet, seq) per ejected flit, sorted, so the
// order in which SystemC runs the NIs inside a cycle does not matter.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <tuple>

#include "models/collective/algorithms.h"
#include "tb/allreduce_run.h"
#include "Vfm_router_fm_pkg.h"
#include "tb/rtl_mesh_router.h"
#include "tb/rtl_ports.h"
#include "tests/sim_util.h"

using namespace fm;

namespace {

// Which routers a network is built from: the SystemC model, or an RTL build.
struct Routers {
  bool rtl = false;
  std::string bug;  // with rtl: "" the correct build, else its bug define
  std::string name() const { return !rtl ? "SystemC" : bug.empty() ? "RTL" : "RTL " + bug; }
};
const Routers kModel{false, ""}, kRtl{true, ""};

// The log as sorted (cycle, chip, src, packet, seq) rows.
nlohmann::json log_json(std::vector<EjectRecord> log) {
  auto key = [](const EjectRecord& e) { return std::make_tuple(e.at, e.chip, e.src, e.packet, e.seq); };
  std::sort(log.begin(), log.end(), [&](const EjectRecord& a, const EjectRecord& b) { return key(a) < key(b); });
  nlohmann::json j = nlohmann::json::array();
  for (const EjectRecord& e : log) j.push_back({e.at, e.chip, e.src, e.packet, e.seq});
  return j;
}

RunOptions options_for(const Routers& r, const NetworkConfig& n, std::vector<EjectRecord>* log) {
  RunOptions o;
  o.eject_log = log;
  if (r.rtl) o.router_factory = rtl_router_factory(n, r.bug);
  return o;
}

// Traffic run in a child: its result JSON plus "log" and "seconds" (wall time).
nlohmann::json traffic_on(const Config& c, const Routers& r) {
  return test::in_child([c, r] {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<EjectRecord> log;
    nlohmann::json j = nlohmann::json::parse(result_json(run_traffic(c, options_for(r, c.net, &log))).dump());
    j["log"] = log_json(log);
    j["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return j;
  });
}
// Allreduce run in a child: its result JSON plus "log", "end_cycle" and "seconds".
nlohmann::json allreduce_on(const Config& c, const Routers& r) {
  return test::in_child([c, r] {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<EjectRecord> log;
    const AllreduceResult res = run_allreduce(c, options_for(r, c.net, &log));
    nlohmann::json j = nlohmann::json::parse(allreduce_json(res).dump());
    j["end_cycle"] = res.end_cycle;
    j["log"] = log_json(log);
    j["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return j;
  });
}

// "" when the two logs are identical, else the first differing row of each.
std::string first_difference(const nlohmann::json& a, const nlohmann::json& b) {
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i])
      return "row " + std::to_string(i) + " [cycle, chip, src, packet, seq]: " + a[i].dump() + " vs " +
             b[i].dump();
  if (a.size() != b.size())
    return "lengths " + std::to_string(a.size()) + " vs " + std::to_string(b.size());
  return "";
}

Config traffic_config(Topology t, int vcs, int buf, int pipeline, Arbiter arb, double rate = 0.35) {
  Config c = test::small_config(4, 4, t);
  c.net.vcs = vcs;
  c.net.buf = buf;
  c.net.pipeline = pipeline;
  c.net.arbiter = arb;
  c.traffic.pattern = Pattern::Uniform;
  c.traffic.rate = rate;
  c.traffic.packet_min = 1;
  c.traffic.packet_max = 6;
  c.run.warmup = 500;
  c.run.cycles = 2500;
  c.run.seed = 11;
  return c;
}

void print_figures(const std::string& what, const nlohmann::json& m, const nlohmann::json& r,
                   const std::string& cycles_key) {
  std::cout << "[ mesh     ] " << what << ": " << m.at("log").size() << " ejected flits compared, "
            << cycles_key << " " << r.value(cycles_key, 0UL) << "; SystemC " << m.value("seconds", 0.0)
            << " s, RTL " << r.value("seconds", 0.0) << " s\n";
}

struct TrafficCase {
  std::string name;
  Config cfg;
  double min_latency;  // the model's average packet latency must exceed it (contention)
};
// gtest (and ctest's test list) print a case by its name.
void PrintTo(const TrafficCase& c, std::ostream* os) { *os << c.name; }
class RtlMeshTraffic : public testing::TestWithParam<TrafficCase> {};

}  // namespace

// Uniform random traffic near saturation, warm-up, window and drain: every flit ejected
// at the same chip in the same cycle, and the run ends in the same cycle.
TEST_P(RtlMeshTraffic, SameDeliveryCycles) {
  const Config& c = GetParam().cfg;
  const nlohmann::json m = traffic_on(c, kModel);
  const nlohmann::json r = traffic_on(c, kRtl);
  ASSERT_TRUE(m.contains("log") && r.contains("log")) << "a run failed";
  EXPECT_TRUE(m.value("ok", false)) << m.value("message", std::string());
  EXPECT_TRUE(r.value("ok", false)) << r.value("message", std::string());
  EXPECT_EQ(r.value("violations", 1UL), 0u);
  EXPECT_EQ(m.at("cycles"), r.at("cycles"));
  EXPECT_EQ(m.at("flits_ejected"), r.at("flits_ejected"));
  EXPECT_EQ(m.at("flits_switched"), r.at("flits_switched"));
  EXPECT_EQ(m.at("avg_packet_latency"), r.at("avg_packet_latency"));
  EXPECT_EQ(m.at("vc_occupancy_mean"), r.at("vc_occupancy_mean"));
  EXPECT_EQ(first_difference(m.at("log"), r.at("log")), "");
  // The traffic means something: thousands of packets, contended (latency well above
  // the zero-load value).
  EXPECT_GT(m.at("log").size(), 15000u);
  EXPECT_GT(m.value("avg_packet_latency", 0.0), GetParam().min_latency);
  print_figures(GetParam().name, m, r, "cycles");
}

INSTANTIATE_TEST_SUITE_P(
    Mesh4x4, RtlMeshTraffic,
    // Loads near or past saturation, so every arbiter is contended: the average packet
    // latencies are about 45, 38, 158 and 36 cycles against zero-load values of about 15,
    // 7, 18 and 16 (seed 11).
    testing::Values(
        TrafficCase{"mesh_V2_B4_P3_rr", traffic_config(Topology::Mesh, 2, 4, 3, Arbiter::RoundRobin, 0.55), 30},
        // The torus dateline tables (VC classes) are just data to the RTL's table.
        TrafficCase{"torus_V4_B2_P1_islip", traffic_config(Topology::Torus, 4, 2, 1, Arbiter::ISlip, 0.55), 25},
        // One VC, past saturation (accepted 0.43 of 0.45 offered).
        TrafficCase{"mesh_V1_B8_P4_rr", traffic_config(Topology::Mesh, 1, 8, 4, Arbiter::RoundRobin, 0.45), 60},
        // Longer links and credit paths than the router-level co-simulation drives.
        TrafficCase{"mesh_V3_B8_P2_rr_link3_credit2", [] {
                      Config c = traffic_config(Topology::Mesh, 3, 8, 2, Arbiter::RoundRobin, 0.6);
                      c.net.link_latency = 3;
                      c.net.credit_latency = 2;
                      return c;
                    }(), 25}),
    [](const testing::TestParamInfo<TrafficCase>& i) { return i.param.name; });

namespace {
Config allreduce_config(coll::Algo a) {
  Config c = test::small_config(4, 4, Topology::Mesh);
  c.net.local_ports = 1;  // the RTL router has one local port (the command's default is 4)
  c.net.vcs = 2;
  c.net.buf = 4;
  c.net.pipeline = 3;
  c.coll.algo = a;
  c.coll.bytes = 64 * 600;
  c.coll.chunk_bytes = 4096;
  c.coll.verify = Verify::On;
  c.chip.packet_words = 8;
  return c;
}
}  // namespace

// The same allreduce on both networks: 2d fault-free and ft2d around a dead chip. Same
// completion cycle, same ejection cycle of every flit, sums verified on both.
TEST(RtlMesh, AllreduceSameCompletionAndDeliveryCycles) {
  Config ft = allreduce_config(coll::Algo::FT2D);
  ft.net.faults.chips.push_back({1, 2});
  for (const Config& c : {allreduce_config(coll::Algo::TwoD), ft}) {
    const std::string what = std::string(coll::to_string(c.coll.algo)) + " with " +
                             std::to_string(c.net.faults.chips.size()) + " dead chip(s)";
    const nlohmann::json m = allreduce_on(c, kModel);
    const nlohmann::json r = allreduce_on(c, kRtl);
    ASSERT_TRUE(m.contains("log") && r.contains("log")) << what << ": a run failed";
    EXPECT_TRUE(m.value("ok", false)) << what << ": " << m.value("message", std::string());
    EXPECT_TRUE(r.value("ok", false)) << what << ": " << r.value("message", std::string());
    EXPECT_EQ(m.at("verified"), nlohmann::json(true)) << what;
    EXPECT_EQ(r.at("verified"), nlohmann::json(true)) << what;
    EXPECT_EQ(m.at("end_cycle"), r.at("end_cycle")) << what;
    EXPECT_EQ(m.at("cycles"), r.at("cycles")) << what;
    EXPECT_EQ(m.at("phases"), r.at("phases")) << what;
    EXPECT_EQ(first_difference(m.at("log"), r.at("log")), "") << what;
    EXPECT_GT(m.at("log").size(), 5000u) << what;
    print_figures("allreduce " + what, m, r, "cycles");
  }
}

// The check can fail: the same traffic on networks of the bug-injection RTL builds
// (switch-allocation output pointers stuck; the first credit on input N lost) gives
// different ejection cycles or does not finish.
TEST(RtlMesh, BugInjectionBuildsAreCaught) {
  const Config c = traffic_config(Topology::Mesh, 2, 4, 3, Arbiter::RoundRobin, 0.55);
  const nlohmann::json m = traffic_on(c, kModel);
  ASSERT_TRUE(m.contains("log"));
  ASSERT_TRUE(m.value("ok", false)) << m.value("message", std::string());
  for (const std::string bug : {"FM_BUG_RR_STUCK", "FM_BUG_LOSE_CREDIT"}) {
    const nlohmann::json r = traffic_on(c, Routers{true, bug});
    ASSERT_TRUE(r.contains("log")) << bug << ": the run failed";
    const std::string diff = first_difference(m.at("log"), r.at("log"));
    const bool finished_same = r.value("ok", false) && m.at("cycles") == r.at("cycles");
    EXPECT_TRUE(!diff.empty() || !finished_same) << bug << " was not caught";
    std::cout << "[ bug      ] " << bug << ": " << (r.value("ok", false) ? "finished" : r.value("stop_reason", std::string()))
              << " after " << r.value("cycles", 0UL) << " cycles (SystemC " << m.value("cycles", 0UL)
              << "); first difference: " << diff << "\n";
  }
}

// A configuration the RTL routers cannot build is refused up front, naming the option.
TEST(RtlMesh, RefusesWhatTheRtlCannotBuild) {
  NetworkConfig n;
  n.width = n.height = 4;
  n.local_ports = 4;
  EXPECT_NE(rtl_mesh_config_error(n).find("--local-ports 4"), std::string::npos);
  n.local_ports = 1;
  EXPECT_EQ(rtl_mesh_config_error(n), "");
  n.vcs = 3;
  EXPECT_NE(rtl_mesh_config_error(n, "FM_BUG_RR_STUCK").find("--vcs 3"), std::string::npos);
  n.vcs = 2;
  n.width = n.height = 9;  // 81 chips, the RTL table holds 64
  EXPECT_NE(rtl_mesh_config_error(n).find("--mesh 9x9"), std::string::npos);
  EXPECT_THROW(rtl_router_factory(n), std::invalid_argument);
}

// Chip ids: the model's are 32 bits, the RTL's kChipIdBits (fm_pkg::ChipW). A network
// with more chips than that many bits can number is refused with a message that says so
// (before the table-size check), and a flit whose chip id does not fit is refused by the
// packer instead of being cut to another chip's id.
TEST(RtlContract, ChipIdsThatDoNotFitAreRefused) {
  static_assert(kChipIdBits == (int)Vfm_router_fm_pkg::ChipW, "the declared width is the RTL's");
  NetworkConfig n;
  n.width = 256;
  n.height = 257;  // 65,792 chips: ids up to 65,791 need 17 bits
  const std::string e = rtl_mesh_config_error(n);
  EXPECT_NE(e.find("chip ids are 16 bits"), std::string::npos) << e;
  EXPECT_THROW(rtl_router_factory(n), std::invalid_argument);
  n.height = 256;  // 65,536 chips: the ids fit, the table does not
  EXPECT_EQ(rtl_mesh_config_error(n).find("chip ids"), std::string::npos);
  EXPECT_NE(rtl_mesh_config_error(n).find("route table holds"), std::string::npos);
  Flit f;
  f.src = 65535;
  f.dst = 65535;
  EXPECT_EQ(rtl::unpack_flit(rtl::pack_flit(f)).src, 65535u);
  f.dst = 65536;
  EXPECT_THROW(rtl::pack_flit(f), std::out_of_range);
  f.dst = 1;
  f.vc = 16;
  EXPECT_THROW(rtl::pack_flit(f), std::out_of_range);
}

// pack_flit / unpack_flit are inverse on every field at its extremes, and the word
// layout is the documented {packet, src, dst} / {seq, kind, vc}.
TEST(RtlContract, FlitPackingRoundTrips) {
  Flit f;
  f.payload = 0xfedcba9876543210ull;
  f.packet = 0xdeadbeef;
  f.src = 0xabcd;
  f.dst = 0x1234;
  f.seq = 0xffff;
  f.kind = kHeadTail;
  f.vc = 15;
  const rtl::FlitWords w = rtl::pack_flit(f);
  EXPECT_EQ(w.meta, 0xdeadbeefabcd1234ull);
  EXPECT_EQ(w.ctl, 0xffffu << 6 | 3u << 4 | 15u);
  const Flit g = rtl::unpack_flit(w);
  EXPECT_EQ(rtl::to_json(g), rtl::to_json(f));
}

// The RTL pins' configuration has NetworkConfig's defaults (there is no second set), and
// those are fm_pkg's parameter defaults.
TEST(RtlContract, OneSetOfRouterDefaults) {
  const NetworkConfig n;
  const rtl::RouterCfg c;
  EXPECT_EQ(c.vcs, n.vcs);
  EXPECT_EQ(c.buf, n.buf);
  EXPECT_EQ(c.pipeline, n.pipeline);
  EXPECT_EQ(c.islip, n.arbiter == Arbiter::ISlip);
  EXPECT_EQ(n.vcs, (int)Vfm_router_fm_pkg::DefaultNumVcs);
  EXPECT_EQ(n.buf, (int)Vfm_router_fm_pkg::DefaultBufDepth);
  EXPECT_EQ(n.pipeline, (int)Vfm_router_fm_pkg::DefaultPipeline);
}

// `faultmesh traffic --rtl-routers` gives the SystemC run's results (every statistic but
// the host timings and the link utilization, overall and per window of the run's page,
// which the model books when a flit wins switch allocation and the RTL adapter when it
// departs, one cycle later with P >= 2, so window edges differ); `allreduce
// --rtl-routers` with the command's 4 local lanes is refused as bad input, naming the
// option.
TEST(RtlMesh, CommandLineSwitch) {
  const std::string args =
      " traffic --mesh 4x4 --vcs 2 --buf 4 --pipeline 3 --rate 0.55 --packet 1-6 --warmup 500"
      " --cycles 2500 --seed 11 -q --json ";
  const std::string sc = testing::TempDir() + "rtl_mesh_sc.json", rtl = testing::TempDir() + "rtl_mesh_rtl.json";
  ASSERT_EQ(std::system((std::string(FAULTMESH_BIN) + args + sc).c_str()), 0);
  ASSERT_EQ(std::system((std::string(FAULTMESH_BIN) + args + rtl + " --rtl-routers").c_str()), 0);
  auto load = [](const std::string& p) {
    std::ifstream f(p);
    return nlohmann::json::parse(f);
  };
  nlohmann::json a = load(sc), b = load(rtl);
  EXPECT_EQ(b.at("config").at("rtl-routers"), true);
  for (const char* k : {"wall_seconds", "router_cycles_per_second", "simulator", "config", "link_util_mean",
                        "link_util_max", "link_utilization", "link_windows"}) {
    a.erase(k);
    b.erase(k);
  }
  EXPECT_EQ(a, b);
  EXPECT_EQ(std::system((std::string(FAULTMESH_BIN) + " allreduce --mesh 4x4 --rtl-routers -q 2>/dev/null").c_str()),
            2 << 8);
}
