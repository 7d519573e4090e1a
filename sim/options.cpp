#include "sim/options.h"

#include "models/noc/fault_set.h"
#include "tb/util/parse.h"
#include "tb/config_schema.h"
#include "tb/memory.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>

namespace fm {

// A real option's value as Boost reads it for a schema row: the whole word a decimal
// number whose value a double holds. Boost's own reading takes "1e-400" as 0 (a rate of
// 0 for a rate the user gave), so a value that underflows or overflows is refused as
// invalid like any other malformed number.
void validate(boost::any& v, const std::vector<std::string>& values, StrictReal*, int) {
  po::validators::check_first_occurrence(v);
  const std::string& s = po::validators::get_single_string(values);
  const char* b = s.c_str();
  char* end = nullptr;
  errno = 0;
  const double x = std::strtod(b, &end);
  // inf and nan pass here: the row's range refuses them with its own message.
  const bool hex = s.find_first_of("xX") != std::string::npos;
  if (end == b || *end != '\0' || errno == ERANGE || hex || std::isspace((unsigned char)s[0]))
    throw po::invalid_option_value(s);
  v = boost::any(StrictReal{x});
}

namespace {

// A double default shown as typed ("0.1", not "0.10000000000000001").
po::typed_value<StrictReal>* dbl(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return po::value<StrictReal>()->default_value(StrictReal{v}, b);
}


}  // namespace

Cycle cycles_opt(const po::variables_map& vm, const char* name, long long lo) {
  const long long v = vm[name].as<long long>();
  if (v < lo)
    throw UsageError("--" + std::string(name) + " " + std::to_string(v) + ": allowed >= " +
                     std::to_string(lo) + " cycles");
  return (Cycle)v;
}

namespace {

// Refuses a result file that is also an input file of the run or another result file
// (--config c.ini --json c.ini replaced the config with the JSON). Every command's
// files go through here (parse_args); a command without one of them just skips it.
void check_files_distinct(const po::variables_map& vm) {
  static const char* const inputs[] = {"config", "fault-file", "fail-schedule"};
  static const char* const outputs[] = {"json", "csv", "vcd", "fst"};
  auto path = [&](const char* o) { return vm.count(o) ? vm[o].as<std::string>() : std::string(); };
  for (size_t k = 0; k < std::size(outputs); ++k) {
    const std::string out = path(outputs[k]);
    if (out.empty()) continue;
    for (const char* in : inputs)
      if (!path(in).empty() && same_file(out, path(in)))
        throw UsageError("--" + std::string(outputs[k]) + " " + out + " names the same file as --" + in + " " +
                         path(in) + ": a result must not overwrite an input; name another file");
    for (size_t e = 0; e < k; ++e)
      if (!path(outputs[e]).empty() && same_file(out, path(outputs[e])))
        throw UsageError("--" + std::string(outputs[k]) + " " + out + " names the same file as --" + outputs[e] +
                         " " + path(outputs[e]) + ": each result needs a file of its own");
  }
}

}  // namespace

po::options_description schema_options(const char* title, Command cmd, bool (*in)(const Param&)) {
  po::options_description o(title);
  for (const Param& p : params()) {
    if (!p.takes(cmd) || !in(p)) continue;
    const std::string def = param_default(p, cmd);
    const bool derived = cmd == Command::Allreduce && p.allreduce_derive;
    const bool has_default = !def.empty() && !p.follows && !derived && !p.late && p.kind != ParamKind::List &&
                             (p.default_text || p.echo || p.int_ref || p.real_ref || p.cycles_ref);
    const std::string range = allowed_text(p);
    std::string help = p.help;
    if (!range.empty()) help += "; allowed " + range;
    if (p.follows || derived) help += " (default " + def + ")";
    switch (p.kind) {
      case ParamKind::Int:
        o.add_options()(p.name, has_default ? po::value<int>()->default_value(std::stoi(def)) : po::value<int>(),
                        help.c_str());
        break;
      case ParamKind::Real:
        o.add_options()(p.name, dbl(std::stod(def)), help.c_str());
        break;
      case ParamKind::Cycles:  // signed: Boost reads "-1" into an unsigned type as 2^64-1
        o.add_options()(p.name, po::value<long long>()->default_value(std::stoll(def)), help.c_str());
        break;
      case ParamKind::Text: {
        po::typed_value<std::string>* v = po::value<std::string>();
        if (has_default) v->default_value(def);
        if (p.implicit) v->implicit_value(p.implicit);
        o.add_options()(p.name, v, help.c_str());
        break;
      }
      case ParamKind::List:
        o.add_options()(p.name, po::value<std::vector<std::string>>()->composing(), help.c_str());
        break;
    }
  }
  return o;
}

void rows_from(const po::variables_map& vm, Command cmd, bool late, Config* c) {
  for (const Param& p : params()) {
    if (!p.takes(cmd) || p.late != late) continue;
    if (!vm.count(p.name)) {
      if (p.follows && p.int_ref) p.int_ref(*c) = find_param(p.follows)->int_ref(*c);
      continue;
    }
    switch (p.kind) {
      case ParamKind::Int: p.int_ref(*c) = vm[p.name].as<int>(); break;  // validate() checks the range
      case ParamKind::Real: p.real_ref(*c) = vm[p.name].as<StrictReal>().v; break;
      case ParamKind::Cycles: {
        const long long v = vm[p.name].as<long long>();
        const std::string e = range_error(p, v);  // before it is narrowed into the unsigned member
        if (!e.empty()) throw UsageError(e);
        p.cycles_ref(*c) = (uint64_t)v;
        break;
      }
      case ParamKind::Text: apply_option(p, vm[p.name].as<std::string>(), c); break;
      case ParamKind::List:
        for (const std::string& s : vm[p.name].as<std::vector<std::string>>()) apply_option(p, s, c);
        break;
    }
  }
  if (!late) apply_derived(cmd, [&](const Param& p) { return vm.count(p.name) > 0; }, c);
}

po::options_description network_options(Command cmd) {
  return schema_options("Network and router", cmd, [](const Param& p) { return p.section == Section::Network; });
}

po::options_description traffic_options() {
  return schema_options("Traffic and run phases", Command::Traffic,
                        [](const Param& p) { return p.section != Section::Network; });
}

po::options_description output_options() {
  po::options_description o("Output");
  o.add_options()
    ("json", po::value<std::string>(), "write every statistic and the configuration as JSON")
    ("csv", po::value<std::string>(), "write the same as CSV (header + one row)")
    ("quiet,q", po::bool_switch(), "no human summary on stdout");
  return o;
}

namespace {

// Reads the protected substitutions (%value%, %option%, ...) of a Boost error.
struct SubstitutionsOf : po::error_with_option_name {
  static std::map<std::string, std::string> po::error_with_option_name::*member() {
    return &SubstitutionsOf::m_substitutions;
  }
};

// True when s holds a placeholder: '%', letters or '_', '%'.
bool has_placeholder(const std::string& s) {
  for (size_t a = s.find('%'); a != std::string::npos; a = s.find('%', a + 1)) {
    size_t b = a + 1;
    while (b < s.size() && (std::isalpha((unsigned char)s[b]) || s[b] == '_')) ++b;
    if (b > a + 1 && b < s.size() && s[b] == '%') return true;
  }
  return false;
}

}  // namespace

std::string po_error_text(const po::error& e) {
  const auto* named = dynamic_cast<const po::error_with_option_name*>(&e);
  if (!named) return e.what();
  // Boost (1.74) builds the message by replacing each %name% in it until none is left,
  // so user text that holds a placeholder ("vcs = %value%") made what() loop forever
  // while the message grew (found by fuzz_config). Such text is shown with each '%'
  // written as %25, which no placeholder matches.
  po::error_with_option_name copy = *named;
  for (const auto& [name, value] : copy.*SubstitutionsOf::member()) {
    if (!has_placeholder(value)) continue;
    std::string safe;
    for (char c : value) safe += c == '%' ? std::string("%25") : std::string(1, c);
    copy.set_substitute(name, safe);
  }
  return copy.what();
}

std::vector<std::string> take_arguments(po::parsed_options* parsed, size_t takes, const std::string& usage) {
  std::vector<po::option>& opts = parsed->options;
  auto is_word = [](const po::option& o) { return o.string_key.empty() && o.position_key >= 0; };
  for (size_t i = 0; i + 1 < opts.size(); ++i) {
    const po::option_description* d =
        parsed->description && !is_word(opts[i]) ? parsed->description->find_nothrow(opts[i].string_key, false) : nullptr;
    const bool implicit = d && d->semantic()->min_tokens() == 0 && d->semantic()->max_tokens() > 0;
    if (implicit && opts[i].value.empty() && is_word(opts[i + 1])) {
      opts[i].value = opts[i + 1].value;
      opts[i].original_tokens.push_back(opts[i + 1].value.front());
      opts.erase(opts.begin() + (long)i + 1);
    }
  }
  std::vector<std::string> words;
  for (size_t i = 0; i < opts.size(); ++i) {
    if (!is_word(opts[i])) continue;
    const std::string w = opts[i].value.empty() ? "" : opts[i].value.front();
    if (words.size() == takes) {
      std::string after;  // the option before, when it took a value: "--bytes 64" before "KiB"
      if (i > 0 && !is_word(opts[i - 1]) && !opts[i - 1].value.empty())
        for (const std::string& t : opts[i - 1].original_tokens) after += (after.empty() ? "" : " ") + t;
      throw UsageError("unexpected argument '" + w + "'" +
                       (after.empty() ? "" : " after '" + after + "' (an option's value is one word)") +
                       (usage.empty() ? "" : "; usage: " + usage));
    }
    words.push_back(w);
  }
  opts.erase(std::remove_if(opts.begin(), opts.end(), is_word), opts.end());
  return words;
}

bool parse_args(const std::vector<std::string>& args, const po::options_description& desc,
                const std::string& usage, po::variables_map* vm) {
  po::options_description all;
  all.add(desc);
  all.add_options()
    ("config", po::value<std::string>(), "INI config file: option = value per line (command line wins)")
    ("help,h", "show this help");
  try {
    po::parsed_options parsed = po::command_line_parser(args).options(all).run();
    const std::string first_line = usage.substr(0, usage.find('\n'));
    take_arguments(&parsed, 0, first_line.rfind("usage: ", 0) == 0 ? first_line.substr(7) : first_line);
    po::store(parsed, *vm);
    if (vm->count("help")) {
      std::cout << usage << "\n" << all << "\n";
      return false;
    }
    if (vm->count("config")) {
      const std::string f = (*vm)["config"].as<std::string>();
      std::ifstream in;
      open_input_file(f, "--config " + f, &in);
      po::store(po::parse_config_file(in, desc, false), *vm);
    }
    po::notify(*vm);
  } catch (const po::error& e) {
    throw UsageError(po_error_text(e) + " (see --help for the options and their values)");
  }
  check_files_distinct(*vm);
  return true;
}

Config config_from(const po::variables_map& vm, Command cmd, bool check_network_memory) {
  Config c = defaults_for(cmd);
  rows_from(vm, cmd, /*late=*/false, &c);
  const std::string err = validate(c, cmd);
  if (!err.empty()) throw UsageError(err);
  // After validate: the fault files' and the timed failures' places are checked against
  // a valid mesh, line by line.
  rows_from(vm, cmd, /*late=*/true, &c);
  if (check_network_memory) check_memory(estimate_network_memory(c.net, c.run.kernel), c.run.mem_limit);
  return c;
}

Outputs outputs_from(const po::variables_map& vm) {
  Outputs o;
  if (vm.count("json")) o.json = vm["json"].as<std::string>();
  if (vm.count("csv")) o.csv = vm["csv"].as<std::string>();
  if (vm.count("quiet")) o.quiet = vm["quiet"].as<bool>();
  // Given at all (an empty value too): "" would otherwise mean no file, silently.
  if (vm.count("json")) check_writable(o.json, "--json");
  if (vm.count("csv")) check_writable(o.csv, "--csv");
  return o;
}

}  // namespace fm

