// faultmesh sweep and plot as a user meets them: specs expand to the points counted by
// hand, bad specs and unreachable Slurm get one clear line and exit 2 before anything
// runs, a local sweep's rows match standalone runs of the same points, reruns skip
// complete points and redo half-written ones, a failed point does not stop the rest,
// a signal stops the running points and a resumed sweep equals an uninterrupted one,
// and plot draws the figures. The real-Slurm comparison is tests/sim/slurm/ (label slurm).
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "sim/sweep.h"
#include "models/config.h"

#include "tests/cli_util.h"

using namespace fm::test;

namespace {


std::string write_spec(const std::string& name, const std::string& text) {
  const std::string p = tmpdir() + "/" + name;
  std::ofstream(p) << text;
  return p;
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  std::string l;
  while (std::getline(in, l)) v.push_back(l);
  return v;
}

std::vector<nlohmann::json> jsonl(const std::string& p) {
  std::vector<nlohmann::json> v;
  for (const auto& l : lines(slurp(p))) v.push_back(nlohmann::json::parse(l));
  return v;
}

const char* kSmall =
    "command = traffic\n[base]\nmesh = 4x4\nwarmup = 100\ncycles = 600\nseed = 3\n"
    "[axes]\nvcs = 1,2\nrate = 0.1:0.3:0.1\n";

}  // namespace

TEST(SweepSpec, ExpandsTheCrossProductInFileOrderWithZipAndOmission) {
  const std::string p = write_spec("expand.ini",
                                   "# comment\ncommand = traffic\n[base]\nmesh = 4x4\nhotspot = 1,1\n"
                                   "[axes]\nvcs = 1,2,4\nfail-board = -; 1,1\n"
                                   "[zip]\nrate = 0.05:0.2:0.05\nseed = 1,2,3,4\n");
  const fm::SweepSpec s = fm::read_sweep_spec(p);
  // 3 vcs x 2 fail-board x 4 zipped (rate, seed) pairs.
  ASSERT_EQ(s.points.size(), 24u);
  ASSERT_EQ(s.axes.size(), 4u);
  EXPECT_EQ(s.axes[2].values, (std::vector<std::string>{"0.05", "0.1", "0.15", "0.2"}));
  // Point 0: first of everything; "-" leaves --fail-board out.
  EXPECT_EQ(s.points[0].args, (std::vector<std::string>{"--mesh", "4x4", "--hotspot", "1,1", "--vcs", "1",
                                                        "--rate", "0.05", "--seed", "1"}));
  // The zipped pair advances fastest, then fail-board, then vcs (first axis outermost).
  EXPECT_EQ(s.points[1].args.back(), "2");
  EXPECT_EQ(s.points[5].args, (std::vector<std::string>{"--mesh", "4x4", "--hotspot", "1,1", "--vcs", "1",
                                                        "--fail-board", "1,1", "--rate", "0.1", "--seed", "2"}));
  EXPECT_EQ(s.points[8].args[5], "2");
  EXPECT_EQ(s.points[23].args[5], "4");
}

TEST(SweepSpec, RepeatableOptionTakesSeveralValuesInOnePoint) {
  const std::string p = write_spec("repeat.ini",
                                   "command = traffic\n[base]\nmesh = 8x8\n[axes]\nfail-chip = 1,1 5,5; 2,2\n"
                                   "fail-link = 4,4:E\n");
  const fm::SweepSpec s = fm::read_sweep_spec(p);
  ASSERT_EQ(s.points.size(), 2u);
  // A coordinate list splits at ';' only: one fail-link value.
  EXPECT_EQ(s.points[0].args, (std::vector<std::string>{"--mesh", "8x8", "--fail-chip", "1,1", "--fail-chip", "5,5",
                                                        "--fail-link", "4,4:E"}));
}

