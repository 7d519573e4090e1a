// The allreduce command's options and their validation into a Config (sim/options.h),
// apart from the command itself so that the option parsers build without the
// simulator (sweep specs use them too; tests/fuzz/ links them alone).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "models/collective/algorithms.h"
#include "models/noc/fault_set.h"
#include "sim/io.h"
#include "sim/options.h"
#include "tb/allreduce_run.h"
#include "tb/memory.h"

namespace fm {

po::options_description allreduce_options() {
  po::options_description desc;
  desc.add(network_options(Command::Allreduce))
      .add(schema_options("Collective and chip", Command::Allreduce,
                          [](const Param& p) { return p.section != Section::Network; }));
  return desc;
}

Config allreduce_config_from(const po::variables_map& vm) {
  // One memory check, once the collective is known: of the whole estimate, never a
  // partial one of the network alone that a smaller limit would report first.
  Config cfg = config_from(vm, Command::Allreduce, /*check_network_memory=*/false);
  check_memory(estimate_allreduce_memory(cfg, FaultSet(cfg.net), verifies(cfg)), cfg.run.mem_limit);
  return cfg;
}

}  // namespace fm
