// What the run page's two files share (sim/view.cpp builds the page data, sim/view_check.cpp
// checks a result before it is drawn). Private to them.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "tb/util/parse.h"

namespace fm::view_detail {

using Json = nlohmann::json;

// A port letter's index (N E S W: 0..3), -1 for anything else.
inline int port_index(const std::string& p) {
  static const char* kNames[] = {"N", "E", "S", "W"};
  for (int i = 0; i < 4; ++i)
    if (p == kNames[i]) return i;
  return -1;
}

// "16x32" -> (16, 32); false when malformed.
inline bool parse_wh(const Json& v, int* w, int* h) {
  if (!v.is_string()) return false;
  return parse_wxh(v.get<std::string>(), w, h);
}

// One number formatted by printf format f.
inline std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// A numeric field of r, 0 when absent or not a number.
inline double num(const Json& r, const char* k) { return r.contains(k) && r[k].is_number() ? r[k].get<double>() : 0.0; }
inline uint64_t unum(const Json& r, const char* k) {
  return r.contains(k) && r[k].is_number() ? r[k].get<uint64_t>() : 0;
}


// What makes a JSON a run result at all: an object with config.mesh, cycles and
// link_utilization; throws UsageError otherwise.
void require_result(const Json& r, const std::string& name);
// Checks that r is a run result the page can draw: the results contract's kind and
// schema, then every field the page reads, with its type and range. Throws UsageError
// naming the file, the field and what it must be.
void check_view_result(const Json& r, const std::string& file);

}  // namespace fm::view_detail
