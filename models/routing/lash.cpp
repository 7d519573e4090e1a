// lash: layered shortest-path routing for any fault set that leaves the live chips
// connected (docs/routing.md, "lash"). Each destination's shortest-path tree goes into
// the first VC group whose channel dependency graph it keeps acyclic; the destinations
// that fit no group use up*/down* trees, or in-tree/out-tree routes when one-way link
// failures leave no two-way spanning tree.
#include <algorithm>
#include <queue>

#include "models/routing/dor.h"
#include "models/routing/routes_impl.h"

namespace fm::routing_detail {

namespace {

// The links a packet may use in up*/down* routing: both directions alive.
bool usable(const FaultSet& f, ChipId c, Port p) {
  const long d = f.topology().neighbour(c, p);
  return d >= 0 && !f.link_dead(c, p) && !f.link_dead((ChipId)d, opposite(p));
}

class Lash {
 public:
  Lash(const NetworkConfig& n, const FaultSet& f)
      : n_(n), f_(f), t_(f.topology()), N_(t_.chips()), tree_((size_t)N_ * N_, kNoRoute) {
    for (int c = 0; c < N_; ++c) if (!f.chip_dead(c)) live_.push_back(c);
  }

  RouteSet build() {
    for (int d : live_) shortest_tree(d);
    RouteSet rs;
    rs.scheme = "lash";
    const int V = n_.vcs;
    std::vector<std::vector<int>> groups;
    std::vector<int> rest = pack(live_, V, &groups);
    std::vector<int> fallback;
    int fallback_groups = 0;
    if (!rest.empty()) {
      // Not every destination fits: keep one group for up*/down* trees, or, when the
      // links that work both ways do not connect the live chips (one-way failures), two
      // groups for in-tree/out-tree routes.
      groups.clear();
      if (updown_levels()) {
        fallback = V > 1 ? pack(live_, V - 1, &groups) : live_;
        for (int d : fallback) updown_tree(d);
        fallback_groups = 1;
      } else if (V >= 2) {
        fallback = V > 2 ? pack(live_, V - 2, &groups) : live_;
        inout_trees();
        fallback_groups = 2;
      } else {
        throw ConfigError("--routing lash: with one-way link failures that leave no two-way spanning "
                          "tree, the fallback needs at least 2 VCs; got --vcs 1");
      }
    }
    const int k = (int)groups.size() + fallback_groups;
    rs.groups = k;
    rs.fallback_dests = (int)fallback.size();
    auto mask_of = [&](int g) { return vc_group_mask(V, g, k); };
    rs.tables.assign(N_, RouteTable(N_));
    for (size_t g = 0; g < groups.size(); ++g)
      for (int d : groups[g])
        for (int c : live_) rs.tables[c].set(d, entry(c, d, mask_of((int)g)));
    const int g0 = (int)groups.size();
    for (int d : fallback)
      for (int c : live_) {
        if (fallback_groups == 1) {
          rs.tables[c].set(d, entry(c, d, mask_of(g0)));
        } else {  // in-tree hops in the first fallback group, out-tree hops in the second
          const bool down = out_ancestor_of(c, d);
          rs.tables[c].set(d, {c == d ? (uint8_t)kLocal : (down ? out_next(c, d) : in_port_[c]),
                               c == d ? all_vcs_mask(V) : mask_of(g0 + (down ? 1 : 0))});
        }
      }
    clear_dead(f_, rs.tables);
    return rs;
  }

 private:
  uint8_t& next(int d, int c) { return tree_[(size_t)d * N_ + c]; }
  RouteEntry entry(int c, int d, uint16_t mask) {
    if (c == d) return {kLocal, all_vcs_mask(n_.vcs)};
    return {next(d, c), mask};
  }

