// The results JSON contract (tb/result_keys.h): both writers begin their object with
// kind and schema_version and hold every contract key of their kind (and none of the
// other kind's, which would mislead the reading of a result without schema_version), and
// result_kind reads the kind of a new result, of one written before the contract, and
// refuses an unknown kind or a newer schema, naming the field and what it must be.
#include <set>

#include "models/collective/algorithms.h"
#include "tb/allreduce_run.h"
#include "tb/result_keys.h"
#include "tests/sim_util.h"

using namespace fm;
using namespace fm::test;

namespace {

using OJson = nlohmann::ordered_json;

// A writer's object as written (ordered: the test checks the order), from a child.
OJson written(const std::function<OJson()>& write) {
  const IsolatedResult r = run_isolated([&] { return write().dump(); });
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return r.exit_code == 0 ? OJson::parse(r.output) : OJson::object();
}

void expect_contract(const OJson& j, ResultKind kind) {
  const std::string what = enum_name(kind);
  ASSERT_TRUE(j.is_object() && j.size() >= 2) << what;
  auto it = j.begin();
  EXPECT_EQ(it.key(), result_key::kKind) << what;
  EXPECT_EQ(it.value(), enum_name(kind)) << what;
  ++it;
  EXPECT_EQ(it.key(), result_key::kSchemaVersion) << what;
  EXPECT_EQ(it.value(), kResultSchemaVersion) << what;
  for (const ResultKey& k : kResultKeys) {
    if (k.in_kind(kind)) {
      if (k.always) {
        EXPECT_TRUE(j.contains(k.name)) << what << " result without contract key " << k.name;
      }
    } else {
      EXPECT_FALSE(j.contains(k.name)) << what << " result with the other kind's key " << k.name;
    }
  }
  EXPECT_EQ(result_kind(j), kind) << what;
  EXPECT_TRUE(j.value(result_key::kOk, false)) << what << ": " << j.value(result_key::kMessage, "");
  EXPECT_GT(j.value(result_key::kCycles, 0), 0) << what;
}

std::string kind_error(const nlohmann::json& r) {
  try {
    result_kind(r);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(ResultJson, ContractKeysAreUniqueAndKindComesFirst) {
  std::set<std::string> names;
  for (const ResultKey& k : kResultKeys) EXPECT_TRUE(names.insert(k.name).second) << "twice: " << k.name;
  ASSERT_GE(std::size(kResultKeys), 2u);
  EXPECT_STREQ(kResultKeys[0].name, result_key::kKind);
  EXPECT_STREQ(kResultKeys[1].name, result_key::kSchemaVersion);
  for (ResultKind k : {ResultKind::Allreduce, ResultKind::Traffic}) {
    ResultKind back;
    ASSERT_TRUE(parse_enum(enum_name(k), &back));
    EXPECT_EQ(back, k);
  }
}

TEST(ResultJson, AllreduceWriterBeginsWithKindAndHoldsEveryContractKey) {
  Config c = small_config(4, 4);
  c.net.local_ports = 4;
  c.coll.algo = coll::Algo::FT2D;
  c.coll.bytes = 16384;
  c.coll.chunk_bytes = 4096;
  c.net.faults.chips = {{1, 1}};
  expect_contract(written([c] { return allreduce_json(run_allreduce(c)); }), ResultKind::Allreduce);
}

TEST(ResultJson, TrafficWriterBeginsWithKindAndHoldsEveryContractKey) {
  Config c = small_config(3, 3);
  c.traffic.rate = 0.1;
  c.run.warmup = 50;
  c.run.cycles = 300;
  expect_contract(written([c] { return result_json(run_traffic(c)); }), ResultKind::Traffic);
}

TEST(ResultJson, KindOfNewLegacyUnknownAndNewerResults) {
  namespace rk = result_key;
  // New results: the kind they name, in either JSON flavour.
  EXPECT_EQ(result_kind(result_header(ResultKind::Allreduce)), ResultKind::Allreduce);
  EXPECT_EQ(result_kind(result_header(ResultKind::Traffic)), ResultKind::Traffic);
  EXPECT_EQ(result_kind(nlohmann::json(result_header(ResultKind::Traffic))), ResultKind::Traffic);
  // A new result's kind wins over the legacy rule (the keys it happens to hold).
  OJson t = result_header(ResultKind::Traffic);
  t[rk::kBusbwGBps] = 1.0;
  EXPECT_EQ(result_kind(t), ResultKind::Traffic);
  // Written before the contract (no schema_version): busbw_GBps tells an allreduce.
  EXPECT_EQ(result_kind(nlohmann::json{{rk::kOk, true}, {rk::kBusbwGBps, 12.5}, {rk::kCycles, 10}}),
            ResultKind::Allreduce);
  EXPECT_EQ(result_kind(nlohmann::json{{rk::kOk, true}, {rk::kAvgPacketLatency, 9.0}, {rk::kCycles, 10}}),
            ResultKind::Traffic);
  EXPECT_EQ(result_kind(nlohmann::json::object()), ResultKind::Traffic);
  // Unknown kind, missing kind, a newer schema, a schema that is no version, no object.
  nlohmann::json bad = nlohmann::json(result_header(ResultKind::Allreduce));
  bad[rk::kKind] = "collective";
  EXPECT_EQ(kind_error(bad), "kind is \"collective\", expected allreduce | traffic");
  bad[rk::kKind] = 3;
  EXPECT_EQ(kind_error(bad), "kind is 3, expected allreduce | traffic");
  bad.erase(rk::kKind);
  EXPECT_EQ(kind_error(bad), "kind is missing, expected allreduce | traffic");
  nlohmann::json newer = nlohmann::json(result_header(ResultKind::Allreduce));
  newer[rk::kSchemaVersion] = kResultSchemaVersion + 1;
  const std::string n = kind_error(newer);
  EXPECT_EQ(n.rfind("schema_version is " + std::to_string(kResultSchemaVersion + 1) + ", expected 1.." +
                        std::to_string(kResultSchemaVersion) + " (written by a newer faultmesh",
                    0),
            0u)
      << n;
  for (const nlohmann::json& v : {nlohmann::json(0), nlohmann::json(-1), nlohmann::json(1.5), nlohmann::json("1")}) {
    newer[rk::kSchemaVersion] = v;
    EXPECT_EQ(kind_error(newer), "schema_version is " + v.dump() + ", expected a whole number 1.." +
                                     std::to_string(kResultSchemaVersion));
  }
  EXPECT_EQ(kind_error(nlohmann::json::array()), "the result is [], expected a JSON object");
}
