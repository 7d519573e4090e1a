// Dimension-order route tables: every flow reaches its destination minimally, XY turns
// once, and on a torus the dateline VC classes make the channel dependency graph
// acyclic (while the same routes with every VC allowed have a cycle).
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>

#include "models/noc/topology.h"
#include "models/route_table.h"
#include "models/routing/dor.h"

using namespace fm;

namespace {

NetworkConfig net(int w, int h, Topology t, Routing r, int vcs = 2) {
  NetworkConfig n;
  n.width = w;
  n.height = h;
  n.topology = t;
  n.routing = r;
  n.vcs = vcs;
  return n;
}

// Follows the tables from s to d; returns the path as (chip, port) hops, empty on a loop.
std::vector<std::pair<ChipId, Port>> walk(const Topology2D& t, const std::vector<RouteTable>& tb,
                                          ChipId s, ChipId d) {
  std::vector<std::pair<ChipId, Port>> path;
  ChipId c = s;
  for (int guard = 0; guard <= t.chips() * 2; ++guard) {
    const RouteEntry& e = tb[c].lookup(d);
    if (e.port == kLocal) return c == d ? path : decltype(path){};
    path.push_back({c, (Port)e.port});
    c = (ChipId)t.neighbour(c, (Port)e.port);
  }
  return {};
}

// Channel = (chip, port, vc). Edge a->b when a packet holding a may request b.
using Chan = std::tuple<ChipId, int, int>;
bool cdg_has_cycle(const Topology2D& t, const std::vector<RouteTable>& tb) {
  std::map<Chan, std::set<Chan>> g;
  for (int s = 0; s < t.chips(); ++s)
    for (int d = 0; d < t.chips(); ++d) {
      if (s == d) continue;
      const auto path = walk(t, tb, s, d);
      for (size_t i = 0; i + 1 < path.size(); ++i) {
        const RouteEntry& a = tb[path[i].first].lookup(d);
        const RouteEntry& b = tb[path[i + 1].first].lookup(d);
        for (int va = 0; va < 16; ++va)
          if (a.vc_mask >> va & 1)
            for (int vb = 0; vb < 16; ++vb)
              if (b.vc_mask >> vb & 1)
                g[{path[i].first, path[i].second, va}].insert({path[i + 1].first, path[i + 1].second, vb});
      }
    }
  std::map<Chan, int> color;  // 0 white, 1 grey, 2 black
  std::function<bool(const Chan&)> dfs = [&](const Chan& u) {
    color[u] = 1;
    for (const Chan& v : g[u]) {
      if (color[v] == 1) return true;
      if (color[v] == 0 && dfs(v)) return true;
    }
    color[u] = 2;
    return false;
  };
  for (auto& kv : g)
    if (color[kv.first] == 0 && dfs(kv.first)) return true;
  return false;
}

}  // namespace

TEST(DorTables, EveryFlowIsMinimalOnMeshAndTorus) {
  for (Topology topo : {Topology::Mesh, Topology::Torus})
    for (Routing r : {Routing::XY, Routing::YX})
      for (auto wh : {std::pair<int, int>{4, 4}, {5, 3}, {8, 8}, {2, 7}}) {
        const NetworkConfig n = net(wh.first, wh.second, topo, r);
        const Topology2D t(n);
        const auto tb = build_dor_tables(n);
        for (int s = 0; s < t.chips(); ++s)
          for (int d = 0; d < t.chips(); ++d) {
            const auto p = walk(t, tb, s, d);
            ASSERT_EQ((int)p.size(), t.distance(s, d)) << s << "->" << d;
            ASSERT_EQ(tb[d].lookup(d).port, kLocal);
          }
      }
}

