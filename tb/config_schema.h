// The declared schema of every simulation parameter (docs/options.md): one row per
// parameter of Config, naming its option, the Config member it sets, its default (and
// the allreduce command's, where it differs), its range and unit, its help text and its
// key in the result's `config`. Everything else is made from the rows: the command-line
// and config-file options (sim/options.cpp), reading them into a Config (apply_option),
// validate(), the config echo of every result (config_json) and the parameter table of
// docs/options.md (params_markdown, checked against the page by a docs test). Adding a
// parameter is adding a row to params() in tb/config_params.cpp.
#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/config.h"

namespace fm {

// The commands whose options the rows declare. Routes takes the network rows only;
// latency-sweep, bench and traffic sweeps take Traffic's rows.
enum class Command : unsigned { Routes = 1, Traffic = 2, Allreduce = 4 };
// The part of Config a row sets; it also picks the --help group (Network: "Network and
// router"; Traffic and Run: "Traffic and run phases"; the rest: "Collective and chip").
enum class Section { Network, Traffic, Run, Collective, Chip, Recovery };

// How a row is declared to Boost.Program_options and read into Config.
enum class ParamKind {
  Int,     // int member, an integer option, range [lo, hi]
  Real,    // double member, a floating-point option, range [lo, hi] ((lo, hi] with lo_open)
  Cycles,  // uint64 member, an integer option (signed, so "-1" is refused, not wrapped), >= lo
  Text,    // parsed from its text by `parse` (names, sizes, WxH, "auto" or a number)
  List,    // repeatable, each value parsed by `parse` (which appends)
};

struct Param {
  const char* name;       // option, config-file key and key in the result's config
  Section section;
  unsigned commands;      // Command bits of the commands that take it
  const char* member;     // the Config member it sets ("net.vcs"), for the docs
  ParamKind kind;
  const char* help;       // one line for --help and the docs
  const char* unit = "";  // in range messages and the docs ("cycles", "GB/s")
  double lo = 0, hi = 0;  // Int, Real, Cycles: the allowed range (Cycles: hi unused)
  bool lo_open = false;   // Real: lo itself is not allowed
  const char* values = nullptr;  // Text, List: what is allowed, for --help and the docs
  // Int, Real, Cycles: the member. Exactly one is set for those kinds.
  int& (*int_ref)(Config&) = nullptr;
  double& (*real_ref)(Config&) = nullptr;
  uint64_t& (*cycles_ref)(Config&) = nullptr;
  // Text, List: reads one value into *c; returns "" or what follows "--NAME VALUE: " in
  // the error ("allowed mesh | torus"). May read rows above it in params() (the chunk
  // reads the gradient size and the flit size), never rows below.
  std::string (*parse)(const std::string& text, Config* c) = nullptr;
  // Text, List: the result's config value (numbers stay numbers).
  nlohmann::ordered_json (*echo)(const Config& c) = nullptr;
  // Text, List: validate()'s check of the member ("" when valid); the number rows'
  // range check needs none. Whole-config consistency lives in validate() itself.
  std::string (*check)(const Config& c) = nullptr;
  // The default as the help and docs show it, when it is not the member's value in
  // Config{} ("auto", "= --link-latency"). Int/Real/Cycles/Text rows without it show
  // Config{}'s value.
  const char* default_text = nullptr;
  const char* allreduce_default = nullptr;  // the allreduce command's default, where it differs
  // Allreduce, Int rows: when not given, the value is computed from the other rows once
  // all are read (buf: the credit round trip of the links given); allreduce_default is
  // then the text the help and the docs show.
  int (*allreduce_derive)(const Config& c) = nullptr;
  const char* follows = nullptr;  // not given: copy this row's value (credit-latency follows link-latency)
  const char* implicit = nullptr;  // the value of the option given alone (--verify: on)
  bool late = false;   // read after validate(): its values are checked against a valid mesh
  bool echoed = true;  // in the result's config (false: host resources that do not change results)

  bool takes(Command cmd) const { return commands & (unsigned)cmd; }
};

// Every row, in the order of the result's config (and of --help within a group).
const std::vector<Param>& params();
// The row of an option name; nullptr when none.
const Param* find_param(const std::string& name);

// The default of a row for a command, as typed on the command line ("8x8", "16MiB").
std::string param_default(const Param& p, Command cmd);
// Config{} with the command's defaults applied (allreduce: 4 VCs, 4 local lanes, 200-cycle
// links with buffers for their credit round trip).
Config defaults_for(Command cmd);
// Sets every derived row of the command (Param::allreduce_derive) that given(row) says
// the user did not give, from the values in *c.
void apply_derived(Command cmd, const std::function<bool(const Param&)>& given, Config* c);

// Reads one value of a row into *c; throws ConfigError "--NAME TEXT: ..." naming what is
// allowed. Int/Real/Cycles take their value as text here too (config-file style).
void apply_option(const Param& p, const std::string& text, Config* c);
// What a row allows: a number row's range with its unit ("1..16", "(0, 1e6] GB/s",
// ">= 1 cycles"), a text row's values ("mesh | torus").
std::string allowed_text(const Param& p);
// A number row's range check of an integer read by Boost before it is narrowed into the
// member: "--NAME V: allowed ..." or "".
std::string range_error(const Param& p, long double v);

// The result's config for a command: every echoed row the command takes, then the
// derived cycle_ns. `network_only`: the Network rows alone (what the route tables
// depend on, a sweep's cache key).
nlohmann::ordered_json config_json(const Config& c, Command cmd, bool network_only = false);

// Checks every field of every row the command takes and their consistency. Returns "" when valid,
// otherwise one line naming the option (by its command-line spelling) and what is allowed.
std::string validate(const Config& c, Command cmd);

// The parameter table of docs/options.md, generated from the rows.
std::string params_markdown();

}  // namespace fm
