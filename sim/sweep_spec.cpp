// Sweep specs: the INI file (Boost.Program_options config-file syntax) that names the
// subcommand, its base options and the axes, expanded into points and validated against
// the subcommand's real option set before anything runs. Format: docs/sweeps.md.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "models/collective/algorithms.h"
#include "models/noc/fault_set.h"
#include "models/routing/routes.h"
#include "sim/io.h"
#include "sim/options.h"
#include "sim/sweep.h"
#include "tb/util/parse.h"
#include "tb/traffic_pattern.h"
#include "tb/traffic_run.h"

namespace fm {

namespace {

// A subcommand a sweep can run: the options a point may set (the sweep adds --json and
// -q itself), and the check a point's parsed options must pass before anything runs
// (the same parsing and validation the subcommand does, without simulating).
// To make another subcommand sweepable, add its row here.
struct Sweepable {
  const char* name;
  std::function<po::options_description()> options;
  std::function<void(const po::variables_map&)> validate;
};

const std::vector<Sweepable>& sweepables() {
  static const std::vector<Sweepable> t = {
      {"traffic",
       [] {
         po::options_description d;
         d.add(network_options()).add(traffic_options());
         return d;
       },
       [](const po::variables_map& vm) {
         const Config c = config_from(vm);
         // What the run refuses before simulating, checked up front too: faults that
         // cut chips off or that the routing scheme cannot route around (route sets are
         // built once per distinct network, not per point), hotspots on dead chips.
         const FaultSet f(c.net);
         static std::map<std::string, std::string> routed;  // network -> error ("" = ok)
         const nlohmann::ordered_json key = config_json(c, Command::Traffic, /*network_only=*/true);
         auto it = routed.find(key.dump());
         if (it == routed.end()) {
           std::string err;
           try {
             build_routes(c.net, f);
           } catch (const ConfigError& e) {
             err = e.what();
           }
           it = routed.emplace(key.dump(), err).first;
         }
         if (!it->second.empty()) throw UsageError(it->second);
         TrafficPattern check(c.net, c.traffic, f);
       }},
      {"allreduce",
       [] { return allreduce_options(); },
       [](const po::variables_map& vm) {
         // What the run refuses before simulating: bad options, faults that cut chips
         // off, and an algorithm that cannot run on the fault set (compiled on a tiny
         // buffer: the refusal does not depend on the size).
         const Config c = allreduce_config_from(vm);
         const FaultSet f(c.net);
         const std::string conn = f.connectivity();
         if (!conn.empty()) throw UsageError(conn);
         coll::AlgoParams p;
         p.algo = c.coll.algo;
         p.order = c.coll.order;
         p.words = p.chunk_words = 64;
         coll::build_schedule(f, p);
       }},
  };
  return t;
}

// Options the sweep sets on every point itself; a spec may not.
const std::set<std::string> kReserved = {"json", "csv", "quiet", "help"};

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1);
}

std::string fmt_number(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.10g", std::fabs(v) < 1e-12 ? 0.0 : v);
  return b;
}

std::string allowed_list(const po::options_description& d) {
  std::string s;
  for (const auto& o : d.options())
    if (!kReserved.count(o->long_name())) s += (s.empty() ? "" : " ") + o->long_name();
  return s + " config";
}

// Appends "--name value" (or several, or none) for one option occurrence.
void add_arg(const po::options_description& d, const std::string& name, const std::string& value,
             std::vector<std::string>* args) {
  if (value == "-") return;
  const po::option_description* od = d.find_nothrow(name, false);
  if (od && od->semantic()->max_tokens() == 0) {  // a switch: true/false
    if (value == "true" || value == "1" || value == "yes") args->push_back("--" + name);
    else if (value != "false" && value != "0" && value != "no")
      throw UsageError("option " + name + " = " + value + ": a switch takes true or false");
    return;
  }
  if (od && od->semantic()->is_composing() && value.find_first_of(" \t") != std::string::npos) {
    std::istringstream in(value);  // repeatable option: "0,0 3,3" = given twice
    std::string part;
    while (in >> part) {
      args->push_back("--" + name);
      args->push_back(part);
    }
    return;
  }
  args->push_back("--" + name);
  args->push_back(value);
}