TEST(SweepSpec, AxisValueSyntax) {
  EXPECT_EQ(fm::parse_axis_values("1, 2 ,4", "a"), (std::vector<std::string>{"1", "2", "4"}));
  EXPECT_EQ(fm::parse_axis_values("2:8:2", "a"), (std::vector<std::string>{"2", "4", "6", "8"}));
  EXPECT_EQ(fm::parse_axis_values("0,0; 3,3:E", "a"), (std::vector<std::string>{"0,0", "3,3:E"}));
  EXPECT_EQ(fm::parse_axis_values("4,4:E", "a", true), (std::vector<std::string>{"4,4:E"}));
  EXPECT_THROW(fm::parse_axis_values("", "a"), fm::ConfigError);
  EXPECT_THROW(fm::parse_axis_values("1,", "a"), fm::ConfigError);
  EXPECT_THROW(fm::parse_axis_values("0.5:0.1:0.1", "a"), fm::ConfigError);
  EXPECT_THROW(fm::parse_axis_values("1:2:0", "a"), fm::ConfigError);
}

TEST(Sweep, BadInputNamesTheProblemExits2AndRunsNothing) {
  struct Bad {
    std::string spec, extra, must_say;
  };
  const std::vector<Bad> bad = {
      {"command = traffic\n[axes]\nwarp = 1,2\n", "", "axis 'warp' is not an option of 'traffic'; allowed: mesh"},
      {"command = traffic\n[axes]\nvcs =\n", "", "axis vcs: empty value list"},
      {"command = traffic\n[axes]\nvcs = 1,,2\n", "", "empty value in the list"},
      {"command = traffic\n[axes]\nvcs = 1,0,2\n", "", "point 1 (vcs=0): --vcs 0: allowed 1..16"},
      {"command = traffic\n[axes]\nrate = 0.1,1.5\n", "", "point 1 (rate=1.5): --rate 1.5: allowed 0..1"},
      {"command = traffic\n[axes]\nfail-board = 0,0;3,3\nrouting = xy\n", "", "block dimension-order routing"},
      {"command = traffic\n[base]\nbogus = 1\n", "", "base option 'bogus' is not an option"},
      {"command = traffic\n[base]\njson = x.json\n", "", "'json': set by the sweep itself"},
      {"command = traffic\n[axes]\nvcs = 1,2\nvcs = 3\n", "", "axis 'vcs' given twice"},
      {"command = traffic\n[axes]\n = 1,2\n", "", "axis with no name"},
      {"command = traffic\n[base]\n = 1\n", "", "base option with no name"},
      {"command = traffic\n[axes]\nvcs = 1,%value%\n", "", "the argument ('%25value%25') for option '--vcs' is invalid"},
      {"command = traffic\n[zip]\nvcs = 1,2\nbuf = 1,2,3\n", "", "[zip] axes must have equal lengths"},
      {"command = warp\n", "", "command = warp: not a sweepable faultmesh command; allowed traffic"},
      {"[axes]\nvcs = 1\n", "", "no 'command = ...' line"},
      {"command = traffic\n[axes]\nvcs = 1\n", "--backend pbs", "--backend pbs: allowed local | slurm"},
      {"command = traffic\n[axes]\nvcs = 1\n", "--jobs 0", "--jobs 0: allowed 1..4096"},
      {"command = traffic\n[axes]\nvcs = 1\n", "--wait", "--wait: only with --backend slurm"},
  };
  int k = 0;
  for (const Bad& b : bad) {
    const std::string spec = write_spec("bad" + std::to_string(k) + ".ini", b.spec);
    const std::string out = tmpdir() + "/bad_out" + std::to_string(k++);
    const Outcome r = run("sweep " + spec + " --out " + out + " " + b.extra);
    EXPECT_EQ(r.code, 2) << b.spec << "\n" << r.err;
    EXPECT_NE(r.err.find(b.must_say), std::string::npos) << b.spec << "\nstderr: " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(exists(out)) << "nothing is written for a bad spec: " << b.spec;
  }
  const Outcome missing = run("sweep /nonexistent/spec.ini --out " + tmpdir() + "/x");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("sweep spec /nonexistent/spec.ini: cannot read"), std::string::npos) << missing.err;
}

