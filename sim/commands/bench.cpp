// faultmesh bench: the simulator's speed on fixed cases (traffic, and allreduces at the
// paper's machine sizes), each run in a fresh child process `--repeat` times per thread
// count, medians printed with the speed-up against the first count. A benchmark, not a test.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "sim/cli.h"
#include "sim/io.h"
#include "sim/options.h"
#include "tb/allreduce_run.h"
#include "tb/isolated.h"
#include "tb/result_keys.h"
#include "tb/traffic_run.h"

namespace fm {

namespace {

// A case: a traffic configuration, or an allreduce given by its command-line options
// (the allreduce command's defaults where a case does not set one).
struct Case {
  std::string name;
  Config cfg;
  std::vector<std::string> allreduce;  // non-empty: an allreduce with these options
  std::string group;                   // --case GROUP runs every case of the group
};

// The schema rows of the clock kernel's choices (models/config.h KernelOptions).
bool is_kernel_row(const Param& p) {
  const std::string n = p.name;
  return n == "parallel" || n == "parallel-min" || n == "prefetch";
}

std::vector<Case> bench_cases(bool quick) {
  auto base = [](int w, int h, double rate, Cycle cycles) {
    Config c;
    c.net.width = w;
    c.net.height = h;
    c.net.vcs = 2;
    c.net.buf = 8;
    c.net.pipeline = 3;
    c.net.routing = Routing::XY;
    c.traffic.pattern = Pattern::Uniform;
    c.traffic.rate = rate;
    c.traffic.packet_min = c.traffic.packet_max = 4;
    c.run.warmup = 0;
    c.run.cycles = cycles;
    return c;
  };
  const Cycle k = quick ? 10 : 1;
  std::vector<Case> v;
  v.push_back({"mesh8x8_uniform_0.1", base(8, 8, 0.1, 20000 / k), {}, ""});
  v.push_back({"mesh16x16_uniform_0.1", base(16, 16, 0.1, 20000 / k), {}, ""});
  v.push_back({"mesh32x32_uniform_0.05", base(32, 32, 0.05, 10000 / k), {}, ""});
  // Idle cost: one active pair, (0,0) -> (31,31), on a 32x32 mesh.
  Config pair = base(32, 32, 0.1, 10000 / k);
  pair.traffic.pattern = Pattern::BitComplement;
  pair.traffic.sources = {{0, 0}};
  v.push_back({"mesh32x32_one_pair", pair, {}, ""});
  // Allreduce at the paper's machine sizes (--quick: 1/16 of the bytes), with the set-up
  // these cases have been measured with since they exist (docs/performance.md): order xy,
  // ring lines, 1-cycle links, 8-flit buffers, not the allreduce's defaults.
  const auto ar = [&](const char* mib, std::vector<std::string> rest) {
    std::vector<std::string> a = {"--bytes", quick ? std::to_string(std::stod(mib) * 64) + "KiB"
                                                   : std::string(mib) + "MiB",
                                  "--verify", "off", "--order", "xy", "--line", "ring", "--link-latency", "1",
                                  "--buf", "8"};
    a.insert(a.end(), rest.begin(), rest.end());
    return a;
  };
  v.push_back({"torus32x32_2d_1MiB", {}, ar("1", {"--mesh", "32x32", "--topology", "torus", "--algo", "2d"}), ""});
  v.push_back({"torus32x32_2d_4MiB", {}, ar("4", {"--mesh", "32x32", "--topology", "torus", "--algo", "2d"}), ""});
  v.push_back({"mesh16x32_ft2d_board_2MiB", {},
               ar("2", {"--mesh", "16x32", "--algo", "ft2d", "--fail-board", "3,7"}), ""});
  // The report's own mix (report paper's runs are these kinds, at its links and
  // set-up): 16 MiB per chip (--quick: 1 MiB), chip-GB per second being the figure
  // its --budget estimate is made of.
  const auto rep = [&](std::vector<std::string> rest) {
    std::vector<std::string> a = {"--bytes", quick ? "1MiB" : "16MiB", "--verify", "off", "--order", "both",
                                  "--line", "auto", "--link-latency", "200", "--credit-latency", "200",
                                  "--buf", "408", "--chunk", "64KiB"};
    a.insert(a.end(), rest.begin(), rest.end());
    return a;
  };
  v.push_back({"report_torus16x32_ft2d_board", {},
               rep({"--mesh", "16x32", "--topology", "torus", "--algo", "ft2d", "--fail-board", "4,8"}), "report"});
  v.push_back({"report_mesh32x32_2d", {}, rep({"--mesh", "32x32", "--algo", "2d"}), "report"});
  v.push_back({"report_mesh16x32_snake_board", {},
               rep({"--mesh", "16x32", "--algo", "snake", "--fail-board", "4,8"}), "report"});
  for (Case& c : v)
    if (c.group.empty()) c.group = c.allreduce.empty() ? "traffic" : "allreduce";
  return v;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// --threads: a comma-separated list of 1..256.
std::vector<int> thread_list(const std::string& list) {
  std::vector<int> threads;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    const long t = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end || t < 1 || t > 256)
      throw UsageError("--threads " + list + ": allowed a comma-separated list of 1..256, e.g. 1,2");
    threads.push_back((int)t);
  }
  if (threads.empty()) throw UsageError("--threads: allowed a comma-separated list of 1..256, e.g. 1,2");
  return threads;
}

// --case: the case of that name, or the cases of that group.
std::vector<Case> select_cases(const std::vector<Case>& cases, const std::string& want) {
  std::vector<Case> keep;
  std::string names;
  for (const Case& c : cases) {
    names += (names.empty() ? "" : " | ") + c.name;
    if (c.name == want || c.group == want) keep.push_back(c);
  }
  if (keep.empty()) throw UsageError("--case " + want + ": allowed traffic | allreduce | report | " + names);
  return keep;
}

// The kernel options given (--parallel, --prefetch, ...), as each case's run takes them.
using KernelArgs = std::vector<std::pair<const Param*, std::string>>;

// One run of a case with nt threads, in this (child) process: its result JSON.
std::string run_case(const Case& c, int nt, const KernelArgs& kernel) {
  if (c.allreduce.empty()) {
    Config cfg = c.cfg;
    cfg.run.threads = nt;
    for (const auto& [p, v] : kernel) apply_option(*p, v, &cfg);
    return result_json(run_traffic(cfg)).dump();
  }
  std::vector<std::string> args = c.allreduce;
  args.push_back("--threads");
  args.push_back(std::to_string(nt));
  for (const auto& [p, v] : kernel) args.insert(args.end(), {"--" + std::string(p->name), v});
  po::options_description d;
  d.add(allreduce_options());
  po::variables_map avm;
  parse_args(args, d, "", &avm);
  const AllreduceResult r = run_allreduce(allreduce_config_from(avm));
  nlohmann::ordered_json j = allreduce_json(r);
  j[result_key::kFlitsSwitched] = r.totals.flits_switched;  // for flit-hops/s
  return j.dump();
}

// A case's runs at one thread count: per run its figures.
struct Samples {
  std::vector<double> rcs, fhs, wall, rss, act, gbps;
  uint64_t cycles = 0;
  double chip_gb = 0;  // allreduce: chips x bytes per chip, as the report counts its runs

