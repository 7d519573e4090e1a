// The lockstep co-simulation (tb/cosim.h): the model Router and the verilated RTL router
// under the same closed-loop random traffic must agree on every flit and credit, for
// every configuration of the matrix V {1, 2, 4} x B {2, 4, 8} x P {1, 2, 3, 4} with
// round-robin pointers and a few with iSLIP (one ctest test each, named after it, all on
// the one run-time configurable RTL build); with an injected RTL bug (FM_BUG_RR_STUCK,
// FM_BUG_LOSE_CREDIT) the comparison must stop with a report naming a cycle and a port.
// The `faultmesh cosim` command's exit codes and JSON are checked too.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "tb/cosim.h"
#include "tests/sim_util.h"

using namespace fm;

namespace {

nlohmann::json cosim_in_child(const RtlConfig& c, uint32_t seed, uint64_t cycles) {
  return test::in_child([&] {
    CosimParams p;
    p.seed = seed;
    p.cycles = cycles;
    return to_json(run_cosim(c, p));
  });
}

struct Outcome {
  int code;
  std::string out, err;
};

// Runs the faultmesh binary with args; captures exit code, stdout and stderr.
Outcome run_cli(const std::string& args, const std::string& tag) {
  const std::string o = testing::TempDir() + "cosim_" + tag + ".out";
  const std::string e = testing::TempDir() + "cosim_" + tag + ".err";
  const int st = std::system((std::string(FAULTMESH_BIN) + " " + args + " >" + o + " 2>" + e).c_str());
  auto slurp = [](const std::string& p) {
    std::ifstream f(p);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  };
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, slurp(o), slurp(e)};
}

// One point of the matrix; printed as the test name suffix, e.g. V2_B4_P3_rr.
RtlConfig matrix_point(int v, int b, int p, bool islip) {
  RtlConfig c;
  c.vcs = v;
  c.buf = b;
  c.pipeline = p;
  c.islip = islip;
  return c;
}
std::vector<RtlConfig> round_robin_matrix() {
  std::vector<RtlConfig> m;
  for (int v : {1, 2, 4})
    for (int b : {2, 4, 8})
      for (int p : {1, 2, 3, 4}) m.push_back(matrix_point(v, b, p, false));
  return m;
}
std::string point_name(const testing::TestParamInfo<RtlConfig>& i) {
  std::string n = i.param.name();
  for (char& ch : n)
    if (ch == ' ') ch = '_';
  return n;
}

}  // namespace

namespace fm {
// gtest prints a failing parameter with its name.
void PrintTo(const RtlConfig& c, std::ostream* os) { *os << c.name(); }
}  // namespace fm

class CosimMatrix : public testing::TestWithParam<RtlConfig> {};

// 20,000 cycles of closed-loop random traffic, a seed per configuration: every flit and
// credit agrees, and the traffic is heavy enough to mean something (phases alternate
// load and stalls; the thresholds hold for the smallest configuration, V1 B2).
TEST_P(CosimMatrix, AgreesOnEveryFlitAndCredit) {
  const RtlConfig& c = GetParam();
  const uint32_t seed = (uint32_t)(c.vcs * 1000 + c.buf * 100 + c.pipeline * 10 + c.islip);
  const nlohmann::json r = cosim_in_child(c, seed, 20000);
  ASSERT_TRUE(r.contains("agreed")) << c.name() << ": run failed";
  EXPECT_TRUE(r.at("agreed").get<bool>()) << c.name() << " seed " << seed << ": " << r.dump();
  EXPECT_EQ(r.at("cycles").get<uint64_t>(), 20000u) << c.name();
  EXPECT_GT(r.at("flits_compared").get<uint64_t>(), 10000u) << c.name() << " seed " << seed;
  EXPECT_GT(r.at("credits_compared").get<uint64_t>(), 10000u) << c.name() << " seed " << seed;
}

INSTANTIATE_TEST_SUITE_P(RoundRobin, CosimMatrix, testing::ValuesIn(round_robin_matrix()), point_name);
// iSLIP moves the pointers differently: the corners of the matrix and the default.
INSTANTIATE_TEST_SUITE_P(Islip, CosimMatrix,
                         testing::Values(matrix_point(1, 2, 1, true), matrix_point(2, 4, 3, true),
                                         matrix_point(4, 2, 1, true), matrix_point(4, 8, 4, true),
                                         matrix_point(2, 8, 2, true)),
                         point_name);

