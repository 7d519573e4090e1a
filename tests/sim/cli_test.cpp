// The command line as a user meets it: bad input gets one clear line naming the option
// and the allowed values with exit code 2 and no output file; good runs write JSON and
// CSV with the documented keys; a config file is read and the command line wins.
#include <gtest/gtest.h>

#include <algorithm>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/cli_util.h"

using namespace fm::test;

namespace {


}  // namespace

TEST(Cli, BadInputNamesTheOptionAndExits2) {
  struct Bad {
    std::string args, must_say;
  };
  const std::vector<Bad> bad = {
      {"traffic --bogus 1", "bogus"},
      {"traffic --vcs 0", "--vcs 0: allowed 1..16"},
      {"traffic --vcs 17", "--vcs 17: allowed 1..16"},
      {"traffic --vcs two", "--vcs"},
      {"traffic --buf 0", "--buf 0: allowed 1..4096"},
      {"traffic --pipeline 5", "--pipeline 5: allowed 1..4"},
      {"traffic --topology torus --mesh 1x8", "--mesh 1x8"},
      {"traffic --topology torus --vcs 1", "a torus needs at least 2 VCs"},
      {"traffic --topology ring", "--topology ring: allowed mesh | torus"},
      {"traffic --mesh 16", "--mesh 16: expected WxH"},
      {"traffic --rate 1.5", "--rate 1.5: allowed 0..1"},
      {"traffic --rate -0.1", "--rate -0.1: allowed 0..1"},
      {"traffic --pattern foo", "--pattern foo: allowed uniform | transpose"},
      {"traffic --pattern hotspot", "needs at least one --hotspot"},
      {"traffic --pattern hotspot --hotspot 9,9", "--hotspot 9,9: outside the mesh"},
      {"traffic --pattern transpose --mesh 4x8", "needs a square mesh"},
      {"traffic --pattern bitrev --mesh 3x3", "power-of-two"},
      {"traffic --packet 0", "--packet 0: allowed N or A-B"},
      {"traffic --packet 5-2", "--packet 5-2"},
      {"traffic --cycles 0", "--cycles 0"},
      {"traffic --cycles -5", "--cycles -5"},
      {"traffic --link-latency 0", "--link-latency 0: allowed 1..1000"},
      {"traffic --arbiter fair", "--arbiter fair: allowed rr | islip"},
      {"traffic --config /nonexistent/faultmesh.ini", "--config /nonexistent/faultmesh.ini: cannot read"},
      {"traffic --json /nonexistent/dir/out.json", "--json /nonexistent/dir/out.json: directory"},
      {"warp", "unknown command 'warp'"},
      {"latency-sweep --rates 0.5:0.1:0.1", "--rates 0.5:0.1:0.1"},
      {"bench --repeat 0", "--repeat 0: allowed 1..100"},
      {"bench --case bogus", "--case bogus: allowed traffic | allreduce | report | mesh8x8_uniform_0.1"},
      {"routes --fail-chip 9,9", "--fail-chip 9,9: outside the mesh"},
      {"routes --fail-chip 9", "--fail-chip 9: expected x,y"},
      {"routes --fail-board 4,0", "--fail-board 4,0: outside the board grid"},
      {"routes --fail-link 7,0:E", "--fail-link 7,0:E: there is no link E of (7,0)"},
      {"routes --fail-link 3,3:Q", "--fail-link 3,3:Q: expected x,y:D"},
      {"routes --fault-file /nonexistent/faults.txt", "--fault-file /nonexistent/faults.txt: cannot read"},
      {"routes --routing foo", "--routing foo: allowed xy | dor | yx | lash | fring | auto"},
      {"traffic --fail-chip 0,1 --fail-chip 1,0", "partitions the mesh: 1 live chip(s)"},
      {"traffic --routing xy --fail-board 1,1", "block dimension-order routing"},
      {"traffic --pattern hotspot --hotspot 2,2 --fail-board 1,1", "--hotspot 2,2: that chip has failed"},
      // Boost's own placeholders in the user's text once made the message loop forever.
      {"traffic --vcs %value%", "the argument ('%25value%25') for option '--vcs' is invalid"},
      {"traffic --%canonical_option% 1", "%25canonical_option%25"},
  };
  for (const Bad& b : bad) {
    const Outcome r = run(b.args);
    EXPECT_EQ(r.code, 2) << b.args << "\n" << r.err;
    EXPECT_NE(r.err.find(b.must_say), std::string::npos) << b.args << "\nstderr: " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << b.args << "\n" << r.err;
  }
}

