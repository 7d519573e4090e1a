// Reading JSON files and turning result objects into CSV, shared by the commands'
// --csv output (sim/summary.h csv_from_json), the sweep's results.csv and every reader of
// result files (sweep, report paper, plot), so that all of them flatten, quote and
// number cells the same way.
#pragma once
#include <fstream>
#include <functional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace fm {

// The JSON in a file; null when the file is missing, unreadable or not (completely)
// valid JSON. For readers to whom a half-written or absent result means "not done".
template <class J = nlohmann::ordered_json>
J read_json_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return J();
  try {
    return J::parse(f);
  } catch (...) {
    return J();
  }
}

// Calls `leaf` with (key, value) for every value of a result object in order, nested
// objects flattened as parent.key; arrays of objects (per-link maps) left out. Keys in
// `skip_top` are left out at the top level.
void flatten_json(const nlohmann::ordered_json& j,
                  const std::function<void(const std::string&, const nlohmann::ordered_json&)>& leaf,
                  const std::set<std::string>& skip_top = {}, const std::string& prefix = "");

// A value as CSV cell text (unquoted): a string as itself, an array as its elements
// joined by ';', anything else as JSON; null as "" with `null_empty`, else "null".
std::string csv_text(const nlohmann::ordered_json& v, bool null_empty);

// A CSV field: as is, or in double quotes (quotes doubled) when it holds , " or a newline.
std::string csv_quote(const std::string& s);

}  // namespace fm
