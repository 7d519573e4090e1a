// faultmesh cosim: the lockstep co-simulation of the verilated RTL router against the
// SystemC model Router (tb/cosim.h) under closed-loop random traffic, for one of the
// verilated configurations (RTL parameters are compile-time, so only those exist).
#include <iostream>

#include "sim/cli.h"
#include "sim/options.h"
#include "tb/cosim.h"

namespace fm {

int cmd_cosim(const std::vector<std::string>& args) {
  po::options_description desc("Co-simulation");
  desc.add_options()
    ("vcs", po::value<int>()->default_value(2), "virtual channels per port")
    ("buf", po::value<int>()->default_value(4), "buffer depth, flits per VC")
    ("pipeline", po::value<int>()->default_value(3), "router pipeline depth in cycles")
    ("arbiter", po::value<std::string>()->default_value("rr"), "arbiter pointer rule: rr | islip")
    ("cycles", po::value<long long>()->default_value(100000), "cycles to simulate, >= 1")
    ("seed", po::value<long long>()->default_value(1), "stimulus seed, 0..4294967295")
    ("json", po::value<std::string>(), "write agreed/cycles/flits_compared/credits_compared/mismatch here");
  desc.add(wave_options(false));
  po::variables_map vm;
  if (!parse_args(args, desc,
                  "usage: faultmesh cosim [options]\n"
                  "Lockstep co-simulation of the verilated RTL router against the SystemC model\n"
                  "router: closed-loop random traffic, every output flit and credit compared\n"
                  "every cycle, stop at the first mismatch. Verilated configurations: " +
                      rtl_config_list() + ".",
                  &vm))
    return kExitOk;
  const std::string arb = vm["arbiter"].as<std::string>();
  if (arb != "rr" && arb != "islip") throw UsageError("--arbiter " + arb + ": allowed rr | islip");
  const long long cycles = vm["cycles"].as<long long>(), seed = vm["seed"].as<long long>();
  if (cycles < 1) throw UsageError("--cycles " + std::to_string(cycles) + ": must be >= 1");
  if (seed < 0 || seed > 0xffffffffLL)
    throw UsageError("--seed " + std::to_string(seed) + ": allowed 0..4294967295");
  const int vcs = vm["vcs"].as<int>(), buf = vm["buf"].as<int>(), pipe = vm["pipeline"].as<int>();
  const auto cfg = find_rtl_config(vcs, buf, pipe, arb == "islip");
  if (!cfg)
    throw UsageError("--vcs " + std::to_string(vcs) + " --buf " + std::to_string(buf) + " --pipeline " +
                     std::to_string(pipe) + " --arbiter " + arb +
                     ": not a verilated RTL configuration (RTL parameters are compile-time); available: " +
                     rtl_config_list());
  std::string json;
  if (vm.count("json")) {
    json = vm["json"].as<std::string>();
    check_writable(json, "--json");
  }
  const WaveOptions wave = wave_from(vm, nullptr);
  CosimParams p;
  p.cycles = (uint64_t)cycles;
  p.seed = (uint32_t)seed;
  p.wave = &wave;
  const CosimResult r = run_cosim(*cfg, p);
  if (!r.wave_note.empty()) std::cerr << "faultmesh: note: " << r.wave_note << "\n";
  if (!json.empty()) write_file_atomic(json, to_json(r).dump(2) + "\n");
  if (!r.agreed) {
    std::cout << "faultmesh cosim " << cfg->name << ", seed " << seed << ": MISMATCH after " << r.cycles
              << " cycles (" << r.flits_compared << " flits, " << r.credits_compared
              << " credits compared)\n  " << r.mismatch << "\n";
    return kExitRunFailed;
  }
  std::cout << "faultmesh cosim " << cfg->name << ", seed " << seed << ": agreed on " << r.cycles
            << " cycles, " << r.flits_compared << " flits and " << r.credits_compared
            << " credits compared\n";
  return kExitOk;
}

}  // namespace fm
