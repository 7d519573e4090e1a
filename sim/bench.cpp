// faultmesh bench: the simulator's speed on fixed cases (issue #2's list), each run in
// a fresh child process `--repeat` times, medians printed. A benchmark, not a test.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "sim/cli.h"
#include "sim/options.h"
#include "tb/isolated.h"
#include "tb/traffic_run.h"

namespace fm {

namespace {

struct Case {
  std::string name;
  Config cfg;
};

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
  v.push_back({"mesh8x8_uniform_0.1", base(8, 8, 0.1, 20000 / k)});
  v.push_back({"mesh16x16_uniform_0.1", base(16, 16, 0.1, 20000 / k)});
  v.push_back({"mesh32x32_uniform_0.05", base(32, 32, 0.05, 10000 / k)});
  // Idle cost: one active pair, (0,0) -> (31,31), on a 32x32 mesh.
  Config pair = base(32, 32, 0.1, 10000 / k);
  pair.traffic.pattern = Pattern::BitComplement;
  pair.traffic.sources = {{0, 0}};
  v.push_back({"mesh32x32_one_pair", pair});
  return v;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

int cmd_bench(const std::vector<std::string>& args) {
  po::options_description desc("Benchmark");
  desc.add_options()
    ("repeat", po::value<int>()->default_value(3), "runs per case (median reported), 1..100")
    ("quick", po::bool_switch(), "one tenth of the cycles (smoke test)")
    ("case", po::value<std::string>(), "run only the case with this name")
    ("json", po::value<std::string>(), "write the figures as JSON");
  po::variables_map vm;
  if (!parse_args(args, desc,
                  "usage: faultmesh bench [--repeat N] [--quick] [--case NAME] [--json FILE]\n"
                  "Speed of the simulator on fixed cases (uniform traffic, 2 VCs x 8 flits, "
                  "XY, 4-flit packets); each run in a fresh process.",
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
  if (vm.count("case")) {
    const std::string want = vm["case"].as<std::string>();
    std::vector<Case> keep;
    std::string names;
    for (auto& c : cases) {
      names += (names.empty() ? "" : " | ") + c.name;
      if (c.name == want) keep.push_back(c);
    }
    if (keep.empty()) throw UsageError("--case " + want + ": allowed " + names);
    cases = keep;
  }
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  std::printf("%-26s %8s %14s %14s %9s %10s %9s\n", "case", "cycles", "router-cyc/s",
              "flit-hops/s", "wall s", "peak RSS", "active");
  for (const Case& c : cases) {
    std::vector<double> rcs, fhs, wall, rss, act;
    uint64_t cycles = 0;
    for (int i = 0; i < repeat; ++i) {
      const IsolatedResult ir = run_isolated([&] { return result_json(run_traffic(c.cfg)).dump(); });
      if (ir.exit_code != 0) {
        std::fprintf(stderr, "faultmesh: bench case %s failed: %s\n", c.name.c_str(), ir.output.c_str());
        return kExitRunFailed;
      }
      const auto j = nlohmann::json::parse(ir.output);
      if (!j["ok"].get<bool>()) {
        std::fprintf(stderr, "faultmesh: bench case %s did not drain\n", c.name.c_str());
        return kExitRunFailed;
      }
      rcs.push_back(j["router_cycles_per_second"].get<double>());
      fhs.push_back(j["simulator"]["flit_hops_per_second"].get<double>());
      wall.push_back(j["wall_seconds"].get<double>());
      rss.push_back(j["simulator"]["peak_rss_kb"].get<double>());
      act.push_back(j["simulator"]["router_activity"].get<double>());
      cycles = j["cycles"].get<uint64_t>();
    }
    std::printf("%-26s %8llu %14.4g %14.4g %9.3f %8.0fMB %8.1f%%\n", c.name.c_str(),
                (unsigned long long)cycles, median(rcs), median(fhs), median(wall),
                median(rss) / 1024, 100 * median(act));
    std::fflush(stdout);
    out.push_back({{"case", c.name}, {"cycles", cycles}, {"repeat", repeat},
                   {"router_cycles_per_second", median(rcs)},
                   {"flit_hops_per_second", median(fhs)}, {"wall_seconds", median(wall)},
                   {"peak_rss_kb", median(rss)}, {"router_activity", median(act)},
                   {"all_router_cycles_per_second", rcs}});
  }
  if (!json_path.empty()) write_file_atomic(json_path, out.dump(2) + "\n");
  return kExitOk;
}

}  // namespace fm