  // Shortest-path tree toward d over live links; among shortest next hops prefer the
  // configured dimension order's, then the other order's, then N, E, S, W (S, W, N, E
  // for destinations with odd x + y).
  void shortest_tree(int d) {
    const std::vector<int> dist = f_.distances_to(d);
    const bool x_first = n_.routing != Routing::YX;
    for (int c : live_) {
      if (c == d) continue;
      // Unforced ties (a detour around a hole) alternate by destination parity, so the
      // detours of different destinations split over both sides of the hole instead
      // of all piling onto one.
      const bool odd = (t_.x(d) + t_.y(d)) & 1;
      const Port pref[6] = {dor_step(t_, c, d, x_first).port, dor_step(t_, c, d, !x_first).port,
                            odd ? kSouth : kNorth, odd ? kWest : kEast,
                            odd ? kNorth : kSouth, odd ? kEast : kWest};
      for (Port p : pref) {
        if (p == kLocal || f_.link_dead(c, p)) continue;
        if (dist[t_.neighbour(c, p)] == dist[c] - 1) {
          next(d, c) = (uint8_t)p;
          break;
        }
      }
    }
  }

  // Link-level dependency edges of d's tree: (chip*4+port) -> (next chip*4+port).
  void tree_edges(int d, std::vector<std::pair<int, int>>* e) {
    e->clear();
    for (int c : live_) {
      if (c == d) continue;
      const int p = next(d, c);
      const int nx = (int)t_.neighbour(c, (Port)p);
      if (nx != d) e->push_back({c * kNumNetPorts + p, nx * kNumNetPorts + next(d, nx)});
    }
  }

  struct Group {
    std::vector<std::vector<int>> succ;
  };

  static bool acyclic(const Group& g) {
    const int n = (int)g.succ.size();
    std::vector<uint8_t> color(n, 0);
    std::vector<std::pair<int, size_t>> st;
    for (int s = 0; s < n; ++s) {
      if (color[s] || g.succ[s].empty()) continue;
      st.push_back({s, 0});
      color[s] = 1;
      while (!st.empty()) {
        auto& [u, i] = st.back();
        if (i < g.succ[u].size()) {
          const int v = g.succ[u][i++];
          if (color[v] == 1) return false;
          if (!color[v]) {
            color[v] = 1;
            st.push_back({v, 0});
          }
        } else {
          color[u] = 2;
          st.pop_back();
        }
      }
    }
    return true;
  }

  // Adds the edges if the group stays acyclic; otherwise leaves it unchanged.
  static bool try_add(Group& g, const std::vector<std::pair<int, int>>& e) {
    std::vector<std::pair<int, int>> added;
    for (auto [a, b] : e) {
      auto& s = g.succ[a];
      if (std::find(s.begin(), s.end(), b) != s.end()) continue;
      s.push_back(b);
      added.push_back({a, b});
    }
    if (added.empty() || acyclic(g)) return true;
    for (auto [a, b] : added) g.succ[a].erase(std::find(g.succ[a].begin(), g.succ[a].end(), b));
    return false;
  }

  // First-fit of the destinations' shortest trees into at most max_groups acyclic
  // groups; returns the destinations that fit none.
  std::vector<int> pack(const std::vector<int>& dests, int max_groups,
                        std::vector<std::vector<int>>* members) {
    std::vector<Group> gs;
    std::vector<int> rest;
    std::vector<std::pair<int, int>> e;
    for (int d : dests) {
      tree_edges(d, &e);
      bool placed = false;
      for (size_t g = 0; g < gs.size() && !placed; ++g)
        if (try_add(gs[g], e)) { (*members)[g].push_back(d); placed = true; }
      if (!placed && (int)gs.size() < max_groups) {
        gs.push_back({std::vector<std::vector<int>>(N_ * kNumNetPorts)});
        members->push_back({});
        try_add(gs.back(), e);  // a single tree is always acyclic
        members->back().push_back(d);
        placed = true;
      }
      if (!placed) rest.push_back(d);
    }
    return rest;
  }

  // up*/down*: BFS levels from a root near the centre over links usable both ways.
  // Hop u -> v is "up" when (level, id) of v is smaller than that of u.
  bool updown_levels() {
    const int root = this->root();
    level_.assign(N_, -1);
    std::queue<int> q;
    q.push(root);
    level_[root] = 0;
    while (!q.empty()) {
      const int c = q.front();
      q.pop();
      for (int p = 0; p < kNumNetPorts; ++p) {
        if (!usable(f_, c, (Port)p)) continue;
        const int u = (int)t_.neighbour(c, (Port)p);
        if (level_[u] >= 0) continue;
        level_[u] = level_[c] + 1;
        q.push(u);
      }
    }
    for (int c : live_)
      if (level_[c] < 0) return false;  // one-way failures cut the two-way links
    return true;
  }

