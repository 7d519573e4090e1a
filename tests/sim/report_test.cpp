// The paper report (sim/paper_report.cpp) and its availability Monte Carlo
// (sim/availability.cpp): closed forms the Monte Carlo must reproduce, determinism, the
// linear fit, bad input, and `faultmesh report paper --quick` end to end with its tables
// and fits checked against the run JSONs its allreduce processes wrote and a fit done
// in the test.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/availability.h"
#include "sim/paper_report.h"
#include "sim/subprocess.h"

namespace fm {
namespace {

// (a) with Poisson failures at rate L (boards / MTBF) while running, checkpoints every
// tau of running time and a down time D per failure: a segment of tau takes
// E = (1/L + D)(e^{L tau} - 1) on average (renewal argument), so the long-run goodput is
// tau / E.
TEST(Availability, StopAndRepairMatchesClosedForm) {
  AvailParams p;
  p.boards = 256;
  p.mtbf_h = 8760;
  p.ckpt_h = 4;
  p.reschedule_h = 2;
  p.restart_h = 0.25;
  p.horizon_h = 5000;
  const double L = p.boards / p.mtbf_h, D = p.reschedule_h + p.restart_h;
  const double expect = p.ckpt_h / ((1 / L + D) * (std::exp(L * p.ckpt_h) - 1));
  const AvailSummary s = availability_monte_carlo(p, AvailPolicy::StopAndRepair, 400);
  EXPECT_GT(s.goodput.half, 0);
  EXPECT_NEAR(s.goodput.mean, expect, 3 * s.goodput.half + 1e-3) << "closed form " << expect;
  // Failures happen only while running: about L x running time.
  EXPECT_NEAR(s.failures.mean, L * s.availability.mean * p.horizon_h, 3 * s.failures.half + 1);
}

// (b) with no repair, no reconfiguration cost, no hole limit, and throughput falling
// only with the chips lost (rate[h] = (B - h) / B): each board contributes its expected
// alive time, so E[goodput] = (M / T)(1 - e^{-T/M}).
TEST(Availability, RouteAroundNoRepairMatchesClosedForm) {
  AvailParams p;
  p.boards = 16;
  p.mtbf_h = 500;
  p.horizon_h = 1000;
  p.reconfig_h = 0;
  p.repair_h = INFINITY;
  p.max_holes = p.boards;
  p.rate.clear();
  for (int h = 0; h <= p.boards; ++h) p.rate.push_back((double)(p.boards - h) / p.boards);
  const double expect = p.mtbf_h / p.horizon_h * (1 - std::exp(-p.horizon_h / p.mtbf_h));
  const AvailSummary s = availability_monte_carlo(p, AvailPolicy::RouteAround, 2000);
  EXPECT_NEAR(s.goodput.mean, expect, 3 * s.goodput.half) << "closed form " << expect;
  EXPECT_DOUBLE_EQ(s.availability.mean, 1.0);  // never stops
  EXPECT_EQ(s.stops.mean, 0);
  // Every board fails by T with probability 1 - e^{-T/M}.
  EXPECT_NEAR(s.failures.mean, p.boards * (1 - std::exp(-p.horizon_h / p.mtbf_h)), 3 * s.failures.half);
}

TEST(Availability, DeterministicPerSeed) {
  AvailParams p;
  p.rate = {1.0, 0.99, 0.98};
  for (AvailPolicy pol : {AvailPolicy::StopAndRepair, AvailPolicy::RouteAround}) {
    const AvailRun a = simulate_availability(p, pol, 7), b = simulate_availability(p, pol, 7),
                   c = simulate_availability(p, pol, 8);
    EXPECT_EQ(a.goodput, b.goodput);
    EXPECT_EQ(a.failures, b.failures);
    EXPECT_NE(a.goodput, c.goodput);
  }
}

// With no holes allowed, route-around falls back on every failure: exactly policy (a).
TEST(Availability, ZeroHolesIsStopAndRepair) {
  AvailParams p;
  p.max_holes = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const AvailRun a = simulate_availability(p, AvailPolicy::StopAndRepair, seed);
    const AvailRun b = simulate_availability(p, AvailPolicy::RouteAround, seed);
    EXPECT_EQ(a.goodput, b.goodput);
    EXPECT_EQ(a.stops, b.stops);
  }
}

TEST(Availability, RouteAroundBeatsStopAndAUnusableSetFallsBack) {
  AvailParams p;
  p.rate = {1.0, 0.995, 0.99};
  const AvailSummary a = availability_monte_carlo(p, AvailPolicy::StopAndRepair, 200);
  const AvailSummary b = availability_monte_carlo(p, AvailPolicy::RouteAround, 200);
  EXPECT_GT(a.failures.mean, 5);  // ~20 failures in 4 weeks of 256 boards at 1 year MTBF
  EXPECT_GT(b.goodput.mean - b.goodput.half, a.goodput.mean + a.goodput.half);
  EXPECT_LT(b.stops.mean, a.stops.mean);
  // A predicate rejecting every hole set turns (b) into (a).
  const AvailSummary c = availability_monte_carlo(p, AvailPolicy::RouteAround, 200, 1,
                                                  [](const std::vector<int>&) { return false; });
  EXPECT_EQ(c.goodput.mean, a.goodput.mean);
}

TEST(Availability, BadParameters) {
  AvailParams p;
  p.mtbf_h = 0;
  EXPECT_THROW(simulate_availability(p, AvailPolicy::StopAndRepair, 1), std::invalid_argument);
  p = AvailParams{};
  p.max_holes = 2;
  p.rate = {1.0};  // no rates for 1 and 2 holes
  EXPECT_THROW(simulate_availability(p, AvailPolicy::RouteAround, 1), std::invalid_argument);
}

TEST(LinearFit, ExactAndResidual) {
  const LinearFit f = fit_linear({{1, 3}, {2, 5}, {4, 9}});
  ASSERT_TRUE(f.ok);
  EXPECT_NEAR(f.a, 1, 1e-12);
  EXPECT_NEAR(f.b, 2, 1e-12);
  EXPECT_NEAR(f.rms, 0, 1e-12);
  const LinearFit g = fit_linear({{0, 0}, {1, 2}, {2, 2}});  // best line 1/3 + x, residuals -1/3, 2/3, -1/3
  EXPECT_NEAR(g.a, 1.0 / 3, 1e-12);
  EXPECT_NEAR(g.b, 1.0, 1e-12);
  EXPECT_NEAR(g.rms, std::sqrt(6.0 / 27), 1e-12);
  EXPECT_FALSE(fit_linear({{1, 1}, {1, 2}}).ok);
}

std::string slurp(const std::string& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> c;
  std::stringstream in(line.substr(1));
  std::string t;
  while (std::getline(in, t, '|')) {
    const auto a = t.find_first_not_of(' '), b = t.find_last_not_of(' ');
    c.push_back(a == std::string::npos ? "" : t.substr(a, b - a + 1));
  }
  return c;
}

TEST(ReportPaper, BadInputExits2) {
  for (const std::vector<std::string>& a : std::vector<std::vector<std::string>>{
           {"report"}, {"report", "novel"}, {"report", "paper", "--meshes", "10x16"},
           {"report", "paper", "--sizes", "1MiB"}, {"report", "paper", "--overlap", "2"},
           {"report", "paper", "--max-holes", "3"}, {"report", "paper", "--topologies", "ring"},
           {"report", "paper", "--jobs", "0"}, {"report", "paper", "--bogus"},
           {"report", "paper", "--mesh-sizes", "12x12=1MiB,2MiB"}, {"report", "paper", "--check-factor", "1"},
           {"report", "paper", "--sizes", "100,200"}, {"report", "paper", "--avail-model", "gpt"}}) {
    std::vector<std::string> argv = {FAULTMESH_BIN};
    argv.insert(argv.end(), a.begin(), a.end());
    const Captured c = run_capture(argv);
    EXPECT_EQ(c.exit_code, 2) << a.back() << ": " << c.err;
    if (a.size() > 2) {
      EXPECT_NE(c.err.find("error"), std::string::npos) << c.err;
    }
  }
}

// Least squares of y = a + b x by the normal equations in raw sums (the code centres
// its sums first), with the rms and the largest relative residual: the test's own fit.
struct Fit {
  double a = 0, b = 0, rms = 0, max_rel = 0;
};
Fit least_squares(const std::vector<std::pair<double, double>>& p) {
  const double n = (double)p.size();
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& [x, y] : p) sx += x, sy += y, sxx += x * x, sxy += x * y;
  Fit f;
  f.b = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  f.a = (sy - f.b * sx) / n;
  double ss = 0;
  for (const auto& [x, y] : p) {
    const double r = y - (f.a + f.b * x);
    ss += r * r;
    f.max_rel = std::max(f.max_rel, std::fabs(r / y));
  }
  f.rms = std::sqrt(ss / n);
  return f;
}