TEST(Sweep, OutputDirectoryNotWritable) {
  // As root, permissions do not stop writes; a path under a regular file does.
  const std::string spec = write_spec("nowrite.ini", kSmall);
  const Outcome r = run("sweep " + spec + " --out /dev/null/sweep");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--out /dev/null/sweep: '/dev/null' is not a directory"), std::string::npos) << r.err;
}

TEST(Sweep, SlurmNotReachableNamesTheCommand) {
  const std::string spec = write_spec("slurm.ini", kSmall);
  // No sbatch at all.
  const Outcome r = run("sweep " + spec + " --backend slurm --out " + tmpdir() + "/noslurm", "PATH=/nonexistent");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("cannot run 'sbatch': not found in PATH"), std::string::npos) << r.err;
  // An sbatch that cannot reach its controller (what a real one prints).
  const std::string bin = tmpdir() + "/fakebin";
  mkdir(bin.c_str(), 0755);
  std::ofstream(bin + "/sbatch") << "#!/bin/sh\necho 'sbatch: error: Batch job submission failed: "
                                    "Unable to contact slurm controller (connect failure)' >&2\nexit 1\n";
  chmod((bin + "/sbatch").c_str(), 0755);
  const Outcome r2 = run("sweep " + spec + " --backend slurm --out " + tmpdir() + "/noctl", "PATH=" + bin + ":$PATH");
  EXPECT_EQ(r2.code, 2);
  EXPECT_NE(r2.err.find("'sbatch --parsable --array=0-5"), std::string::npos) << r2.err;
  EXPECT_NE(r2.err.find("Unable to contact slurm controller"), std::string::npos) << r2.err;
}

TEST(Sweep, LocalRowsMatchStandaloneRunsAndRerunsResume) {
  const std::string spec = write_spec("small.ini", kSmall);
  const std::string dir = tmpdir() + "/small";
  const Outcome r = run("sweep " + spec + " --out " + dir + " --jobs 2");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("6 points: 6 ok"), std::string::npos) << r.out;
  const std::string csv = slurp(dir + "/results.csv");
  const auto rows = jsonl(dir + "/results.jsonl");
  // 2 vcs x 3 rates, by hand; header + 6 lines; vcs outermost.
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(lines(csv).size(), 7u);
  const char* vcs[] = {"1", "1", "1", "2", "2", "2"};
  const char* rate[] = {"0.1", "0.2", "0.3", "0.1", "0.2", "0.3"};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(rows[i]["point"], i);
    EXPECT_EQ(rows[i]["status"], "ok");
    EXPECT_EQ(rows[i]["opt.vcs"], vcs[i]);
    EXPECT_EQ(rows[i]["opt.rate"], rate[i]);
    // The simulator's own record of what it ran agrees with the spec.
    EXPECT_EQ(rows[i]["config.vcs"], std::stoi(vcs[i]));
    EXPECT_DOUBLE_EQ(rows[i]["config.rate"].get<double>(), std::stod(rate[i]));
    EXPECT_FALSE(rows[i].contains("wall_seconds")) << "host timings are left out";
  }
  EXPECT_EQ(lines(csv)[0].rfind("point,status,error,opt.mesh,", 0), 0u) << lines(csv)[0];
  // Point 4 (vcs 2, rate 0.2) equals a standalone traffic run of the same options.
  const std::string one = tmpdir() + "/one.json";
  ASSERT_EQ(run("traffic --mesh 4x4 --warmup 100 --cycles 600 --seed 3 --vcs 2 --rate 0.2 -q --json " + one).code, 0);
  const auto j = nlohmann::json::parse(slurp(one));
  EXPECT_EQ(rows[4]["avg_packet_latency"], j["avg_packet_latency"]);
  EXPECT_EQ(rows[4]["flits_ejected"], j["flits_ejected"]);
  EXPECT_EQ(rows[4]["p99_packet_latency"], j["p99_packet_latency"]);

  // A rerun skips everything and rewrites identical results.
  const Outcome again = run("sweep " + spec + " --out " + dir);
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.err.find("6 of 6 points already complete"), std::string::npos) << again.err;
  EXPECT_EQ(slurp(dir + "/results.csv"), csv);
  // A half-written result and a missing status are not complete: those two run again.
  const std::string p3 = dir + "/points/0003/result.json";
  const std::string half = slurp(p3).substr(0, 100);
  std::ofstream(p3, std::ios::trunc) << half;
  std::remove((dir + "/points/0004/status.json").c_str());
  const Outcome resume = run("sweep " + spec + " --out " + dir);
  ASSERT_EQ(resume.code, 0) << resume.err;
  EXPECT_NE(resume.err.find("4 of 6 points already complete"), std::string::npos) << resume.err;
  EXPECT_NE(resume.out.find("(2 run now)"), std::string::npos) << resume.out;
  EXPECT_EQ(slurp(dir + "/results.csv"), csv);
  // --collect only collects.
  const Outcome col = run("sweep " + spec + " --out " + dir + " --collect");
  EXPECT_EQ(col.code, 0) << col.err;
  EXPECT_EQ(slurp(dir + "/results.csv"), csv);
  // A different spec into the same directory is refused.
  const std::string other = write_spec("other.ini", std::string(kSmall) + "buf = 2,4\n");
  const Outcome clash = run("sweep " + other + " --out " + dir);
  EXPECT_EQ(clash.code, 2);
  EXPECT_NE(clash.err.find("holds a different sweep"), std::string::npos) << clash.err;
}