namespace fm {

po::options_description wave_options(bool network) {
  po::options_description o("Waveforms (docs/waveforms.md)");
  o.add_options()
    ("vcd", po::value<std::string>(), "write a VCD waveform of the traced routers and links here")
    ("fst", po::value<std::string>(), "write the same as FST (compressed; GTKWave opens it faster)")
    ("wave-from", po::value<long long>(), "first cycle written (default 0)")
    ("wave-to", po::value<long long>(), "last cycle written (default: the end of the run)")
    ("wave-around-fault", po::value<long long>(),
     network ? "write N cycles either side of the first fault event instead of --wave-from/--wave-to"
             : "write N cycles either side of the first mismatch instead of --wave-from/--wave-to");
  if (network)
    o.add_options()("wave-routers", po::value<std::string>(),
                    "routers to trace: x,y;x,y;... or all (default: all up to 16 chips, else "
                    "(0,0), the centre and the chips next to the first fault)");
  return o;
}

WaveOptions wave_from(const po::variables_map& vm, const NetworkConfig* net) {
  WaveOptions w;
  const bool vcd = vm.count("vcd"), fst = vm.count("fst");
  if (vcd && fst)
    throw UsageError("--vcd and --fst: give one of them (one waveform file per run)");
  if (!vcd && !fst) {
    for (const char* o : {"wave-from", "wave-to", "wave-around-fault", "wave-routers"})
      if (vm.count(o)) throw UsageError("--" + std::string(o) + ": needs --vcd FILE or --fst FILE");
    return w;
  }
  w.format = vcd ? WaveFormat::Vcd : WaveFormat::Fst;
  w.option = vcd ? "--vcd" : "--fst";
  w.path = vm[vcd ? "vcd" : "fst"].as<std::string>();
  check_writable(w.path, w.option.c_str());
  if (vm.count("wave-from")) w.from = cycles_opt(vm, "wave-from", 0);
  if (vm.count("wave-to")) w.to = cycles_opt(vm, "wave-to", 0);
  if (w.from > w.to)
    throw UsageError("--wave-from " + std::to_string(w.from) + " is after --wave-to " + std::to_string(w.to) +
                     ": the window must have --wave-from <= --wave-to");
  if (vm.count("wave-around-fault")) {
    if (vm.count("wave-from") || vm.count("wave-to"))
      throw UsageError("--wave-around-fault: give either it or --wave-from/--wave-to, not both");
    w.around = cycles_opt(vm, "wave-around-fault", 0);
  }
  if (vm.count("wave-routers")) {
    const std::string s = vm["wave-routers"].as<std::string>();
    if (s == "all") {
      w.all_routers = true;
    } else {
      size_t a = 0;
      while (a <= s.size()) {
        size_t b = s.find(';', a);
        if (b == std::string::npos) b = s.size();
        const std::string item = s.substr(a, b - a);
        Coord k;
        if (!parse_coord(item, &k))
          throw UsageError("--wave-routers " + s + ": expected all or x,y;x,y;... (bad item '" + item + "')");
        w.routers.push_back(k);
        a = b + 1;
      }
    }
    if (net) traced_routers(*net, w);  // throws ConfigError (= UsageError) for a chip outside the mesh
  }
  return w;
}

}  // namespace fm
