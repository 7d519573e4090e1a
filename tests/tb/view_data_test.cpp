// The run page's per-link windows (tb/view_data.h): past its cap the windows merge in
// pairs, and whatever the merging, they still tile the run from cycle 0 to the last
// sample and add up to every flit each link sent. A run longer than cap windows (a
// 1 MiB allreduce on a 32x32 torus) crashed here once: a window merged onto itself.
#include <gtest/gtest.h>

#include "tb/view_data.h"
#include "tests/sim_util.h"

namespace fm {
namespace {

TEST(LinkWindows, MergedPastTheCapTheyStillTileTheRunAndCountEveryFlit) {
  const nlohmann::json r = test::in_child([] {
    NetworkConfig n;
    n.width = n.height = 2;
    Network net("net", n);
    LinkWindows lw(net);
    Link* east = net.link(0, kEast);  // from (0,0)
    const size_t samples = 2 * lw.cap() + 5;
    uint64_t sent = 0;
    for (size_t i = 0; i < samples; ++i) {
      for (size_t k = 0; k < i % 3; ++k, ++sent) east->send(Flit{}, i * 10 + k);
      lw.sample(net, (i + 1) * 10);
    }
    nlohmann::json j = nlohmann::json(lw.json(net.topology()));
    j["cap"] = lw.cap();
    j["sent"] = sent;
    j["last"] = samples * 10;
    return j;
  });
  ASSERT_TRUE(r.contains("windows")) << r.dump();
  const auto& ws = r["windows"];
  EXPECT_LE(ws.size(), r["cap"].get<size_t>());
  EXPECT_GT(ws.size(), r["cap"].get<size_t>() / 4);  // merged once or twice, not to nothing
  size_t east = 0;
  for (size_t i = 0; i < r["links"].size(); ++i)
    if (r["links"][i]["x"] == 0 && r["links"][i]["y"] == 0 && r["links"][i]["port"] == "E") east = i;
  uint64_t total = 0, others = 0;
  uint64_t at = 0;
  for (const auto& w : ws) {
    EXPECT_EQ(w["from"].get<uint64_t>(), at);
    at = w["to"].get<uint64_t>();
    ASSERT_EQ(w["flits"].size(), r["links"].size());
    for (size_t l = 0; l < w["flits"].size(); ++l)
      (l == east ? total : others) += w["flits"][l].get<uint64_t>();
  }
  EXPECT_EQ(at, r["last"].get<uint64_t>());
  EXPECT_EQ(total, r["sent"].get<uint64_t>());
  EXPECT_EQ(others, 0u);
}

}  // namespace
}  // namespace fm
