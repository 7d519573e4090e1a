#include "sim/options.h"

#include "models/noc/fault_set.h"
#include "sim/util/parse.h"
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
#include <map>
#include <sstream>

namespace fm {

namespace {

// A double default shown as typed ("0.1", not "0.10000000000000001").
po::typed_value<double>* dbl(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return po::value<double>()->default_value(v, b);
}

std::string dir_of(const std::string& path) {
  const auto k = path.rfind('/');
  return k == std::string::npos ? "." : (k == 0 ? "/" : path.substr(0, k));
}

}  // namespace

Cycle cycles_opt(const po::variables_map& vm, const char* name, long long lo) {
  const long long v = vm[name].as<long long>();
  if (v < lo)
    throw UsageError("--" + std::string(name) + " " + std::to_string(v) + ": allowed >= " +
                     std::to_string(lo) + " cycles");
  return (Cycle)v;
}

void check_path_value(const std::string& path, const char* option, const char* what) {
  if (path.empty()) throw UsageError(std::string(option) + " '': expected " + what + ", got an empty value");
  if (path[0] == '-')
    throw UsageError(std::string(option) + " " + path + ": expected " + what +
                     ", got what looks like an option (a path that starts with '-': write ./" + path + ")");
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  const bool ea = stat(a.c_str(), &sa) == 0, eb = stat(b.c_str(), &sb) == 0;
  if (ea || eb) return ea && eb && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  auto canonical = [](const std::string& p) {
    char buf[PATH_MAX];
    const std::string d = dir_of(p), name = p.substr(p.rfind('/') == std::string::npos ? 0 : p.rfind('/') + 1);
    return (realpath(d.c_str(), buf) ? std::string(buf) : d) + "/" + name;
  };
  return canonical(a) == canonical(b);
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

void check_writable(const std::string& path, const char* option) {
  check_path_value(path, option, "a file path");
  if (path.back() == '/') throw UsageError(std::string(option) + " " + path + ": expected a file path, not a directory");
  struct stat st;
  if (stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      throw UsageError(std::string(option) + " " + path + ": is a directory, expected a file path");
    if (!S_ISREG(st.st_mode)) {  // a device or a pipe: written in place (result_temp_path)
      if (access(path.c_str(), W_OK) != 0) throw UsageError(std::string(option) + " " + path + ": not writable");
      return;
    }
  }
  const std::string d = dir_of(path);
  if (access(d.c_str(), W_OK) != 0)
    throw UsageError(std::string(option) + " " + path + ": directory '" + d +
                     "' does not exist or is not writable");
}

po::options_description network_options(const NetworkConfig& d) {
  po::options_description o("Network and router");
  o.add_options()
    ("mesh", po::value<std::string>()->default_value(std::to_string(d.width) + "x" + std::to_string(d.height)),
     "chips WxH (each 2..4096)")
    ("topology", po::value<std::string>()->default_value(to_string(d.topology)),
     "mesh | torus (torus adds wraparound links)")
    ("board", po::value<std::string>()->default_value("2x2"), "chips per board WxH")
    ("vcs", po::value<int>()->default_value(d.vcs), "virtual channels per port, 1..16 (torus: >= 2)")
    ("local-ports", po::value<int>()->default_value(d.local_ports),
     "local lanes between router and chip, 1..4 (4: one per ICI direction)")
    ("buf", po::value<int>()->default_value(d.buf), "buffer depth per VC in flits, 1..256")
    ("pipeline", po::value<int>()->default_value(d.pipeline),
     "router pipeline depth in cycles, 1..4 (docs/router-microarchitecture.md)")
    ("link-latency", po::value<int>()->default_value(d.link_latency),
     "ICI link flit latency in cycles, 1..1000")
    ("credit-latency", po::value<int>(),
     "credit return latency in cycles, 1..1000 (default: = --link-latency)")
    ("flit-bytes", po::value<int>()->default_value(d.flit_bytes), "flit size = link width, bytes")
    ("link-bw", dbl(d.link_gbps),
     "link bandwidth per direction, GB/s; cycle time = flit-bytes / link-bw")
    ("arbiter", po::value<std::string>()->default_value(to_string(d.arbiter)),
     "allocator pointer policy: rr | islip")
    ("routing", po::value<std::string>()->default_value(to_string(d.routing)),
     "xy (= dor) | yx | lash | fring | auto: xy without faults, lash with (docs/routing.md)")
    ("fail-chip", po::value<std::vector<std::string>>()->composing(),
     "failed chip x,y (repeatable)")
    ("fail-board", po::value<std::vector<std::string>>()->composing(),
     "failed board bx,by in board coordinates: all its chips (repeatable)")
    ("fail-link", po::value<std::vector<std::string>>()->composing(),
     "failed link x,y:D (D = N|E|S|W; both directions) or x,y:D:oneway (repeatable)")
    ("fault-file", po::value<std::string>(),
     "file of faults, one per line: chip x,y | board bx,by | link x,y:D [oneway]; # comments")
    ("threads", po::value<std::string>()->default_value("auto"),
     "worker threads evaluating each cycle, 1..256, or auto (the machine's cores); "
     "results are the same for every count (docs/performance.md)")
    ("mem-limit", po::value<std::string>()->default_value("auto"),
     "refuse a run estimated to need more memory than this, e.g. 8GiB "
     "(auto: what the machine has available now; docs/errors.md)");
  return o;
}

po::options_description traffic_options() {
  const Config d;
  po::options_description o("Traffic and run phases");
  o.add_options()
    ("pattern", po::value<std::string>()->default_value(to_string(d.traffic.pattern)),
     (std::string(kPatternNames)).c_str())
    ("rate", dbl(d.traffic.rate),
     "offered load, flits/node/cycle, 0..1 (Bernoulli)")
    ("packet", po::value<std::string>()->default_value("4"),
     "packet size in flits: N or A-B (uniform)")
    ("hotspot", po::value<std::vector<std::string>>()->composing(),
     "hotspot chip x,y (repeatable; for --pattern hotspot)")
    ("hotspot-fraction", dbl(d.traffic.hotspot_fraction),
     "share of packets sent to a hotspot, 0..1")
    ("source", po::value<std::vector<std::string>>()->composing(),
     "only chip x,y injects (repeatable; default every chip)")
    ("warmup", po::value<long long>()->default_value((long long)d.run.warmup),
     "warm-up cycles before measurement")
    ("cycles", po::value<long long>()->default_value((long long)d.run.cycles),
     "measurement window in cycles (injection continues through it)")
    ("max-drain", po::value<long long>()->default_value((long long)d.run.max_drain),
     "guard: most cycles to drain after injection stops")
    ("watchdog", po::value<long long>()->default_value((long long)d.run.watchdog),
     "guard: fail when no flit moves for this many cycles while flits wait")
    ("seed", po::value<long long>()->default_value((long long)d.run.seed), "random seed, >= 0");
  return o;
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

Config config_from(const po::variables_map& vm, bool check_network_memory) {
  Config c;
  NetworkConfig& n = c.net;
  if (!parse_wxh(vm["mesh"].as<std::string>(), &n.width, &n.height))
    throw UsageError("--mesh " + vm["mesh"].as<std::string>() + ": expected WxH, W and H whole numbers 2..4096, e.g. 16x16");
  if (!parse_topology(vm["topology"].as<std::string>(), &n.topology))
    throw UsageError("--topology " + vm["topology"].as<std::string>() + ": allowed mesh | torus");
  if (!parse_wxh(vm["board"].as<std::string>(), &n.board_w, &n.board_h))
    throw UsageError("--board " + vm["board"].as<std::string>() + ": expected WxH, W and H whole numbers >= 1 that fit in the mesh, e.g. 2x2");
  n.vcs = vm["vcs"].as<int>();
  n.local_ports = vm["local-ports"].as<int>();
  n.buf = vm["buf"].as<int>();
  n.pipeline = vm["pipeline"].as<int>();
  n.link_latency = vm["link-latency"].as<int>();
  n.credit_latency = vm.count("credit-latency") ? vm["credit-latency"].as<int>() : n.link_latency;
  n.flit_bytes = vm["flit-bytes"].as<int>();
  n.link_gbps = vm["link-bw"].as<double>();
  if (!parse_arbiter(vm["arbiter"].as<std::string>(), &n.arbiter))
    throw UsageError("--arbiter " + vm["arbiter"].as<std::string>() + ": allowed rr | islip");
  if (!parse_routing(vm["routing"].as<std::string>(), &n.routing))
    throw UsageError("--routing " + vm["routing"].as<std::string>() +
                     ": allowed xy | dor | yx | lash | fring | auto");
  for (const char* name : {"fail-chip", "fail-board"}) {
    if (!vm.count(name)) continue;
    for (const std::string& s : vm[name].as<std::vector<std::string>>()) {
      Coord k;
      if (!parse_coord(s, &k)) throw UsageError("--" + std::string(name) + " " + s + ": expected x,y");
      (std::string(name) == "fail-chip" ? n.faults.chips : n.faults.boards).push_back(k);
    }
  }
  if (vm.count("fail-link"))
    for (const std::string& s : vm["fail-link"].as<std::vector<std::string>>()) {
      LinkFault l;
      if (!parse_link_fault(s, &l))
        throw UsageError("--fail-link " + s + ": expected x,y:D or x,y:D:oneway with D one of N, E, S, W");
      n.faults.links.push_back(l);
    }
  if (vm.count("pattern")) {
    TrafficConfig& t = c.traffic;
    if (!parse_pattern(vm["pattern"].as<std::string>(), &t.pattern))
      throw UsageError("--pattern " + vm["pattern"].as<std::string>() + ": allowed " + kPatternNames);
    t.rate = vm["rate"].as<double>();
    const std::string packet = vm["packet"].as<std::string>();
    if (!parse_int_range(packet, &t.packet_min, &t.packet_max))
      throw UsageError("--packet " + packet + ": expected N or A-B flits");
    if (!packet_sizes_ok(t.packet_min, t.packet_max))  // validate() would echo "0" as "0-0"
      throw UsageError("--packet " + packet + ": " + kPacketAllowed);
    for (const char* name : {"hotspot", "source"}) {
      if (!vm.count(name)) continue;
      for (const std::string& s : vm[name].as<std::vector<std::string>>()) {
        Coord k;
        if (!parse_coord(s, &k))
          throw UsageError("--" + std::string(name) + " " + s + ": expected x,y");
        (std::string(name) == "hotspot" ? t.hotspots : t.sources).push_back(k);
      }
    }
    t.hotspot_fraction = vm["hotspot-fraction"].as<double>();
    c.run.warmup = cycles_opt(vm, "warmup", 0);
    c.run.cycles = cycles_opt(vm, "cycles", 1);
    c.run.max_drain = cycles_opt(vm, "max-drain", 0);
    c.run.watchdog = cycles_opt(vm, "watchdog", 1);
    const long long seed = vm["seed"].as<long long>();
    if (seed < 0) throw UsageError("--seed " + std::to_string(seed) + ": allowed a whole number >= 0");
    c.run.seed = (uint64_t)seed;
  }
  const std::string err = validate(c);
  if (!err.empty()) throw UsageError(err);
  // After validate (faults play no part in it): the file's places are checked against a
  // valid mesh, line by line.
  if (vm.count("fault-file")) read_fault_file(vm["fault-file"].as<std::string>(), &n.faults, &n);
  const std::string th = vm["threads"].as<std::string>();
  if (th != "auto") {
    char* end = nullptr;
    const long v = std::strtol(th.c_str(), &end, 10);
    if (th.empty() || *end || v < 1 || v > 256)
      throw UsageError("--threads " + th + ": allowed auto or a whole number 1..256");
    c.run.threads = (int)v;
  }
  const std::string ml = vm["mem-limit"].as<std::string>();
  if (ml != "auto" && !parse_bytes(ml, &c.run.mem_limit))
    throw UsageError("--mem-limit " + ml + ": allowed auto or bytes, e.g. 8GiB");
  if (check_network_memory) check_memory(estimate_network_memory(c.net), c.run.mem_limit);
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