// `--jobs N` points at once share the cores: a point that does not choose its thread
// count runs with max(1, cores / N) (N children at `auto` would start N x cores
// threads); one whose spec sets `threads` keeps it.
TEST(Sweep, PointsShareTheCoresUnlessTheySetThreads) {
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  const int cores = CPU_COUNT(&set);
  auto threads_of = [](const std::string& dir, const char* point) {
    return nlohmann::json::parse(slurp(dir + "/points/" + point + "/result.json"))["simulator"]["threads"].get<int>();
  };
  const std::string spec = write_spec("share.ini",
      "command = traffic\n[base]\nmesh = 4x4\nwarmup = 100\ncycles = 300\n[axes]\nrate = 0.1,0.2\n");
  const std::string dir = tmpdir() + "/share";
  const Outcome r = run("sweep " + spec + " --out " + dir + " --jobs 2");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(threads_of(dir, "0000"), std::max(1, cores / 2));
  EXPECT_EQ(threads_of(dir, "0001"), std::max(1, cores / 2));
  const std::string own = write_spec("own.ini",
      "command = traffic\n[base]\nmesh = 4x4\nwarmup = 100\ncycles = 300\nthreads = 3\n[axes]\nrate = 0.1,0.2\n");
  const std::string dir3 = tmpdir() + "/own";
  const Outcome r3 = run("sweep " + own + " --out " + dir3 + " --jobs 2");
  ASSERT_EQ(r3.code, 0) << r3.err;
  EXPECT_EQ(threads_of(dir3, "0000"), 3);
  EXPECT_EQ(threads_of(dir3, "0001"), 3);
}

