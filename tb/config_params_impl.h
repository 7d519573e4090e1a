// Internals shared by the files that hold the rows of the option schema
// (tb/config_schema.h is the public side, params() its entry point): the command masks,
// the row builders and the parsers and echoes several groups of rows use, and the
// groups themselves. params() is the groups in this order:
//
//   tb/config_params.cpp             network and router, traffic, run phases, guards,
//                                    host resources; params() itself
//   tb/config_params_collective.cpp  collective (allreduce), chip
//   tb/config_params_faults.cpp      faults, recovery
#pragma once
#include <cctype>
#include <cstdlib>
#include <string>
#include <vector>

#include "tb/config_schema.h"
#include "tb/util/parse.h"

namespace fm::params_detail {

using Json = nlohmann::ordered_json;

constexpr unsigned kRoutes = (unsigned)Command::Routes, kTraffic = (unsigned)Command::Traffic,
                   kAllreduce = (unsigned)Command::Allreduce;
constexpr unsigned kNet = kRoutes | kTraffic | kAllreduce;  // every command with a network
constexpr unsigned kRuns = kTraffic | kAllreduce;           // every simulating command

inline std::string coord(const Coord& k) { return std::to_string(k.x) + "," + std::to_string(k.y); }
inline Json coords(const std::vector<Coord>& v) {
  Json a = Json::array();
  for (const Coord& k : v) a.push_back(coord(k));
  return a;
}

// A list of chips (hotspots, sources, failed chips or boards): each value "x,y" is
// appended to the list `Ref` names, and the echo is the list as "x,y" strings.
template <std::vector<Coord>& (*Ref)(Config&)>
std::string add_coord(const std::string& s, Config* c) {
  Coord k;
  if (!parse_coord(s, &k)) return "expected x,y";
  Ref(*c).push_back(k);
  return "";
}
template <std::vector<Coord>& (*Ref)(Config&)>
Json echo_coords(const Config& c) {
  return coords(Ref(const_cast<Config&>(c)));  // read only
}

// A choice row's parse: the value is one of the enum's names (models/kinds.h, EnumNames).
template <typename E>
std::string choice(const std::string& s, E* out) {
  return parse_enum(s, out) ? "" : std::string("allowed ") + enum_list<E>();
}

// "auto" (0) or a whole number 1..hi, digits only.
inline bool auto_or_count(const std::string& s, uint64_t hi, uint64_t* out) {
  if (s == "auto") { *out = 0; return true; }
  if (s.empty() || s.size() > 19) return false;
  for (char ch : s)
    if (!std::isdigit((unsigned char)ch)) return false;
  const uint64_t v = std::strtoull(s.c_str(), nullptr, 10);
  if (v < 1 || v > hi) return false;
  *out = v;
  return true;
}
inline Json auto_or(uint64_t v) { return v ? Json(v) : Json("auto"); }

// Row builders: the fields every row has, then the kind's own.
inline Param row(const char* name, Section s, unsigned cmds, const char* member, ParamKind k, const char* help) {
  Param p{name, s, cmds, member, k, help};
  return p;
}
inline Param int_row(const char* name, Section s, unsigned cmds, const char* member, int& (*ref)(Config&), double lo,
                     double hi, const char* unit, const char* help) {
  Param p = row(name, s, cmds, member, ParamKind::Int, help);
  p.int_ref = ref, p.lo = lo, p.hi = hi, p.unit = unit;
  return p;
}
inline Param real_row(const char* name, Section s, unsigned cmds, const char* member, double& (*ref)(Config&),
                      double lo, bool lo_open, double hi, const char* unit, const char* help) {
  Param p = row(name, s, cmds, member, ParamKind::Real, help);
  p.real_ref = ref, p.lo = lo, p.lo_open = lo_open, p.hi = hi, p.unit = unit;
  return p;
}
inline Param count_row(const char* name, Section s, unsigned cmds, const char* member, uint64_t& (*ref)(Config&),
                       double lo, const char* unit, const char* help) {
  Param p = row(name, s, cmds, member, ParamKind::Cycles, help);
  p.cycles_ref = ref, p.lo = lo, p.unit = unit;
  return p;
}
inline Param text_row(const char* name, Section s, unsigned cmds, const char* member, const char* values,
                      std::string (*parse)(const std::string&, Config*), Json (*echo)(const Config&),
                      const char* help) {
  Param p = row(name, s, cmds, member, ParamKind::Text, help);
  p.values = values, p.parse = parse, p.echo = echo;
  return p;
}
inline Param list_row(const char* name, Section s, unsigned cmds, const char* member, const char* values,
                      std::string (*parse)(const std::string&, Config*), Json (*echo)(const Config&),
                      const char* help) {
  Param p = text_row(name, s, cmds, member, values, parse, echo, help);
  p.kind = ParamKind::List;
  return p;
}
template <typename F>
Param with(Param p, F f) {
  f(p);
  return p;
}

#define FM_REF(T, expr) +[](Config& c) -> T& { return c.expr; }
// A row choosing one value of an enum: its allowed list, parser and echo from the enum's
// name table.
#define FM_ENUM_ROW(name, section, cmds, member, T, expr, help)                                      \
  text_row(name, section, cmds, member, enum_list<T>(),                                             \
           [](const std::string& s, Config* c) { return choice(s, &c->expr); },                     \
           [](const Config& c) { return Json(enum_name(c.expr)); }, help)

// The groups of rows, in the order of params() (and so of --help, the result's config
// echo and docs/options.md).
std::vector<Param> network_rows();
std::vector<Param> traffic_rows();
std::vector<Param> run_phase_rows();
std::vector<Param> collective_rows();
std::vector<Param> chip_rows();
std::vector<Param> guard_rows();
std::vector<Param> fault_rows();
std::vector<Param> recovery_rows();
std::vector<Param> host_rows();

}  // namespace fm::params_detail
