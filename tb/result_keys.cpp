// The results JSON contract (tb/result_keys.h): the header every result starts with and
// the one reader of its kind.
#include "tb/result_keys.h"

#include <string>

#include "models/config.h"

namespace fm {

namespace {

// `FIELD is VALUE, expected WANT` (the value shortened), the form of the run page's
// checks (sim/view_check.cpp).
[[noreturn]] void bad(const char* field, const std::string& got, const std::string& want) {
  const std::string g = got.size() > 40 ? got.substr(0, 37) + "..." : got;
  throw ConfigError(std::string(field) + " is " + g + ", expected " + want);
}

template <class J>
ResultKind kind_of(const J& r) {
  namespace rk = result_key;
  if (!r.is_object()) bad("the result", r.dump(), "a JSON object");
  // Written before the contract: the kind was told by the allreduce's bandwidth.
  if (!r.contains(rk::kSchemaVersion)) return r.contains(rk::kBusbwGBps) ? ResultKind::Allreduce : ResultKind::Traffic;
  const J& v = r[rk::kSchemaVersion];
  const std::string range = "1.." + std::to_string(kResultSchemaVersion);
  // Whole and positive (signed in an object built in memory, unsigned once parsed).
  if (!v.is_number_integer() || (v.is_number_unsigned() ? v.template get<uint64_t>() < 1 : v.template get<int64_t>() < 1))
    bad(rk::kSchemaVersion, v.dump(), "a whole number " + range);
  if (v.template get<uint64_t>() > (uint64_t)kResultSchemaVersion)
    bad(rk::kSchemaVersion, v.dump(),
        range + " (written by a newer faultmesh than this one, which reads results up to schema " +
            std::to_string(kResultSchemaVersion) + ")");
  if (!r.contains(rk::kKind)) bad(rk::kKind, "missing", enum_list<ResultKind>());
  const J& k = r[rk::kKind];
  ResultKind kind;
  if (!k.is_string() || !parse_enum(k.template get<std::string>(), &kind)) bad(rk::kKind, k.dump(), enum_list<ResultKind>());
  return kind;
}

}  // namespace

nlohmann::ordered_json result_header(ResultKind k) {
  nlohmann::ordered_json j;
  j[result_key::kKind] = enum_name(k);
  j[result_key::kSchemaVersion] = kResultSchemaVersion;
  return j;
}

ResultKind result_kind(const nlohmann::json& r) { return kind_of(r); }
ResultKind result_kind(const nlohmann::ordered_json& r) { return kind_of(r); }

}  // namespace fm