// SIGTERM to the parent mid-sweep: the running points are stopped with it (none is left
// running), no temporary file is left, and the sweep ends killed by SIGTERM. A rerun
// resumes (the points finished before the signal are skipped) and collects results
// byte-identical to those of an uninterrupted sweep of the same spec.
TEST(Sweep, SignalStopsRunningPointsAndAResumeGivesTheSameResults) {
  // Points of about 0.5-1 s each, so the signal lands with points running.
  const std::string spec = write_spec("signal.ini",
                                      "command = traffic\n[base]\nmesh = 16x16\nrate = 0.2\nwarmup = 100\n"
                                      "cycles = 5000\n[axes]\nseed = 1,2,3,4,5,6\n");
  const std::string whole = tmpdir() + "/signal_whole", cut = tmpdir() + "/signal_cut";
  const Outcome w = run("sweep " + spec + " --out " + whole + " --jobs 2");
  ASSERT_EQ(w.code, 0) << w.err;

  const pid_t pid = start_bin({"sweep", spec, "--out", cut, "--jobs", "2"}, tmpdir() + "/signal_cut.out",
                              tmpdir() + "/signal_cut.err");
  ASSERT_GT(pid, 0);
  std::vector<pid_t> points;  // the point processes running when the signal is sent
  const bool mid = wait_for([&] {
    points = children_of(pid);
    return points.size() == 2 && !files_named(cut + "/points", "status.json").empty();
  }, 60);
  ASSERT_TRUE(mid) << "never saw a finished point with two others running";
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  int st = 0;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM) << "wait status " << st;
  for (pid_t p : points) {
    EXPECT_FALSE(running(p)) << "point process " << p << " outlived the sweep";
    if (running(p)) kill(p, SIGKILL);  // do not leave it writing into the directory
  }
  EXPECT_EQ(files_named(cut, ".tmp.").size(), 0u);
  const size_t finished = files_named(cut + "/points", "status.json").size();
  EXPECT_GE(finished, 1u);
  EXPECT_LT(finished, 6u);
  EXPECT_FALSE(exists(cut + "/results.csv"));

  const Outcome r = run("sweep " + spec + " --out " + cut + " --jobs 2");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find(std::to_string(finished) + " of 6 points already complete"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(cut + "/results.csv"), slurp(whole + "/results.csv"));
  EXPECT_EQ(slurp(cut + "/results.jsonl"), slurp(whole + "/results.jsonl"));
}

// SIGINT to latency-sweep while its points (forked children) run: they end with it,
// and neither the JSON nor a temporary file is left.
TEST(Sweep, LatencySweepSignalStopsItsPoints) {
  const std::string dir = tmpdir() + "/latency_signal";
  ASSERT_EQ(system(("mkdir -p " + dir).c_str()), 0);
  const pid_t pid = start_bin({"latency-sweep", "--mesh", "16x16", "--warmup", "100", "--cycles", "200000",
                               "--rates", "0.1,0.2", "--jobs", "2", "--json", dir + "/l.json"},
                              tmpdir() + "/latency_signal.out", tmpdir() + "/latency_signal.err");
  ASSERT_GT(pid, 0);
  std::vector<pid_t> points;
  ASSERT_TRUE(wait_for([&] { return (points = children_of(pid)).size() == 2; }, 30));
  ASSERT_EQ(kill(pid, SIGINT), 0);
  int st = 0;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT) << "wait status " << st;
  for (pid_t p : points) {
    EXPECT_FALSE(running(p)) << "point process " << p << " outlived latency-sweep";
    if (running(p)) kill(p, SIGKILL);
  }
  EXPECT_EQ(files_named(dir, "").size(), 0u) << "files left in " << dir;
}

