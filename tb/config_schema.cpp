#include "tb/config_schema.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace fm {

namespace {

using Json = nlohmann::ordered_json;

// A bound as a user would type it: 16, 0.5, 1e6.
std::string bound(double v) {
  char b[32];
  if (std::fabs(v) >= 1e6 && std::fmod(std::log10(std::fabs(v)), 1.0) == 0)
    std::snprintf(b, sizeof b, "%s1e%d", v < 0 ? "-" : "", (int)std::log10(std::fabs(v)));
  else
    std::snprintf(b, sizeof b, "%g", v);
  return b;
}
// A value as far as a double keeps it: 0.1, 10000001, 1e+300, inf.
std::string real(long double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.15Lg", v);
  return b;
}
}  // namespace

std::string allowed_text(const Param& p) {
  if (!p.int_ref && !p.real_ref && !p.cycles_ref) return p.values ? p.values : "";
  std::string r;
  if (p.kind == ParamKind::Cycles) r = ">= " + bound(p.lo);
  else if (p.lo_open) r = "(" + bound(p.lo) + ", " + bound(p.hi) + "]";
  else r = bound(p.lo) + ".." + bound(p.hi);
  return *p.unit ? r + " " + p.unit : r;
}

const Param* find_param(const std::string& name) {
  for (const Param& p : params())
    if (name == p.name) return &p;
  return nullptr;
}

namespace {
// The text of a row's value in c, as the command line would give it.
std::string value_text(const Param& p, const Config& c) {
  Config& m = const_cast<Config&>(c);  // the refs only read here
  if (p.int_ref) return std::to_string(p.int_ref(m));
  if (p.real_ref) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", p.real_ref(m));
    return b;
  }
  if (p.cycles_ref) return std::to_string(p.cycles_ref(m));
  if (!p.echo) return "";
  const Json j = p.echo(c);
  if (j.is_string()) return j.get<std::string>();
  if (j.is_array()) return "";  // lists default to none
  return j.dump();
}
}  // namespace

std::string param_default(const Param& p, Command cmd) {
  if (cmd == Command::Allreduce && p.allreduce_default) return p.allreduce_default;
  if (p.default_text) return p.default_text;
  return value_text(p, Config{});
}

Config defaults_for(Command cmd) {
  Config c;
  if (cmd != Command::Allreduce) return c;
  for (const Param& p : params())
    if (p.allreduce_default && !p.allreduce_derive) apply_option(p, p.allreduce_default, &c);
  for (const Param& p : params())  // credit-latency follows the allreduce's links
    if (p.follows && p.int_ref) p.int_ref(c) = find_param(p.follows)->int_ref(c);
  apply_derived(cmd, [](const Param&) { return false; }, &c);
  return c;
}

void apply_derived(Command cmd, const std::function<bool(const Param&)>& given, Config* c) {
  if (cmd != Command::Allreduce) return;
  for (const Param& p : params())
    if (p.allreduce_derive && p.int_ref && !given(p)) p.int_ref(*c) = p.allreduce_derive(*c);
}

std::string range_error(const Param& p, long double v) {
  if (p.kind == ParamKind::Real) {
    const bool ok = (p.lo_open ? v > p.lo : v >= p.lo) && v <= p.hi;  // false for NaN
    return ok ? "" : "--" + std::string(p.name) + " " + real(v) + ": allowed " + allowed_text(p);
  }
  const bool ok = v >= p.lo && (p.kind == ParamKind::Cycles || v <= p.hi);
  if (ok) return "";
  char b[40];
  std::snprintf(b, sizeof b, "%.0Lf", v);
  return "--" + std::string(p.name) + " " + b + ": allowed " + allowed_text(p);
}

void apply_option(const Param& p, const std::string& text, Config* c) {
  auto bad = [&](const std::string& why) { throw ConfigError("--" + std::string(p.name) + " " + text + ": " + why); };
  if (p.parse) {
    const std::string e = p.parse(text, c);
    if (!e.empty()) bad(e);
    return;
  }
  // A number row from text (a default, a test): the whole text must be the number.
  const char* s = text.c_str();
  char* end = nullptr;
  if (p.real_ref) {
    const double v = std::strtod(s, &end);
    if (text.empty() || *end) bad("expected a number");
    p.real_ref(*c) = v;
    return;
  }
  const long long v = std::strtoll(s, &end, 10);
  if (text.empty() || *end) bad("expected a whole number");
  const std::string e = range_error(p, v);
  if (!e.empty()) throw ConfigError(e);
  if (p.int_ref) p.int_ref(*c) = (int)v;
  else p.cycles_ref(*c) = (uint64_t)v;
}

