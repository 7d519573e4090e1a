// Option groups shared by the subcommands that simulate a network with traffic.
#pragma once
#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "models/config.h"
#include "sim/cli.h"

namespace fm {

namespace po = boost::program_options;

// Network, traffic and run options with their defaults taken from Config{}.
// defaults: what the command uses when an option is not given (Config{} for most).
po::options_description network_options(const NetworkConfig& defaults = NetworkConfig{});
po::options_description traffic_options();
po::options_description output_options();

// Parses args against `desc` (plus --config and --help), merging a config file when
// given (command line first). Returns false when --help was asked (help printed).
// Throws UsageError on any bad input.
bool parse_args(const std::vector<std::string>& args, const po::options_description& desc,
                const std::string& usage, po::variables_map* vm);
// Builds and validates the Config from parsed options; throws UsageError.
Config config_from(const po::variables_map& vm);
Outputs outputs_from(const po::variables_map& vm);

}  // namespace fm
