// The allreduce command's whole option set, and the fingerprint of the schedules a run
// of it executes, without simulating (sim/options.h): `faultmesh allreduce
// --fingerprint` prints it, and the paper report asks it in process of every run it
// would reuse from its store.
#include "models/collective/algorithms.h"
#include "sim/io.h"
#include "sim/options.h"
#include "sim/view.h"
#include "tb/allreduce_run.h"

namespace fm {

// Every option of `faultmesh allreduce`.
po::options_description allreduce_command_options() {
  po::options_description desc;
  desc.add(allreduce_options()).add(output_options()).add(html_options()).add(wave_options())
      .add(rtl_router_options());
  // The run store's question (docs/results.md): would this configuration run the same
  // schedules as a stored result? Answered without simulating.
  po::options_description fp("Schedule fingerprint");
  fp.add_options()("fingerprint", po::bool_switch(),
                   "print the fingerprint of the schedules this run would execute and the model version as "
                   "JSON on stdout, and exit without simulating");
  desc.add(fp);
  return desc;
}

namespace {

Config allreduce_config_of(const std::vector<std::string>& args) {
  const po::options_description desc = allreduce_command_options();
  po::variables_map vm;
  if (!parse_args(args, desc, "", &vm)) throw UsageError("allreduce: --help is not a run");
  return allreduce_config_from(vm);
}

}  // namespace

std::string allreduce_fingerprint(const std::vector<std::string>& args, nlohmann::ordered_json* config) {
  const Config cfg = allreduce_config_of(args);
  if (config) *config = config_json(cfg, Command::Allreduce);
  return schedule_fingerprint(cfg);
}

nlohmann::ordered_json allreduce_config_echo(const std::vector<std::string>& args) {
  return config_json(allreduce_config_of(args), Command::Allreduce);
}

}  // namespace fm