TEST(DorTables, XyFinishesXBeforeY) {
  const NetworkConfig n = net(6, 6, Topology::Mesh, Routing::XY);
  const Topology2D t(n);
  const auto tb = build_dor_tables(n);
  const auto p = walk(t, tb, t.id(0, 0), t.id(3, 4));
  ASSERT_EQ(p.size(), 7u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(p[i].second, kEast);
  for (int i = 3; i < 7; ++i) EXPECT_EQ(p[i].second, kNorth);
  const NetworkConfig m = net(6, 6, Topology::Mesh, Routing::YX);
  const auto q = walk(t, build_dor_tables(m), t.id(0, 0), t.id(3, 4));
  EXPECT_EQ(q[0].second, kNorth);
  EXPECT_EQ(q[6].second, kEast);
}

TEST(DorTables, MeshDorIsDeadlockFree) {
  const NetworkConfig n = net(5, 4, Topology::Mesh, Routing::XY, 1);
  EXPECT_FALSE(cdg_has_cycle(Topology2D(n), build_dor_tables(n)));
}

TEST(DorTables, TorusDatelineClassesBreakTheRingCycle) {
  for (int vcs : {2, 3, 4}) {
    const NetworkConfig n = net(5, 4, Topology::Torus, Routing::XY, vcs);
    const Topology2D t(n);
    auto tb = build_dor_tables(n);
    EXPECT_FALSE(cdg_has_cycle(t, tb)) << vcs << " VCs";
    // The same routes with every VC allowed everywhere: the rings close a cycle.
    for (auto& table : tb)
      for (int d = 0; d < t.chips(); ++d) {
        RouteEntry e = table.lookup(d);
        e.vc_mask = all_vcs_mask(vcs);
        table.set(d, e);
      }
    EXPECT_TRUE(cdg_has_cycle(t, tb)) << vcs << " VCs";
  }
}

TEST(DorTables, DatelineClassMasks) {
  EXPECT_EQ(dateline_class_mask(2, 0), 0x1);
  EXPECT_EQ(dateline_class_mask(2, 1), 0x2);
  EXPECT_EQ(dateline_class_mask(3, 0), 0x1);
  EXPECT_EQ(dateline_class_mask(3, 1), 0x6);
  EXPECT_EQ(dateline_class_mask(16, 0), 0x00ff);
  EXPECT_EQ(dateline_class_mask(16, 1), 0xff00);
}

TEST(DorTables, VcGroupMasks) {
  EXPECT_EQ(vc_group_mask(4, 2, 4), 0x4);    // one VC per group
  EXPECT_EQ(vc_group_mask(5, 0, 2), 0x3);    // [0, 2)
  EXPECT_EQ(vc_group_mask(5, 1, 2), 0x1c);   // [2, 5)
  EXPECT_EQ(vc_group_mask(16, 0, 1), 0xffff);
  EXPECT_EQ(vc_group_mask(2, 1, 2), 0x2);
}

// The one route-word codec (models/route_table.h): every port code 0..4 and kNoRoute,
// with every 16-bit mask, survives encode + decode; the word is port in bits 0..7 and
// mask in 8..23 (the documented layout); a reserved bit 24..31 is refused.
TEST(RouteWord, EncodesAndDecodesEveryPortAndNoRoute) {
  for (int p : {0, 1, 2, 3, 4, (int)kNoRoute})
    for (uint32_t m = 0; m <= 0xffff; m += (m < 64 ? 1 : 257)) {
      const RouteEntry e{(uint8_t)p, (uint16_t)m};
      const uint32_t w = route_word(e);
      EXPECT_EQ(w, (uint32_t)p | m << 8);
      RouteEntry d{7, 7};
      ASSERT_TRUE(route_from_word(w, &d));
      EXPECT_EQ(d.port, e.port);
      EXPECT_EQ(d.vc_mask, e.vc_mask);
    }
  EXPECT_EQ(route_word({kNoRoute, 0}), 0xffu);
  RouteEntry d{kEast, 5};
  EXPECT_FALSE(route_from_word(0x01000001u, &d));
  EXPECT_FALSE(route_from_word(0x800000ffu, &d));
  EXPECT_EQ(d.port, kEast);  // untouched when refused
  EXPECT_EQ(d.vc_mask, 5);
}

// The one table-entry predicate: kNoRoute is acceptable, a port must be 0..4 and in the
// connected set, a mask non-empty and within the VCs.
TEST(RouteEntryPredicate, PortsMasksAndNoRoute) {
  const uint32_t all = 0x1f, no_east = 0x1f & ~(1u << kEast);
  EXPECT_EQ(route_entry_fault({kNoRoute, 0}, 2, 0), RouteEntryFault::kNone);
  EXPECT_EQ(route_entry_fault({kNoRoute, 0xffff}, 2, all), RouteEntryFault::kNone);
  for (int p = 0; p < kNumPorts; ++p) {
    EXPECT_EQ(route_entry_fault({(uint8_t)p, 3}, 2, all), RouteEntryFault::kNone) << p;
    EXPECT_EQ(route_entry_fault({(uint8_t)p, 3}, 2, all & ~(1u << p)), RouteEntryFault::kPort) << p;
  }
  EXPECT_EQ(route_entry_fault({kEast, 1}, 2, no_east), RouteEntryFault::kPort);
  EXPECT_EQ(route_entry_fault({5, 1}, 2, 0xff), RouteEntryFault::kPort);  // lane ports are never named
  EXPECT_EQ(route_entry_fault({kNorth, 0}, 2, all), RouteEntryFault::kMask);
  EXPECT_EQ(route_entry_fault({kNorth, 4}, 2, all), RouteEntryFault::kMask);
  EXPECT_EQ(route_entry_fault({kNorth, 0x8000}, 16, all), RouteEntryFault::kNone);
  EXPECT_EQ(route_entry_fault({kNorth, 0x8000}, 15, all), RouteEntryFault::kMask);
  EXPECT_NE(route_entry_error("router 3", 9, {kNorth, 4}, 2).find("router 3: entry for destination 9"),
            std::string::npos);
}

// The pipeline-register rule (models/noc/types.h pipeline_regs): the spec's table.
TEST(PipelineRegs, MatchTheSpecTable) {
  const int want[5][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}};
  for (int p = 1; p <= kMaxPipeline; ++p) {
    EXPECT_EQ(pipeline_regs(p).rc, want[p][0]) << p;
    EXPECT_EQ(pipeline_regs(p).va, want[p][1]) << p;
    EXPECT_EQ(pipeline_regs(p).sa, want[p][2]) << p;
    EXPECT_EQ(pipeline_regs(p).rc + pipeline_regs(p).va + pipeline_regs(p).sa, p - 1) << p;
  }
}