std::string describe(const OptionList& axis_opts) {
  std::string s;
  for (const auto& [k, v] : axis_opts) s += (s.empty() ? "" : " ") + k + "=" + v;
  return s;
}

}  // namespace

std::string point_name(int id, int n_points) {
  int w = 1;
  for (int m = std::max(n_points - 1, 0); m >= 10; m /= 10) ++w;
  char b[32];
  std::snprintf(b, sizeof b, "%0*d", std::max(w, 4), id);
  return b;
}

std::vector<std::string> parse_axis_values(const std::string& text, const std::string& what,
                                           bool commas_in_values) {
  const std::string t = trim(text);
  if (t.empty()) throw UsageError(what + ": empty value list");
  const char sep = commas_in_values || t.find(';') != std::string::npos ? ';' : ',';
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(t);
  while (std::getline(in, item, sep)) {
    item = trim(item);
    if (item.empty()) throw UsageError(what + " = " + t + ": empty value in the list");
    double a, b, st;
    if (parse_step_range(item, &a, &b, &st)) {
      if (!(st > 0) || b < a)
        throw UsageError(what + " = " + item + ": a range A:B:STEP needs STEP > 0 and B >= A");
      const double n = std::floor((b - a) / st + 1e-9);
      if (n > 100000) throw UsageError(what + " = " + item + ": more than 100000 values");
      for (int i = 0; i <= (int)n; ++i) out.push_back(fmt_number(a + i * st));
    } else {
      out.push_back(item);
    }
  }
  if (t.back() == sep) throw UsageError(what + " = " + t + ": empty value in the list");
  return out;
}

SweepSpec read_sweep_spec(const std::string& path) {
  std::ifstream in;
  open_input_file(path, "sweep spec " + path, &in);
  return parse_sweep_spec(in, path);
}