  void add(const Case& c, const nlohmann::json& j) {
    namespace rk = result_key;
    const nlohmann::json& sim = j[rk::kSimulator];
    if (c.allreduce.empty()) {
      rcs.push_back(j[rk::kRouterCyclesPerSecond].get<double>());
      fhs.push_back(sim["flit_hops_per_second"].get<double>());
      wall.push_back(j[rk::kWallSeconds].get<double>());
      act.push_back(sim["router_activity"].get<double>());
    } else {
      rcs.push_back(sim["router_cycles_per_second"].get<double>());
      const double w = sim["wall_seconds"].get<double>();
      const auto& cf = j[rk::kConfig];
      int mw = 0, mh = 0;
      parse_wxh(cf["mesh"].get<std::string>(), &mw, &mh);
      chip_gb = (double)mw * mh * cf["bytes"].get<double>() / 1e9;
      // Set-up included, as the run store's rate (wall_seconds of a record).
      const double whole = w + sim.value("setup_seconds", 0.0);
      gbps.push_back(whole > 0 ? chip_gb / whole : 0);
      fhs.push_back(w > 0 ? j[rk::kFlitsSwitched].get<double>() / w : 0);
      wall.push_back(w);
      act.push_back(0);
    }
    rss.push_back(sim["peak_rss_kb"].get<double>());
    cycles = j[rk::kCycles].get<uint64_t>();
  }
};

}  // namespace