TEST(Sweep, FailedPointIsReportedAndDoesNotStopTheRest) {
  // --max-drain 0 fails a run that still has flits in flight when injection stops.
  const std::string spec = write_spec("fail.ini",
                                      "command = traffic\n[base]\nmesh = 4x4\nwarmup = 100\ncycles = 500\n"
                                      "rate = 0.3\n[axes]\nmax-drain = 0,100000\nseed = 1,2\n");
  const std::string dir = tmpdir() + "/fail";
  const Outcome r = run("sweep " + spec + " --out " + dir + " --jobs 1");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.out.find("4 points: 2 ok"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 failed"), std::string::npos) << r.out;
  const auto rows = jsonl(dir + "/results.jsonl");
  ASSERT_EQ(rows.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(rows[i]["status"], i < 2 ? "failed" : "ok") << i;
    if (i < 2) {
      EXPECT_NE(rows[i]["error"].get<std::string>().find("exit 3: faultmesh: run failed (max-drain)"),
                std::string::npos)
          << rows[i]["error"];
      EXPECT_EQ(rows[i]["ok"], false) << "a failed run's own result is kept";
    }
  }
}

TEST(Plot, DrawsLatencySaturationAndHeatmapsAsPngAndSvg) {
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) {
    if (std::getenv("CI")) FAIL() << "gnuplot missing in CI (sim/setup.sh installs gnuplot-nox)";
    GTEST_SKIP() << "gnuplot not installed";
  }
  const std::string spec = write_spec("plot.ini",
                                      "command = traffic\n[base]\nmesh = 4x4\nwarmup = 100\ncycles = 500\n"
                                      "[axes]\nfail-chip = -; 1,1\nrate = 0.1,0.2\n");
  const std::string dir = tmpdir() + "/plotsweep", plots = tmpdir() + "/plots";
  ASSERT_EQ(run("sweep " + spec + " --out " + dir).code, 0);
  const Outcome r = run("plot " + dir + " --out " + plots);
  ASSERT_EQ(r.code, 0) << r.err;
  // One heatmap per configuration (the highest-rate point of each): 0001 and 0003.
  for (const char* f : {"latency_vs_load", "saturation_vs_fail-chip", "heatmap_0001", "heatmap_0003"}) {
    const std::string png = slurp(plots + "/" + f + ".png"), svg = slurp(plots + "/" + f + ".svg");
    EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << f;
    EXPECT_NE(svg.find("<svg"), std::string::npos) << f;
  }
  // The holed point's heatmap draws the failed chip (1,1), the other none; the scripts
  // hold settings only, their data is in the .dat beside them.
  EXPECT_NE(slurp(plots + "/heatmap_0003.gp").find("has_dead = 1"), std::string::npos);
  EXPECT_NE(slurp(plots + "/heatmap_0001.gp").find("has_dead = 0"), std::string::npos);
  const std::string dat3 = slurp(plots + "/heatmap_0003.dat");
  EXPECT_NE(dat3.find("# block dead:\n1 1\n"), std::string::npos) << dat3;
  EXPECT_EQ(slurp(plots + "/heatmap_0001.dat").find("# block dead:"), std::string::npos);
  // 4x4 mesh: 48 link directions, less the 4 into and 4 out of the failed chip.
  const size_t links = dat3.find("# block links:\n"), live = dat3.find("# block live:");
  ASSERT_NE(links, std::string::npos);
  ASSERT_NE(live, std::string::npos);
  const std::string rows = dat3.substr(links, live - links);
  EXPECT_EQ(std::count(rows.begin(), rows.end(), '\n') - 3, 40) << rows;
  const std::string gp3 = slurp(plots + "/heatmap_0003.gp");
  EXPECT_LT(std::count(gp3.begin(), gp3.end(), '\n'), 80) << "the script holds no data rows";
  const Outcome bad = run("plot " + tmpdir() + " --out " + plots);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("not a collected sweep directory"), std::string::npos) << bad.err;
}

TEST(Plot, AllreduceTimeVsMessageSizePerAlgorithm) {
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) {
    if (std::getenv("CI")) FAIL() << "gnuplot missing in CI (sim/setup.sh installs gnuplot-nox)";
    GTEST_SKIP() << "gnuplot not installed";
  }
  // A collected sweep directory as an allreduce sweep writes it (docs/sweeps.md): the
  // figure needs only algo, bytes and cycles columns, whatever else a row holds.
  const std::string dir = tmpdir() + "/allreduce";
  mkdir(dir.c_str(), 0755);
  nlohmann::ordered_json man = {{"format", "faultmesh-sweep 1"}, {"command", "allreduce"}};
  man["axes"] = {{{"option", "algo"}, {"values", {"ring", "ft2d"}}, {"zipped", false}},
                 {{"option", "bytes"}, {"values", {"1024", "1048576"}}, {"zipped", false}}};
  man["points"] = nlohmann::json::array();
  std::string rows;
  int id = 0;
  for (const char* algo : {"ring", "ft2d"})
    for (const char* bytes : {"1024", "1048576"}) {
      man["points"].push_back({{"id", id}, {"options", {{"algo", algo}, {"bytes", bytes}}}, {"args", nlohmann::json::array()}});
      rows += nlohmann::json({{"point", id++}, {"status", "ok"}, {"error", ""}, {"opt.algo", algo},
                              {"opt.bytes", bytes}, {"cycles", std::stoi(bytes) / 8}}).dump() + "\n";
    }
  std::ofstream(dir + "/sweep.json") << man.dump();
  std::ofstream(dir + "/results.jsonl") << rows;
  const Outcome r = run("plot " + dir + " --out " + dir + "/plots");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, dir + "/plots/allreduce_vs_bytes.png  " + dir + "/plots/allreduce_vs_bytes.svg\n");
  const std::string gp = slurp(dir + "/plots/allreduce_vs_bytes.gp");
  EXPECT_NE(gp.find("title 'algo=ring'"), std::string::npos) << gp;
  EXPECT_NE(gp.find("title 'algo=ft2d'"), std::string::npos) << gp;
  const std::string dat = slurp(dir + "/plots/allreduce_vs_bytes.dat");
  EXPECT_NE(dat.find("1048576 131072"), std::string::npos) << "x = bytes, y = cycles\n" << dat;
}

