// The model versions' guard (models/model_version.h): the cycle counts of a few small
// allreduces, one per part of the model they exercise, recorded with the schedule
// fingerprint they were simulated with and the model versions that made them.
//
// The run store (docs/results.md) reuses a stored result while its schedule fingerprint
// and model version match. That is only sound if every change that alters a cycle for
// an unchanged schedule bumps kModelVersion: this test fails when such a change forgets
// to. When a schedule generator changes a row's fingerprint, the row cannot tell a
// model change from the schedule's, so it fails too, asking for the row to be refreshed.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/model_version.h"
#include "tb/util/subprocess.h"
#include "tests/cli_util.h"

namespace fm {
namespace {

// The version the rows below were measured with. A bump re-measures every row
// (`faultmesh allreduce ARGS --json r.json`: cycles and schedule_fingerprint).
constexpr int kGoldenVersion = 1;
// The recovery model's version the rows with --fail-at were measured with.
// (3 and 4 changed no row: the resumed row's plan fits in one strip and pays.)
constexpr int kGoldenRecoveryVersion = 4;

struct Golden {
  const char* what;
  const char* args;
  const char* fingerprint;
  uint64_t cycles;
};

const Golden kRows[] = {
    {"2d, one order, ring lines, 1-cycle links", "--mesh 4x4 --algo 2d --order xy --line ring --link-latency 1 --buf 8 --bytes 64KiB", "fd722bbaeaface2c", 1758},
    {"ft2d around a board on a torus, both orders, long links",
     "--mesh 8x8 --topology torus --algo ft2d --order both --line auto --fail-board 1,1 --link-latency 20 "
     "--credit-latency 20 --buf 48 --bytes 256KiB",
     "248ff6b3fae3ab90", 4447},
    {"snake around a chip, 4 VCs of 4 flits", "--mesh 8x8 --algo snake --fail-chip 3,3 --bytes 128KiB --vcs 4 --buf 4 --link-latency 1",
     "f0ca59de8606bcfd", 6466},
    {"a chip failing mid-run, resumed (fault controller, recovery planner)",
     "--mesh 8x8 --algo 2d --order both --line chain --link-latency 1 --buf 8 --bytes 256KiB --fail-at 2000:chip:2,2 "
     "--restart-algo ft2d --recovery resume --verify on",
     "d0981e0ccc7c309a+607a15ae44fc47b6", 10767},
    {"a link failing mid-run, restarted", "--mesh 8x8 --algo 2d --order xy --line ring --link-latency 1 --buf 8 --bytes 256KiB --fail-at 3000:link:3,3:E "
     "--restart-algo ft2d --recovery restart",
     "4079ab74637a66f7+a9c543e4837393fd", 14023},
    {"bidirectional ring on a torus, 2-stage pipeline, 5-cycle links",
     "--mesh 8x4 --topology torus --algo biring --bytes 96KiB --pipeline 2 --link-latency 5 --credit-latency 5 --buf 8",
     "308758566d9ae67c", 3174},
};

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> v;
  for (std::string w; in >> w;) v.push_back(w);
  return v;
}

TEST(GoldenCycles, UnchangedUnlessTheModelVersionIsBumped) {
  ASSERT_EQ(kModelVersion, kGoldenVersion)
      << "kModelVersion was bumped: re-measure every row below with this model and set kGoldenVersion to "
      << kModelVersion;
  ASSERT_EQ(kRecoveryVersion, kGoldenRecoveryVersion)
      << "kRecoveryVersion was bumped: re-measure the rows with --fail-at and set kGoldenRecoveryVersion to "
      << kRecoveryVersion;
  for (const Golden& g : kRows) {
    const std::string json = test::tmpdir() + "/golden.json";
    std::vector<std::string> argv = {FAULTMESH_BIN, "allreduce"};
    for (const std::string& w : words(g.args)) argv.push_back(w);
    for (const char* w : {"--json", json.c_str(), "-q"}) argv.push_back(w);
    const Captured c = run_capture(argv);
    ASSERT_EQ(c.exit_code, 0) << g.what << ": " << c.err;
    std::ifstream in(json);
    const nlohmann::json j = nlohmann::json::parse(in);
    EXPECT_EQ(j["model_version"], kModelVersion) << g.what;
    const bool failures = std::string(g.args).find("--fail-at") != std::string::npos;
    EXPECT_EQ(j["recovery_version"], failures ? kRecoveryVersion : 0) << g.what;
    const std::string fp = j["schedule_fingerprint"];
    if (fp != g.fingerprint) {
      ADD_FAILURE() << g.what << ": the schedule changed (fingerprint " << fp << ", was " << g.fingerprint
                    << "): if no cycle changed for an unchanged schedule, refresh this row (fingerprint " << fp
                    << ", cycles " << j["cycles"] << ")";
      continue;
    }
    EXPECT_EQ(j["cycles"].get<uint64_t>(), g.cycles)
        << g.what << ": the same schedule now takes another number of cycles; bump "
        << (failures ? "kRecoveryVersion (if only runs with failures change) or " : "") << "kModelVersion "
        << "(models/model_version.h), so the run store reruns what the older model made, and re-measure these rows";
  }
}

// The fingerprint names the schedule, not the run: `--fingerprint` (no simulation)
// prints the same one the run reports, and a change of the schedule's parameters
// changes it while one of the network's does not.
TEST(GoldenCycles, FingerprintFollowsTheScheduleOnly) {
  auto fp = [](const std::string& args) {
    std::vector<std::string> argv = {FAULTMESH_BIN, "allreduce"};
    for (const std::string& w : words(args)) argv.push_back(w);
    argv.push_back("--fingerprint");
    const Captured c = run_capture(argv);
    EXPECT_EQ(c.exit_code, 0) << args << ": " << c.err;
    const nlohmann::json j = nlohmann::json::parse(c.out);
    EXPECT_EQ(j["model_version"], kModelVersion);
    return j["schedule_fingerprint"].get<std::string>();
  };
  EXPECT_EQ(fp(kRows[0].args), kRows[0].fingerprint);
  EXPECT_EQ(fp(kRows[3].args), kRows[3].fingerprint);
  // kRows[0] with other links and VCs, then with another order, size or algorithm.
  EXPECT_EQ(fp("--mesh 4x4 --algo 2d --order xy --line ring --link-latency 9 --credit-latency 9 --vcs 3 --bytes 64KiB"),
            kRows[0].fingerprint);
  EXPECT_NE(fp("--mesh 4x4 --algo 2d --order yx --line ring --bytes 64KiB"), kRows[0].fingerprint);
  EXPECT_NE(fp("--mesh 4x4 --algo 2d --order xy --line ring --bytes 128KiB"), kRows[0].fingerprint);
  EXPECT_NE(fp("--mesh 4x4 --algo ring --bytes 64KiB"), kRows[0].fingerprint);
}

}  // namespace
}  // namespace fm