SweepSpec parse_sweep_spec(std::istream& in, const std::string& path, size_t max_points) {
  const std::string where = "sweep spec " + path;
  po::parsed_options parsed(nullptr);
  try {
    po::options_description none;
    parsed = po::parse_config_file(in, none, true);
  } catch (const po::error& e) {
    throw UsageError(where + ": " + po_error_text(e));
  }
  SweepSpec s;
  std::vector<std::pair<std::string, std::string>> axis_lines;  // (section.key, value)
  for (const po::option& o : parsed.options) {
    const std::string key = o.string_key;
    const std::string val = o.value.empty() ? "" : o.value.front();
    const auto dot = key.find('.');
    const std::string section = dot == std::string::npos ? "" : key.substr(0, dot);
    const std::string name = dot == std::string::npos ? key : key.substr(dot + 1);
    if (section.empty()) {
      if (name != "command")
        throw UsageError(where + ": unknown setting '" + name +
                         "' (allowed at the top: command; sections: [base] [axes] [zip])");
      s.command = trim(val);
    } else if (section == "base") {
      s.base.emplace_back(name, trim(val));
    } else if (section == "axes" || section == "zip") {
      axis_lines.emplace_back(key, val);
    } else {
      throw UsageError(where + ": unknown section [" + section + "] (allowed [base] [axes] [zip])");
    }
  }
  if (s.command.empty()) throw UsageError(where + ": no 'command = ...' line (e.g. command = traffic)");
  const Sweepable* cmd = nullptr;
  std::string names;
  for (const Sweepable& c : sweepables()) {
    names += (names.empty() ? "" : " | ") + std::string(c.name);
    if (s.command == c.name) cmd = &c;
  }
  if (!cmd)
    throw UsageError(where + ": command = " + s.command + ": not a sweepable faultmesh command; allowed " + names);
  const po::options_description desc = cmd->options();
  auto check_name = [&](const std::string& name, const std::string& what) {
    // An empty name ("= 1,2" under [axes]) made find_nothrow throw Boost's
    // ambiguous_option, reported as an internal error (found by fuzz_sweep_spec).
    if (name.empty())
      throw UsageError(where + ": " + what + " with no name (a line '= value'; expected 'option = value')");
    if (kReserved.count(name))
      throw UsageError(where + ": " + what + " '" + name + "': set by the sweep itself (each point writes its own JSON)");
    if (name != "config" && !desc.find_nothrow(name, false))
      throw UsageError(where + ": " + what + " '" + name + "' is not an option of '" + s.command +
                       "'; allowed: " + allowed_list(desc));
  };
  for (const auto& [name, v] : s.base) check_name(name, "base option");
  std::set<std::string> seen;
  for (const auto& [key, val] : axis_lines) {
    SweepAxis a;
    a.zipped = key.compare(0, 4, "zip.") == 0;
    a.option = key.substr(key.find('.') + 1);
    check_name(a.option, "axis");
    if (!seen.insert(a.option).second) throw UsageError(where + ": axis '" + a.option + "' given twice");
    for (const auto& b : s.base)
      if (b.first == a.option)
        throw UsageError(where + ": '" + a.option + "' is both a base option and an axis");
    // Repeatable options take coordinates ("1,1", "4,4:E"): their lists split at ';' only.
    const po::option_description* od = desc.find_nothrow(a.option, false);
    a.values = parse_axis_values(val, where + ": axis " + a.option, od && od->semantic()->is_composing());
    s.axes.push_back(a);
  }
  // Dimensions of the grid: each [axes] axis is one; the [zip] axes together are one,
  // placed where the first of them appears. The first dimension is the outermost loop.
  std::vector<std::vector<int>> dims;
  int zip_dim = -1;
  size_t zip_len = 0;
  for (int i = 0; i < (int)s.axes.size(); ++i) {
    if (!s.axes[i].zipped) {
      dims.push_back({i});
      continue;
    }
    if (zip_dim < 0) {
      zip_dim = (int)dims.size();
      dims.push_back({});
      zip_len = s.axes[i].values.size();
    } else if (s.axes[i].values.size() != zip_len) {
      throw UsageError(where + ": [zip] axes must have equal lengths: '" + s.axes[i].option + "' has " +
                       std::to_string(s.axes[i].values.size()) + " values, '" +
                       s.axes[dims[zip_dim][0]].option + "' has " + std::to_string(zip_len));
    }
    dims[zip_dim].push_back(i);
  }
  double total = 1;
  for (const auto& d : dims) total *= (double)s.axes[d[0]].values.size();
  if (total > (double)max_points)
    throw UsageError(where + ": " + fmt_number(total) + " points; at most " + std::to_string(max_points));
  std::vector<size_t> idx(dims.size(), 0);
  for (int id = 0; id < (int)total; ++id) {
    SweepPoint p;
    p.id = id;
    p.options = s.base;
    std::vector<std::string> value_of(s.axes.size());
    for (size_t d = 0; d < dims.size(); ++d)
      for (int a : dims[d]) value_of[a] = s.axes[a].values[idx[d]];
    OptionList axis_opts;
    for (size_t a = 0; a < s.axes.size(); ++a) axis_opts.emplace_back(s.axes[a].option, value_of[a]);
    p.options.insert(p.options.end(), axis_opts.begin(), axis_opts.end());
    try {
      for (const auto& [k, v] : p.options) add_arg(desc, k, v, &p.args);
      po::variables_map vm;
      parse_args(p.args, desc, "", &vm);
      cmd->validate(vm);
    } catch (const ConfigError& e) {
      throw UsageError(where + ": point " + std::to_string(id) +
                       (axis_opts.empty() ? "" : " (" + describe(axis_opts) + ")") + ": " + e.what());
    }
    s.points.push_back(std::move(p));
    for (int d = (int)dims.size() - 1; d >= 0; --d) {  // odometer: last dimension fastest
      if (++idx[d] < s.axes[dims[d][0]].values.size()) break;
      idx[d] = 0;
    }
  }
  return s;
}

nlohmann::ordered_json spec_manifest(const SweepSpec& s) {
  nlohmann::ordered_json j;
  j["format"] = "faultmesh-sweep 1";
  j["command"] = s.command;
  j["axes"] = nlohmann::ordered_json::array();
  for (const SweepAxis& a : s.axes)
    j["axes"].push_back({{"option", a.option}, {"values", a.values}, {"zipped", a.zipped}});
  j["points"] = nlohmann::ordered_json::array();
  for (const SweepPoint& p : s.points) {
    nlohmann::ordered_json opts = nlohmann::ordered_json::array();
    for (const auto& [k, v] : p.options) opts.push_back({k, v});
    j["points"].push_back({{"id", p.id}, {"options", opts}, {"args", p.args}});
  }
  return j;
}

}  // namespace fm
