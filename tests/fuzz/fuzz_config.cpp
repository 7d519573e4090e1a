// fuzz_config: the bytes are an INI config file (--config FILE), parsed and validated
// the way `faultmesh traffic` and `faultmesh allreduce` do before simulating: the same
// option sets, parse_args, config_from / allreduce_config_from, outputs_from, wave_from
// and rtl_routers_from. Invariant: a Config, or a UsageError with a message; any other
// exception, a crash or a sanitizer report is a finding.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "sim/io.h"
#include "sim/options.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

// One file per fuzzing process, rewritten for every input (parse_args reads a path).
const std::string& config_path() {
  static const std::string p = [] {
    const char* dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    return std::string(dir) + "/faultmesh_fuzz_config." + std::to_string(getpid()) + ".ini";
  }();
  static const bool cleanup = std::atexit([] { std::remove(p.c_str()); }) == 0;
  (void)cleanup;
  return p;
}

void run(bool allreduce, const std::string& path) {
  using namespace fm;
  po::options_description desc;
  if (allreduce) desc.add(allreduce_options());
  else desc.add(network_options()).add(traffic_options());
  desc.add(output_options()).add(wave_options()).add(rtl_router_options());
  try {
    po::variables_map vm;
    if (!parse_args({"--config", path}, desc, "", &vm)) return;
    const Config cfg = allreduce ? allreduce_config_from(vm) : config_from(vm);
    outputs_from(vm);
    const WaveOptions wave = wave_from(vm, &cfg.net);
    rtl_routers_from(vm, cfg.net, wave);
    fuzz::note(std::string(allreduce ? "allreduce" : "traffic") + ": accepted");
  } catch (const ConfigError& e) {
    fuzz::expect_message(e);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = config_path();
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write((const char*)data, (std::streamsize)size);
  }
  run(false, path);
  run(true, path);
  return 0;
}