TEST(Cli, BadInputWritesNoResultFile) {
  const std::string j = tmpdir() + "/bad.json";
  const Outcome r = run("traffic --vcs 0 --json " + j);
  EXPECT_EQ(r.code, 2);
  EXPECT_FALSE(exists(j));
}

TEST(Cli, HelpExplainsEveryOption) {
  const Outcome r = run("traffic --help");
  EXPECT_EQ(r.code, 0);
  for (const char* o : {"--mesh", "--topology", "--vcs", "--buf", "--pipeline", "--link-latency",
                        "--credit-latency", "--pattern", "--rate", "--packet", "--hotspot",
                        "--cycles", "--warmup", "--seed", "--json", "--csv", "--config", "--watchdog"})
    EXPECT_NE(r.out.find(o), std::string::npos) << o;
  EXPECT_NE(r.out.find("(=2)"), std::string::npos) << "defaults are shown";
}

TEST(Cli, PublicSpellingWritesJsonAndCsv) {
  const std::string j = tmpdir() + "/out.json", c = tmpdir() + "/out.csv";
  const Outcome r = run(
      "traffic --mesh 8x8 --topology mesh --vcs 2 --buf 8 --pipeline 3 --link-latency 1 "
      "--pattern uniform --rate 0.1 --packet 4 --cycles 3000 --warmup 500 --seed 1 --json " +
      j + " --csv " + c);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("accepted"), std::string::npos);
  const auto js = nlohmann::json::parse(slurp(j));
  for (const char* k : {"avg_packet_latency", "p99_packet_latency", "accepted_flit_rate",
                        "offered_flit_rate", "flits_injected", "flits_ejected", "cycles",
                        "wall_seconds", "router_cycles_per_second", "config"})
    EXPECT_TRUE(js.contains(k)) << k;
  EXPECT_EQ(js["config"]["mesh"], "8x8");
  EXPECT_EQ(js["config"]["vcs"], 2);
  const std::string csv = slurp(c);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 2);
  EXPECT_NE(csv.find("avg_packet_latency"), std::string::npos);
  EXPECT_NE(csv.find("config.mesh"), std::string::npos);
}

TEST(Cli, ConfigFileIsReadAndCommandLineWins) {
  const std::string ini = tmpdir() + "/run.ini", j = tmpdir() + "/cfg.json";
  std::ofstream(ini) << "# a comment\nmesh = 4x6\nvcs = 4\nbuf = 3\npattern = tornado\n";
  const Outcome r = run("traffic --config " + ini + " --vcs 3 --cycles 1000 -q --json " + j);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto js = nlohmann::json::parse(slurp(j));
  EXPECT_EQ(js["config"]["mesh"], "4x6");
  EXPECT_EQ(js["config"]["buf"], 3);
  EXPECT_EQ(js["config"]["vcs"], 3);
  EXPECT_EQ(js["config"]["pattern"], "tornado");
  std::ofstream(ini) << "vcs = 0\n";
  const Outcome bad = run("traffic --config " + ini);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--vcs 0"), std::string::npos) << bad.err;
  std::ofstream(ini) << "colour = blue\n";
  const Outcome unknown = run("traffic --config " + ini);
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("colour"), std::string::npos) << unknown.err;
}

TEST(Cli, RoutesPublicSpelling) {
  const std::string j = tmpdir() + "/routes.json", f = tmpdir() + "/faults.txt";
  std::ofstream(f) << "# extra faults\nchip 10,20\nlink 12,12:N oneway\n";
  const Outcome r = run(
      "routes --mesh 16x32 --topology mesh --vcs 2 --routing lash --fail-board 3,5 "
      "--fail-chip 7,9 --fail-link 4,4:E --fault-file " + f + " --json " + j);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("verdict         OK"), std::string::npos) << r.out;
  const auto js = nlohmann::json::parse(slurp(j));
  for (const char* k : {"connected", "deadlock_free", "avg_path_stretch", "max_path_length", "vcs_used"})
    EXPECT_TRUE(js.contains(k)) << k;
  EXPECT_TRUE(js["connected"].get<bool>());
  EXPECT_TRUE(js["deadlock_free"].get<bool>());
  EXPECT_EQ(js["live_chips"], 512 - 4 - 1 - 1);
  EXPECT_GE(js["avg_path_stretch"].get<double>(), 1.0);
  EXPECT_EQ(js["config"]["fail-link"][0], "4,4:E");
}

