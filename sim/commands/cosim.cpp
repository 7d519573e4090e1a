// faultmesh cosim: the lockstep co-simulation of the verilated RTL router against the
// SystemC model Router (tb/cosim.h) under closed-loop random traffic, for any router
// configuration within the bounds of the verilated RTL build (V, B, P and the arbiter
// are run-time configuration pins of the RTL).
#include <iostream>

#include "sim/cli.h"
#include "sim/io.h"
#include "sim/options.h"
#include "tb/config_schema.h"
#include "tb/cosim.h"

namespace fm {

int cmd_cosim(const std::vector<std::string>& args) {
  const RtlBounds b = rtl_bounds();
  const auto range = [](int hi) { return " (1.." + std::to_string(hi) + ")"; };
  // The router parameters keep the network's defaults and help (tb/config_schema.h);
  // their ranges are the RTL build's.
  const NetworkConfig d;
  const auto help = [](const char* name) { return std::string(find_param(name)->help); };
  po::options_description desc("Co-simulation");
  desc.add_options()
    ("vcs", po::value<int>()->default_value(d.vcs), (help("vcs") + range(b.max_vcs)).c_str())
    ("buf", po::value<int>()->default_value(d.buf), (help("buf") + range(b.max_buf)).c_str())
    ("pipeline", po::value<int>()->default_value(d.pipeline), (help("pipeline") + range(b.max_pipeline)).c_str())
    ("arbiter", po::value<std::string>()->default_value(to_string(d.arbiter)), (help("arbiter") + "; rr | islip").c_str())
    ("cycles", po::value<long long>()->default_value(100000), "cycles to simulate, >= 1")
    ("seed", po::value<long long>()->default_value(1), "stimulus seed, 0..4294967295")
    ("watchdog", po::value<long long>()->default_value(10000),
     "fail when no flit leaves either router for this many cycles while flits wait, >= 1")
    ("json", po::value<std::string>(), "write agreed/cycles/flits_compared/credits_compared/mismatch here");
  desc.add(wave_options(false));
  po::variables_map vm;
  if (!parse_args(args, desc,
                  "usage: faultmesh cosim [options]\n"
                  "Lockstep co-simulation of the verilated RTL router against the SystemC model\n"
                  "router: closed-loop random traffic, every output flit and credit compared\n"
                  "every cycle, stop at the first mismatch. One verilated RTL build runs every\n"
                  "configuration within its bounds (V 1.." +
                      std::to_string(b.max_vcs) + ", B 1.." + std::to_string(b.max_buf) + ", P 1.." +
                      std::to_string(b.max_pipeline) + ", rr or islip), set on its configuration pins.",
                  &vm))
    return kExitOk;
  const std::string arb = vm["arbiter"].as<std::string>();
  if (arb != "rr" && arb != "islip") throw UsageError("--arbiter " + arb + ": allowed rr | islip");
  const Cycle cycles = cycles_opt(vm, "cycles", 1);
  const long long seed = vm["seed"].as<long long>();
  if (seed < 0 || seed > 0xffffffffLL)
    throw UsageError("--seed " + std::to_string(seed) + ": allowed 0..4294967295");
  const Cycle watchdog = cycles_opt(vm, "watchdog", 1);
  RtlConfig cfg;
  cfg.vcs = vm["vcs"].as<int>();
  cfg.buf = vm["buf"].as<int>();
  cfg.pipeline = vm["pipeline"].as<int>();
  cfg.islip = arb == "islip";
  const std::string bad = rtl_config_error(cfg);
  if (!bad.empty()) throw UsageError(bad);
  std::string json;
  if (vm.count("json")) {
    json = vm["json"].as<std::string>();
    check_writable(json, "--json");
  }
  const WaveOptions wave = wave_from(vm, nullptr);
  CosimParams p;
  p.cycles = (uint64_t)cycles;
  p.seed = (uint32_t)seed;
  p.watchdog = (uint64_t)watchdog;
  p.wave = &wave;
  const CosimResult r = run_cosim(cfg, p);
  if (!r.wave_note.empty()) std::cerr << "faultmesh: note: " << r.wave_note << "\n";
  if (!json.empty()) write_file_atomic(json, to_json(r).dump(2) + "\n");
  if (!r.agreed) {
    std::cout << "faultmesh cosim " << cfg.name() << ", seed " << seed << (r.mismatch.find(": watchdog:") != std::string::npos ? ": STOPPED (watchdog) after " : ": MISMATCH after ") << r.cycles
              << " cycles (" << r.flits_compared << " flits, " << r.credits_compared
              << " credits compared)\n  " << r.mismatch << "\n";
    return kExitRunFailed;
  }
  std::cout << "faultmesh cosim " << cfg.name() << ", seed " << seed << ": agreed on " << r.cycles
            << " cycles, " << r.flits_compared << " flits and " << r.credits_compared
            << " credits compared\n";
  return kExitOk;
}

}  // namespace fm