  int root() const {
    int best = 1 << 30, r = live_[0];
    const ChipId centre = t_.id(t_.width() / 2, t_.height() / 2);
    for (int c : live_)
      if (t_.distance(c, centre) < best) { best = t_.distance(c, centre); r = c; }
    return r;
  }

  // In-tree and out-tree of a root over the (directed) live links: a packet climbs the
  // in-tree toward the root until it reaches an out-tree ancestor of its destination,
  // then descends the out-tree. In-tree hops and out-tree hops are each a tree's edges
  // (no cycle), and a packet never returns from the out-tree to the in-tree, so with the
  // two in separate VC groups the routes are deadlock-free on any strongly connected
  // graph.
  void inout_trees() {
    const int r = root();
    out_parent_.assign(N_, -1);
    out_port_.assign(N_, kNoRoute);
    in_port_.assign(N_, kNoRoute);
    std::vector<char> seen(N_, 0);
    std::queue<int> q;
    q.push(r);
    seen[r] = 1;
    while (!q.empty()) {  // out-tree: forward BFS
      const int c = q.front();
      q.pop();
      for (int p = 0; p < kNumNetPorts; ++p) {
        if (f_.link_dead(c, (Port)p)) continue;
        const int u = (int)t_.neighbour(c, (Port)p);
        if (seen[u]) continue;
        seen[u] = 1;
        out_parent_[u] = c;
        out_port_[u] = (uint8_t)p;  // the parent's port toward u
        q.push(u);
      }
    }
    std::fill(seen.begin(), seen.end(), 0);
    q.push(r);
    seen[r] = 1;
    while (!q.empty()) {  // in-tree: backward BFS
      const int c = q.front();
      q.pop();
      for (int p = 0; p < kNumNetPorts; ++p) {
        const long u = t_.neighbour(c, (Port)p);
        if (u < 0 || seen[u] || f_.link_dead((ChipId)u, opposite((Port)p))) continue;
        seen[u] = 1;
        in_port_[u] = (uint8_t)opposite((Port)p);  // u's port toward its in-tree parent c
        q.push((int)u);
      }
    }
  }
  // True when c is d or an ancestor of d in the out-tree.
  bool out_ancestor_of(int c, int d) const {
    for (int a = d; a >= 0; a = out_parent_[a])
      if (a == c) return true;
    return false;
  }
  // The out-tree port of c toward its descendant d.
  uint8_t out_next(int c, int d) const {
    int a = d;
    while (out_parent_[a] != c) a = out_parent_[a];
    return out_port_[a];
  }
  bool up(int u, int v) const {
    return level_[v] < level_[u] || (level_[v] == level_[u] && v < u);
  }

  // up*/down* tree toward d: first every chip that reaches d going only down, then, by
  // going up, every other chip. A chip reached going down never needs to go up again,
  // so each route is up* down*, and all such routes together form no cycle.
  void updown_tree(int d) {
    std::vector<char> seen(N_, 0);
    std::vector<int> order{d};
    seen[d] = 1;
    for (int phase = 0; phase < 2; ++phase) {
      std::queue<int> q;
      for (int c : order) q.push(c);
      while (!q.empty()) {
        const int w = q.front();
        q.pop();
        for (int p = 0; p < kNumNetPorts; ++p) {
          const Port back = opposite((Port)p);
          const long u = t_.neighbour(w, (Port)p);  // candidate u -> w through `back`
          if (u < 0 || seen[u] || !usable(f_, (ChipId)u, back)) continue;
          const bool is_up = up((int)u, w);
          if (phase == 0 ? is_up : !is_up) continue;  // phase 0: down hops; 1: up hops
          seen[u] = 1;
          next(d, (int)u) = (uint8_t)back;
          order.push_back((int)u);
          q.push((int)u);
        }
      }
    }
  }

  const NetworkConfig& n_;
  const FaultSet& f_;
  const Topology2D& t_;
  const int N_;
  std::vector<int> live_, level_, out_parent_;
  std::vector<uint8_t> out_port_, in_port_;
  std::vector<uint8_t> tree_;  // [dest][chip]: next port
};

}  // namespace

RouteSet lash_routes(const NetworkConfig& n, const FaultSet& f) { return Lash(n, f).build(); }

}  // namespace fm::routing_detail
