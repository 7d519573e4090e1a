// Option groups shared by the subcommands that simulate a network with traffic.
#pragma once
#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/config.h"
#include "models/noc/network.h"
#include "sim/io.h"
#include "sim/po_error.h"
#include "tb/util/parse.h"  // parse_bytes, parse_wxh, parse_int_range
#include "tb/config_schema.h"
#include "tb/tracer.h"
#include "tb/traffic_run.h"

namespace fm {

namespace po = boost::program_options;

// The value of a real-valued schema row as Boost reads it (validate below): a double
// that the text gives exactly as a decimal number, refusing what underflows to 0 or
// overflows (Boost's own reading takes "1e-400" as 0).
struct StrictReal {
  double v = 0;
};
void validate(boost::any& v, const std::vector<std::string>& values, StrictReal*, int);

// A cycle-count option, declared po::value<long long>: throws UsageError "--NAME V:
// allowed >= LO cycles" below `lo`. Not an unsigned type: Boost reads "-1" into one as
// 2^64-1 (--detect-cycles -1 ran with that).
Cycle cycles_opt(const po::variables_map& vm, const char* name, long long lo);
// The options of the declared schema (tb/config_schema.h) that a command takes, in
// --help's groups: the network rows (every command with a network), and traffic's own.
po::options_description network_options(Command cmd = Command::Traffic);
po::options_description traffic_options();
// The schema rows `cmd` takes and `in` selects, as one --help group titled `title`.
po::options_description schema_options(const char* title, Command cmd, bool (*in)(const Param&));
// Reads the rows `cmd` takes that were given (or have a default) from vm into *c: those
// read before validate() (late false) or after it (late true: fault files and failures
// during the run, whose places need a valid mesh). Throws UsageError naming the option.
void rows_from(const po::variables_map& vm, Command cmd, bool late, Config* c);
po::options_description output_options();

// Parses args against `desc` (plus --config and --help), merging a config file when
// given (command line first). Returns false when --help was asked (help printed).
// Throws UsageError on any bad input.
bool parse_args(const std::vector<std::string>& args, const po::options_description& desc,
                const std::string& usage, po::variables_map* vm);
// Builds and validates the Config of `cmd` from parsed options: the command's defaults,
// every given row, validate(), then the late rows; throws UsageError. Ends with the
// network's memory estimate against --mem-limit unless `check_network_memory` is false
// (allreduce_config_from checks its whole estimate instead).
Config config_from(const po::variables_map& vm, Command cmd = Command::Traffic, bool check_network_memory = true);
Outputs outputs_from(const po::variables_map& vm);

// Waveform options (docs/waveforms.md): --vcd/--fst FILE, --wave-from/--wave-to,
// --wave-around-fault and, when `network` (a command that simulates a whole network),
// --wave-routers. A simulator command adds them with desc.add(wave_options()) and
// wave_from(vm, &cfg.net), then hands the WaveOptions to its run (Tracer::attach).
po::options_description wave_options(bool network = true);
// The allreduce command's options (network with 4 local lanes, collective and chip) and
// their validation into a Config (sim/allreduce_options.cpp); also used by sweeps. Checks
// the whole memory estimate (network, schedule, verified data) against --mem-limit.
po::options_description allreduce_options();
Config allreduce_config_from(const po::variables_map& vm);
// Every option of `faultmesh allreduce` (sim/allreduce_fingerprint.cpp).
po::options_description allreduce_command_options();
// The schedule fingerprint `faultmesh allreduce ARGS --fingerprint` prints (args
// without the command name), computed in this process, and in *config (when given) the
// configuration echo of the run's result (its "config"); throws UsageError for bad ARGS.
std::string allreduce_fingerprint(const std::vector<std::string>& args, nlohmann::ordered_json* config = nullptr);
// The configuration echo alone (no schedule built); throws UsageError for bad ARGS.
nlohmann::ordered_json allreduce_config_echo(const std::vector<std::string>& args);
// What a simulating command (traffic, allreduce) does with its output options: the
// result files, the run page, the waveform and the RTL-router switch, checked, and the
// run's options pointing at *wave (which must outlive the run). Throws UsageError.
void run_outputs_from(const po::variables_map& vm, const NetworkConfig& net, Outputs* out, WaveOptions* wave,
                      RunOptions* ro);
// The end of every simulating command: writes the JSON/CSV results, prints the summary
// (and which routers, where the waveform went, the tracer's note; `indent` prefixes
// those lines) and returns the exit code (kExitRunFailed with the reason when !ok).
int finish_run(const Outputs& out, nlohmann::ordered_json j, const std::string& summary,
               const char* indent, const RunOptions& ro, const WaveOptions& wave,
               const std::string& wave_note, bool ok, const std::string& stop_reason,
               const std::string& message);
// Validates them (throws UsageError naming the option); `net` checks --wave-routers
// coordinates against the mesh (nullptr for a command without a network).
WaveOptions wave_from(const po::variables_map& vm, const NetworkConfig* net);

// --rtl-routers (traffic, allreduce): build the network from verilated RTL routers, the
// mesh-level RTL check (docs/cosim.md). rtl_routers_from() checks it against the network
// (one local port, V/B/P and chips within the RTL build, no waveforms) and returns the
// router factory, or nullptr without the switch; throws UsageError naming the option.
po::options_description rtl_router_options();
RouterFactory rtl_routers_from(const po::variables_map& vm, const NetworkConfig& net, const WaveOptions& wave);

}  // namespace fm