TEST(Cli, TrafficAroundAHoleReportsItsRoutes) {
  const std::string j = tmpdir() + "/hole.json";
  const Outcome r = run("traffic --mesh 8x8 --fail-board 1,1 --rate 0.2 --cycles 2000 -q --json " + j);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto js = nlohmann::json::parse(slurp(j));
  EXPECT_EQ(js["routing"]["scheme"], "auto (lash)");
  EXPECT_TRUE(js["routing"]["deadlock_free"].get<bool>());
  EXPECT_EQ(js["flits_injected"], js["flits_ejected"]);
  EXPECT_EQ(js["config"]["fail-board"][0], "1,1");
}

TEST(Cli, FailedRunExits3) {
  const Outcome r = run("traffic --mesh 8x8 --rate 0.9 --cycles 3000 --max-drain 5 -q");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("max-drain"), std::string::npos) << r.err;
}

TEST(Cli, LatencySweepFindsSaturation) {
  const std::string j = tmpdir() + "/sweep.json";
  const Outcome r = run("latency-sweep --mesh 4x4 --rates 0.1,0.3,0.5,0.7,0.9 --cycles 3000 --warmup 500 -q --json " + j);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto js = nlohmann::json::parse(slurp(j));
  ASSERT_TRUE(js["summary"]["saturation_rate"].is_number()) << js["summary"].dump();
  const double sat = js["summary"]["saturation_rate"].get<double>();
  const double thr = js["summary"]["saturation_throughput"].get<double>();
  // Bisection bound of uniform traffic on a k x k mesh: the k^2/2 chips of one half send
  // half their traffic (rate r each) across k links per direction, so k^2 r / 4 <= k,
  // r <= 4/k = 1.0 for k = 4. Saturation sets in below that and far above 0.1 (near zero
  // load); no point can accept more than the first saturated rate offered.
  EXPECT_GT(sat, 0.1);
  EXPECT_LT(thr, 1.0);
  EXPECT_LE(thr, sat + 1e-9);
  EXPECT_GE(js["points"].size(), 2u);
}

// --verify alone, as users type it, means on (it took the next word as its value:
// --verify --json F was "--verify --json: allowed on | off | auto"); the explicit
// values keep working, after a space or '='.
TEST(Cli, VerifyAloneMeansOn) {
  struct Case {
    std::string verify, want;
    bool checked;  // auto checks this small run too
  };
  const std::vector<Case> cases = {{"--verify", "on", true},
                                   {"--verify off", "off", false},
                                   {"--verify=off", "off", false},
                                   {"--verify on", "on", true},
                                   {"--verify auto", "auto", true}};
  for (const Case& c : cases) {
    const std::string j = tmpdir() + "/verify.json";
    std::remove(j.c_str());
    // The switch before another option, and last on the line.
    for (const std::string& args : {"allreduce --mesh 4x4 --bytes 64KiB " + c.verify + " -q --json " + j,
                                    "allreduce --mesh 4x4 --bytes 64KiB -q --json " + j + " " + c.verify}) {
      const Outcome r = run(args);
      ASSERT_EQ(r.code, 0) << args << "\n" << r.err;
      const auto js = nlohmann::json::parse(slurp(j));
      EXPECT_EQ(js["config"]["verify"], c.want) << args;
      EXPECT_EQ(js["verified"].is_boolean(), c.checked) << args;
    }
  }
  const Outcome bad = run("allreduce --mesh 4x4 --bytes 64KiB --verify yes");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--verify yes: allowed on | off | auto"), std::string::npos) << bad.err;
}

// The compute phase before the allreduce is no stall: the watchdog fired in it for any
// --compute-us longer than --watchdog cycles (10,000 cycles = 6.4 us at the defaults).
TEST(Cli, ComputeLongerThanTheWatchdogRuns) {
  const std::string j = tmpdir() + "/compute.json";
  const Outcome r = run("allreduce --mesh 4x4 --bytes 64KiB --compute-us 20 -q --json " + j);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto js = nlohmann::json::parse(slurp(j));
  EXPECT_TRUE(js["ok"].get<bool>());
  EXPECT_GT(js["cycles"].get<double>(), 0);
  EXPECT_GT(js["step_time_us"].get<double>(), 20);
}