// A printed number equals `want` to the printed precision (`decimals`).
void expect_printed(const std::string& cell, double want, int decimals, const std::string& where) {
  EXPECT_NEAR(std::stod(cell), want, 0.5 * std::pow(10.0, -decimals) + 1e-9 * std::fabs(want))
      << where << ": printed " << cell << ", expected " << want;
}

// The whole pipeline on the quick machines: files written; every row of the simulated
// runs table against the run's own JSON (written by its allreduce process): machine,
// algorithm, bytes and fault case from its configuration, cycles, time, bus bandwidth,
// participants, live chips, and the slowdown recomputed from the fault-free ft2d JSON;
// paper_data.json's runs against the same JSONs; and every fit, in paper_data.json and
// in the fits table, against a least-squares fit done here of the points read from the
// run JSONs.
TEST(ReportPaper, QuickEndToEnd) {
  char tmpl[] = "/tmp/fm_report_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  const Captured c = run_capture({FAULTMESH_BIN, "report", "paper", "--quick", "--out", dir, "--jobs", "2"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  for (const char* f : {"/results.md", "/paper_data.json", "/img/heatmap_before.png", "/img/heatmap_after.png",
                        "/img/availability.png", "/img/slowdown_16x16_mesh.png", "/img/slowdown_8x16_torus.png"})
    EXPECT_EQ(access((dir + f).c_str(), R_OK), 0) << f;
  auto run_json = [&](const std::string& file) { return nlohmann::json::parse(slurp(dir + "/runs/" + file)); };
  // The fault case a run's configuration describes (the mid case: a --fail-at).
  auto case_of = [](const nlohmann::json& cfg, int board_w, int board_h) -> std::string {
    const auto& b = cfg["fail-board"];
    if (!cfg["fail-at"].empty()) return "board_mid";
    if (!cfg["fail-link"].empty()) return "one_link";
    if (b.size() == 2) return "two_boards";
    if (b.empty()) return "faultfree";
    const std::string at = b[0].get<std::string>();
    const int x = std::stoi(at), y = std::stoi(at.substr(at.find(',') + 1));
    if (x == 0 && y == 0) return "board_corner";
    if (x == board_w / 2 && y == 0) return "board_edge";
    if (x == board_w / 2 && y == board_h / 2) return "board_centre";
    return "?";
  };
  const std::string md = slurp(dir + "/results.md");
  std::istringstream in(md);
  std::string line, section;
  int rows = 0, fit_rows = 0;
  std::map<std::string, int> algos;
  // Per (machine|case|algo): the (bytes, time_us) points of the run JSONs.
  std::map<std::string, std::vector<std::pair<double, double>>> pts;
  std::map<std::string, Fit> fits;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) section = line;
    if (line.rfind("| ", 0) != 0 || line.rfind("| machine", 0) == 0) continue;
    const auto v = cells(line);
    if (section == "## Simulated runs") {
      ASSERT_EQ(v.size(), 10u) << line;
      ASSERT_NE(v[4], "failed") << line;  // every quick run completes
      ++rows;
      ++algos[v[2]];
      const nlohmann::json j = run_json(v[9]);
      const nlohmann::json& cfg = j["config"];
      const std::string mesh = cfg["mesh"].get<std::string>();
      const int w = std::stoi(mesh), h = std::stoi(mesh.substr(mesh.find('x') + 1));
      EXPECT_EQ(v[0], mesh + "_" + cfg["topology"].get<std::string>()) << line;
      EXPECT_EQ(v[1], case_of(cfg, w / 2, h / 2)) << line;
      EXPECT_EQ(v[2], j["algo"].get<std::string>()) << line;
      EXPECT_EQ(std::stoull(v[3]), j["bytes"].get<uint64_t>()) << line;
      EXPECT_EQ(std::stoull(v[4]), j["cycles"].get<uint64_t>()) << line;
      const double t = j["time_us"].get<double>();
      expect_printed(v[5], t, 3, line);
      expect_printed(v[6], j["busbw_GBps"].get<double>(), 2, line);
      EXPECT_EQ(std::stoi(v[7]), j["participants"].get<int>()) << line;
      // The fault-free ft2d run of this machine and size: the one whose configuration
      // has no fault, algorithm ft2d and these bytes.
      const std::string stem = v[9].substr(0, v[9].size() - 5);
      const std::string size = stem.substr(stem.rfind('_') + 1);
      const nlohmann::json ff = run_json(v[0] + "_faultfree_ft2d_" + size + ".json");
      EXPECT_EQ(case_of(ff["config"], w / 2, h / 2), "faultfree");
      EXPECT_EQ(ff["algo"], "ft2d");
      EXPECT_EQ(ff["bytes"], j["bytes"]);
      expect_printed(v[8], t / ff["time_us"].get<double>(), 3, line);
      // A failed board leaves 4 chips out; a failed link none.
      const int dead = v[1].find("board") == std::string::npos ? 0 : v[1] == "two_boards" ? 8 : 4;
      EXPECT_EQ(j["live_chips"].get<int>(), w * h - dead) << line;
      pts[v[0] + "|" + v[1] + "|" + v[2]].push_back({j["bytes"].get<double>(), t});
    } else if (section.rfind("## Fits", 0) == 0) {
      ASSERT_EQ(v.size(), 8u) << line;
      ++fit_rows;
      const auto& p = pts[v[0] + "|" + v[1] + "|" + v[2]];
      ASSERT_EQ(p.size(), 3u) << line;
      const Fit f = least_squares(p);
      fits[v[0] + "|" + v[1] + "|" + v[2]] = f;
      expect_printed(v[3], f.a, 3, line);
      expect_printed(v[4], f.b * (1 << 20), 3, line);
      EXPECT_EQ(v[5], "3") << line;
      expect_printed(v[6], f.rms, 4, line);
      EXPECT_EQ(v[7].substr(v[7].size() - 2), " %") << line;
      expect_printed(v[7].substr(0, v[7].size() - 2), 100 * f.max_rel, 2, line);
    }
  }
  // 4 machines x 6 cases x 3 algorithms x 3 sizes (7 cases once --fail-at exists).
  EXPECT_TRUE(rows == 4 * 6 * 3 * 3 || rows == 4 * 7 * 3 * 3) << rows;
  EXPECT_EQ(algos["ft2d"], rows / 3);
  EXPECT_EQ(fit_rows, rows / 3);
  // The mid-allreduce case is either run or declared unavailable, never invented.
  const bool mid = md.find("board_mid") != std::string::npos && rows == 4 * 7 * 3 * 3;
  if (!mid) {
    EXPECT_NE(md.find("**Not yet available.**"), std::string::npos);
  }
  // paper_data.json: its runs are the run JSONs' numbers, its fits the fits done here.
  const nlohmann::json data = nlohmann::json::parse(slurp(dir + "/paper_data.json"));
  ASSERT_EQ((int)data["runs"].size(), rows);
  for (const auto& r : data["runs"]) {
    const nlohmann::json j = run_json(r["run"].get<std::string>() + ".json");
    EXPECT_EQ(r["bytes"], j["bytes"]) << r;
    EXPECT_EQ(r["time_us"], j["time_us"]) << r;
    EXPECT_EQ(r["algo"], j["algo"]) << r;
  }
  ASSERT_EQ((int)data["fits"].size(), fit_rows);
  for (const auto& f : data["fits"]) {
    const std::string key = f["machine"].get<std::string>() + "|" + f["case"].get<std::string>() + "|" +
                            f["algo"].get<std::string>();
    ASSERT_EQ(fits.count(key), 1u) << key;
    const Fit& mine = fits[key];
    const double t_max = std::max_element(pts[key].begin(), pts[key].end())->second;
    // Both fits in double precision: equal to rounding, relative to the times fitted.
    EXPECT_NEAR(f["a_us"].get<double>(), mine.a, 1e-9 * t_max) << key;
    EXPECT_NEAR(f["b_us_per_byte"].get<double>(), mine.b, 1e-9 * mine.b + 1e-15) << key;
    EXPECT_NEAR(f["rms_us"].get<double>(), mine.rms, 1e-9 * t_max) << key;
    EXPECT_NEAR(f["max_rel"].get<double>(), mine.max_rel, 1e-9) << key;
    EXPECT_EQ(f["n"], 3) << key;
  }
  // Availability: both policies on each 1024-chip-like (largest) machine, goodputs in (0, 1].
  ASSERT_EQ(data["availability"].size(), 6u);  // 2 topologies x (a), (b), (b')
  for (const auto& a : data["availability"]) {
    EXPECT_GT(a["goodput"].get<double>(), 0);
    EXPECT_LE(a["goodput"].get<double>(), 1);
  }
  std::string cmd = "rm -rf '" + dir + "'";
  (void)!std::system(cmd.c_str());
}

}  // namespace
}  // namespace fm
