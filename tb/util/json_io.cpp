#include "tb/util/json_io.h"

namespace fm {

void flatten_json(const nlohmann::ordered_json& j,
                  const std::function<void(const std::string&, const nlohmann::ordered_json&)>& leaf,
                  const std::set<std::string>& skip_top, const std::string& prefix) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (prefix.empty() && skip_top.count(it.key())) continue;
    const auto& v = it.value();
    if (v.is_object()) flatten_json(v, leaf, {}, prefix + it.key() + ".");
    else if (v.is_array() && !v.empty() && v.front().is_object()) continue;
    else leaf(prefix + it.key(), v);
  }
}

std::string csv_text(const nlohmann::ordered_json& v, bool null_empty) {
  if (v.is_null() && null_empty) return "";
  if (v.is_string()) return v.get<std::string>();
  if (!v.is_array()) return v.dump();
  std::string s;
  for (const auto& e : v) s += (s.empty() ? "" : ";") + (e.is_string() ? e.get<std::string>() : e.dump());
  return s;
}

std::string csv_quote(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace fm