TEST(Cosim, InjectedBugsAreCaughtWithCycleAndPort) {
  const uint32_t seed = 7;
  const RtlConfig good = matrix_point(2, 4, 3, false);
  const nlohmann::json g = cosim_in_child(good, seed, 20000);
  ASSERT_TRUE(g.contains("agreed"));
  EXPECT_TRUE(g.at("agreed").get<bool>()) << g.dump();
  for (const RtlConfig& c : rtl_bug_configs()) {
    const nlohmann::json r = cosim_in_child(c, seed, 20000);
    ASSERT_TRUE(r.contains("agreed")) << c.name() << ": run failed";
    EXPECT_FALSE(r.at("agreed").get<bool>()) << c.name() << " was not caught";
    EXPECT_GE(r.at("mismatch_cycle").get<int64_t>(), 0) << c.name();
    EXPECT_GE(r.at("mismatch_port").get<int>(), 0) << c.name();
    const std::string m = r.at("mismatch").is_string() ? r.at("mismatch").get<std::string>() : "";
    EXPECT_NE(m.find("cycle "), std::string::npos) << m;
    EXPECT_NE(m.find("port "), std::string::npos) << m;
    std::cout << "[ bug      ] " << c.name() << ": " << m << "\n";
  }
}

TEST(Cosim, CommandExitCodesAndJson) {
  // Each out-of-range value: exit 2, one line naming the option, its value and the range.
  const RtlBounds b = rtl_bounds();
  const std::string vmax = std::to_string(b.max_vcs), bmax = std::to_string(b.max_buf),
                    pmax = std::to_string(b.max_pipeline);
  for (const auto& [args, want] : std::vector<std::pair<std::string, std::string>>{
           {"--vcs " + std::to_string(b.max_vcs + 1), "1.." + vmax},
           {"--vcs 0", "1.." + vmax},
           {"--buf " + std::to_string(b.max_buf + 1), "1.." + bmax},
           {"--buf 0", "1.." + bmax},
           {"--pipeline " + std::to_string(b.max_pipeline + 1), "1.." + pmax},
           {"--pipeline 0", "1.." + pmax}}) {
    const Outcome bad = run_cli("cosim " + args, "bad");
    EXPECT_EQ(bad.code, 2) << args;
    EXPECT_NE(bad.err.find(args + ":"), std::string::npos) << args << ": " << bad.err;
    EXPECT_NE(bad.err.find(want), std::string::npos) << args << ": " << bad.err;
    EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
  }
  EXPECT_EQ(run_cli("cosim --cycles 0", "zero").code, 2);
  EXPECT_EQ(run_cli("cosim --arbiter fifo", "arb").code, 2);

  // A configuration outside the test matrix runs too (V3, B1, iSLIP).
  const std::string json = testing::TempDir() + "cosim_ok.json";
  const Outcome ok = run_cli(
      "cosim --vcs 3 --buf 1 --pipeline 2 --arbiter islip --cycles 3000 --seed 7 --json " + json, "ok");
  EXPECT_EQ(ok.code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("V3 B1 P2 islip"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("flits"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("credits"), std::string::npos) << ok.out;
  std::ifstream f(json);
  const nlohmann::json j = nlohmann::json::parse(f);
  EXPECT_TRUE(j.at("agreed").get<bool>());
  EXPECT_EQ(j.at("cycles").get<uint64_t>(), 3000u);
  EXPECT_GT(j.at("flits_compared").get<uint64_t>(), 0u);
  EXPECT_GT(j.at("credits_compared").get<uint64_t>(), 0u);
  EXPECT_TRUE(j.at("mismatch").is_null());
}

// Illegal input (a credit the sink does not owe) is not a disagreement to hide: the run
// stops and reports what both routers said about it.
TEST(Cosim, IllegalCreditStopsTheRunWithBothReports) {
  const RtlConfig good = matrix_point(2, 4, 3, false);
  const nlohmann::json r = test::in_child([&] {
    CosimParams p;
    p.seed = 3;
    p.cycles = 2000;
    p.illegal_credit_at = 0;  // output N VC 0 holds all B credits then: overflow
    return to_json(run_cosim(good, p));
  });
  ASSERT_TRUE(r.contains("agreed"));
  EXPECT_FALSE(r.at("agreed").get<bool>());
  EXPECT_EQ(r.at("mismatch_cycle").get<int64_t>(), 1);
  const std::string m = r.at("mismatch").get<std::string>();
  EXPECT_NE(m.find("credit count above buffer depth on output N vc 0"), std::string::npos) << m;
  EXPECT_NE(m.find("RTL assertion failed"), std::string::npos) << m;
}