TEST(Sweep, SlurmBackendSubmitsOneArrayWithPassThroughOptions) {
  // A stand-in sbatch that records its arguments and runs the array's tasks itself
  // (the job script with SLURM_ARRAY_TASK_ID set, as Slurm would), and an squeue that
  // reports an empty queue: the submission, --wait and collection paths without a
  // cluster. The real cluster is tests/sim/slurm/.
  const std::string bin = tmpdir() + "/fakeslurm", log = tmpdir() + "/sbatch_args.txt";
  mkdir(bin.c_str(), 0755);
  std::ofstream(bin + "/sbatch") << "#!/bin/bash\n"
                                    "echo \"$*\" >> " << log << "\n"
                                    "for a in \"$@\"; do case $a in --array=*) arr=${a#--array=};; esac; script=$a; done\n"
                                    "arr=${arr%%\\%*}\n"
                                    "IFS=, read -ra parts <<< \"$arr\"\n"
                                    "for p in \"${parts[@]}\"; do\n"
                                    "  if [[ $p == *-* ]]; then seq ${p%-*} ${p#*-}; else echo $p; fi\n"
                                    "done | while read i; do SLURM_ARRAY_TASK_ID=$i sh $script >/dev/null 2>&1; done\n"
                                    "echo 4242\n";
  std::ofstream(bin + "/squeue") << "#!/bin/sh\nexit 0\n";
  chmod((bin + "/sbatch").c_str(), 0755);
  chmod((bin + "/squeue").c_str(), 0755);
  const std::string spec = write_spec("fakeslurm.ini", kSmall);
  const std::string dir = tmpdir() + "/viaslurm", local = tmpdir() + "/vialocal";
  const std::string env = "PATH=" + bin + ":$PATH";
  const Outcome r = run("sweep " + spec + " --backend slurm --wait --jobs 3 --partition p1 --account a1 "
                        "--time 00:05:00 --sbatch-arg=--mem=1G --out " + dir, env);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("submitted Slurm job array 4242 (6 points)"), std::string::npos) << r.err;
  EXPECT_EQ(lines(slurp(log)).at(0), "--parsable --array=0-5%3 --partition=p1 --account=a1 --time=00:05:00 "
                                     "--mem=1G " + dir + "/slurm/job.sh");
  EXPECT_NE(slurp(dir + "/slurm/job.sh").find("sweep --run-point \"$SLURM_ARRAY_TASK_ID\" --out '" + dir + "'"),
            std::string::npos);
  EXPECT_EQ(slurp(dir + "/slurm/jobs"), "4242\n");
  ASSERT_EQ(run("sweep " + spec + " --out " + local).code, 0);
  EXPECT_EQ(slurp(dir + "/results.csv"), slurp(local + "/results.csv"));
  EXPECT_EQ(slurp(dir + "/results.jsonl"), slurp(local + "/results.jsonl"));
  // Resubmission covers only the incomplete points, still as one array.
  std::remove((dir + "/points/0002/status.json").c_str());
  std::remove((dir + "/points/0004/result.json").c_str());
  std::remove((dir + "/points/0005/result.json").c_str());
  const Outcome again = run("sweep " + spec + " --backend slurm --wait --out " + dir, env);
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(lines(slurp(log)).at(1), "--parsable --array=2,4-5 " + dir + "/slurm/job.sh");
  EXPECT_EQ(slurp(dir + "/results.csv"), slurp(local + "/results.csv"));
}
