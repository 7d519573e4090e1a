#include <iostream>

#include "sim/cli.h"
#include "sim/io.h"
#include "sim/options.h"
#include "tb/config_schema.h"

namespace fm {

// `faultmesh options`: the declared schema's parameter table (tb/config_schema.h), the
// same text docs/options.md holds.
int cmd_options(const std::vector<std::string>& args) {
  po::options_description none;
  po::variables_map vm;
  if (!parse_args(args, none,
                  "usage: faultmesh options\nEvery simulation parameter as a Markdown table (docs/options.md).", &vm))
    return kExitOk;
  std::cout << params_markdown();
  return kExitOk;
}

}  // namespace fm