Json config_json(const Config& c, Command cmd, bool network_only) {
  Json j;
  Config& m = const_cast<Config&>(c);  // the refs only read here
  for (const Param& p : params()) {
    if (!p.takes(cmd) || !p.echoed || (network_only && p.section != Section::Network)) continue;
    if (p.int_ref) j[p.name] = p.int_ref(m);
    else if (p.real_ref) j[p.name] = p.real_ref(m);
    else if (p.cycles_ref) j[p.name] = p.cycles_ref(m);
    else j[p.name] = p.echo(c);
  }
  if (!network_only) j["cycle_ns"] = c.net.cycle_ns();  // derived: flit-bytes / link-bw
  return j;
}

namespace {
bool pow2(int n) { return n > 0 && (n & (n - 1)) == 0; }
}  // namespace

std::string validate(const Config& c, Command cmd) {
  Config& m = const_cast<Config&>(c);  // the refs only read here
  for (const Param& p : params()) {
    if (!p.takes(cmd)) continue;
    std::string e;
    if (p.int_ref) e = range_error(p, p.int_ref(m));
    else if (p.real_ref) e = range_error(p, p.real_ref(m));
    else if (p.cycles_ref) e = range_error(p, p.cycles_ref(m));
    if (e.empty() && p.check) e = p.check(c);
    if (!e.empty()) return e;
  }
  // Consistency between fields.
  std::ostringstream e;
  const NetworkConfig& n = c.net;
  const TrafficConfig& t = c.traffic;
  const CollectiveConfig& k = c.coll;
  const uint64_t elem = k.dtype == DType::Bf16 ? 2 : 4;
  const bool traffic = cmd == Command::Traffic, coll = cmd == Command::Allreduce;
  if (n.torus() && n.vcs < 2)
    e << "--vcs " << n.vcs << ": a torus needs at least 2 VCs (dateline classes); allowed 2.." << kMaxVcs;
  else if (traffic && t.pattern == Pattern::Hotspot && t.hotspots.empty())
    e << "--pattern hotspot needs at least one --hotspot x,y";
  else if (traffic && t.pattern == Pattern::Transpose && n.width != n.height)
    e << "--pattern transpose needs a square mesh, got " << n.width << "x" << n.height;
  else if (traffic && (t.pattern == Pattern::BitReverse || t.pattern == Pattern::Shuffle) && !pow2(n.chips()))
    e << "--pattern " << to_string(t.pattern) << " needs a power-of-two chip count, got " << n.chips();
  else if (coll && k.bytes % elem)
    e << "--bytes " << k.bytes << ": must be a multiple of the " << (elem == 2 ? "bf16" : "fp32")
      << " element size (" << elem << " bytes)";
  else if (coll && k.bytes / (uint64_t)n.flit_bytes >= (1ULL << 32))
    e << "--bytes " << k.bytes << ": at most 2^32 flits of data per chip";
  else if (coll && (k.chunk_bytes == 0 || k.chunk_bytes % (uint64_t)n.flit_bytes || k.chunk_bytes >= (1ULL << 32)))
    e << "--chunk " << k.chunk_bytes << ": must be a positive multiple of --flit-bytes (" << n.flit_bytes
      << ") below 4 GiB";
  else if (coll && k.bytes > c.chip.hbm_bytes)
    e << "--bytes " << k.bytes << " does not fit in --hbm-bytes " << c.chip.hbm_bytes;
  return e.str();
}

std::string params_markdown() {
  auto cell = [](std::string s) {  // a table cell: '|' escaped
    std::string o;
    for (char ch : s) o += ch == '|' ? std::string("\\|") : std::string(1, ch);
    return o;
  };
  auto commands = [](const Param& p) {
    if (p.takes(Command::Routes)) return std::string("all");
    std::string r;
    if (p.takes(Command::Traffic)) r = "traffic";
    if (p.takes(Command::Allreduce)) r += r.empty() ? "allreduce" : ", allreduce";
    return r;
  };
  static const char* const names[] = {"Network and router", "Traffic", "Run phases and guards", "Collective", "Chip",
                                      "Recovery"};
  std::ostringstream o;
  for (int s = 0; s <= (int)Section::Recovery; ++s) {
    o << "### " << names[s] << "\n\n"
      << "| option | commands | sets | default | allowed | in the result | what it is |\n"
      << "|---|---|---|---|---|---|---|\n";
    for (const Param& p : params()) {
      if ((int)p.section != s) continue;
      std::string def = param_default(p, Command::Traffic);
      if (!p.takes(Command::Traffic)) def = param_default(p, Command::Allreduce);
      else if (p.takes(Command::Allreduce) && param_default(p, Command::Allreduce) != def)
        def += " (allreduce: " + param_default(p, Command::Allreduce) + ")";
      if (def.empty()) def = p.kind == ParamKind::List ? "none" : "not given";
      const std::string range = allowed_text(p);
      o << "| `--" << p.name << "` | " << commands(p) << " | `" << p.member << "` | `" << cell(def) << "` | "
        << cell(range) << " | " << (p.echoed ? "`" + std::string(p.name) + "`" : std::string("no")) << " | "
        << cell(p.help) << " |\n";
    }
    o << "\n";
  }
  return o.str();
}

}  // namespace fm