int cmd_bench(const std::vector<std::string>& args) {
  po::options_description desc("Benchmark");
  desc.add_options()
    ("repeat", po::value<int>()->default_value(3), "runs per case (median reported), 1..100")
    ("quick", po::bool_switch(), "one tenth of the cycles (smoke test)")
    ("case", po::value<std::string>(), "run only the case with this name, or the cases of a group: traffic, "
     "allreduce, report (the report's mix at its links, 16 MiB per chip)")
    ("threads", po::value<std::string>()->default_value("1"),
     "thread counts to run each case with, e.g. 1,2 (speed-up and efficiency against the first)")
    ("json", po::value<std::string>(), "write the figures as JSON");
  // The clock kernel's choices (models/config.h KernelOptions), the rows every simulating
  // command takes: to measure the barriers, or the prefetch hints either way.
  desc.add(schema_options("Clock kernel", Command::Traffic, is_kernel_row));
  po::variables_map vm;
  if (!parse_args(args, desc,
                  "usage: faultmesh bench [--repeat N] [--quick] [--case NAME] [--threads LIST] [--json FILE]\n"
                  "Speed of the simulator on fixed cases (uniform traffic, 2 VCs x 8 flits, "
                  "XY, 4-flit packets; allreduces at 512 and 1024 chips; the paper report's mix "
                  "at its links, in chip-GB per second); each run in a fresh process.",
                  &vm))
    return kExitOk;
  const int repeat = vm["repeat"].as<int>();
  if (repeat < 1 || repeat > 100) throw UsageError("--repeat " + std::to_string(repeat) + ": allowed 1..100");
  std::string json_path;
  if (vm.count("json")) {
    json_path = vm["json"].as<std::string>();
    check_writable(json_path, "--json");
  }
  std::vector<Case> cases = bench_cases(vm["quick"].as<bool>());
  if (vm.count("case")) cases = select_cases(cases, vm["case"].as<std::string>());
  const std::vector<int> threads = thread_list(vm["threads"].as<std::string>());
  KernelArgs kernel;
  for (const Param& p : params())
    if (is_kernel_row(p) && vm.count(p.name) && !vm[p.name].defaulted())
      kernel.push_back({&p, vm[p.name].as<std::string>()});
  {
    Config scratch;  // a bad value is a usage error here, before any case runs
    for (const auto& [p, v] : kernel) apply_option(*p, v, &scratch);
  }
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  std::printf("%-29s %3s %8s %13s %13s %8s %8s %6s %9s %7s %10s\n", "case", "thr", "cycles",
              "router-cyc/s", "flit-hops/s", "wall s", "speedup", "eff", "peak RSS", "active", "chip-GB/s");
  for (const Case& c : cases) {
    double wall1 = 0;
    for (size_t ti = 0; ti < threads.size(); ++ti) {
      const int nt = threads[ti];
      Samples sm;
      for (int i = 0; i < repeat; ++i) {
        const IsolatedResult ir = run_isolated([&] { return run_case(c, nt, kernel); });
        if (ir.exit_code != 0) {
          std::fprintf(stderr, "faultmesh: bench case %s failed: %s\n", c.name.c_str(), ir.output.c_str());
          return kExitRunFailed;
        }
        const auto j = nlohmann::json::parse(ir.output);
        if (!j[result_key::kOk].get<bool>()) {
          std::fprintf(stderr, "faultmesh: bench case %s did not complete\n", c.name.c_str());
          return kExitRunFailed;
        }
        sm.add(c, j);
      }
      const double w = median(sm.wall);
      if (ti == 0) wall1 = w;
      const double speedup = w > 0 ? wall1 / w : 0;
      const double eff = speedup * threads[0] / nt;
      const double rate_gbps = sm.gbps.empty() ? 0 : median(sm.gbps);
      char rate[16] = "-";
      if (sm.chip_gb > 0) std::snprintf(rate, sizeof rate, "%.4f", rate_gbps);
      std::printf("%-29s %3d %8llu %13.4g %13.4g %8.3f %7.2fx %5.0f%% %7.0fMB %6.1f%% %10s\n", c.name.c_str(),
                  nt, (unsigned long long)sm.cycles, median(sm.rcs), median(sm.fhs), w, speedup, 100 * eff,
                  median(sm.rss) / 1024, 100 * median(sm.act), rate);
      std::fflush(stdout);
      out.push_back({{"case", c.name}, {"threads", nt}, {"cycles", sm.cycles}, {"repeat", repeat},
                     {"router_cycles_per_second", median(sm.rcs)},
                     {"flit_hops_per_second", median(sm.fhs)}, {"wall_seconds", w},
                     {"speedup", speedup}, {"efficiency", eff},
                     {"peak_rss_kb", median(sm.rss)}, {"router_activity", median(sm.act)},
                     {"chip_gb", sm.chip_gb}, {"chip_gb_per_second", rate_gbps},
                     {"all_wall_seconds", sm.wall}});
    }
  }
  if (!json_path.empty()) write_file_atomic(json_path, out.dump(2) + "\n");
  return kExitOk;
}

}  // namespace fm
