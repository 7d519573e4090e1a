#include "models/routing/routes.h"

#include <algorithm>
#include <queue>

#include "models/routing/dor.h"
#include "models/routing/walk.h"

namespace fm {

namespace {

std::string at(const Topology2D& t, ChipId c) {
  return "(" + std::to_string(t.x(c)) + "," + std::to_string(t.y(c)) + ")";
}

// Entries for dead chips: no route to them, and a dead router's table is never used.
void clear_dead(const FaultSet& f, std::vector<RouteTable>& tables) {
  const int n = f.topology().chips();
  for (int c = 0; c < n; ++c)
    for (int d = 0; d < n; ++d)
      if (f.chip_dead(c) || f.chip_dead(d)) tables[c].set(d, {kNoRoute, 0});
}

RouteSet dor(const NetworkConfig& n, const FaultSet& f) {
  RouteSet rs;
  rs.scheme = n.routing == Routing::YX ? "yx" : "xy";
  rs.tables = build_dor_tables(n);
  const Topology2D& t = f.topology();
  std::vector<char> ok(t.chips());
  for (int d = 0; d < t.chips(); ++d) {
    if (f.chip_dead(d)) continue;
    std::fill(ok.begin(), ok.end(), 0);
    ok[d] = 1;
    for (int s = 0; s < t.chips(); ++s) {
      if (f.chip_dead(s)) continue;
      std::vector<int> path;
      for_each_hop(
          t, s, d, [&](ChipId c) { return rs.tables[c].lookup(d).port; },
          [&](ChipId c, Port p) {
            if (ok[c]) return false;  // the rest of the way is checked already
            if (f.link_dead(c, p))
              throw ConfigError("--routing " + rs.scheme + ": the faults block dimension-order routing from " +
                                at(t, s) + " to " + at(t, d) + " at " + at(t, c) + " going " +
                                port_name(p) + "; use --routing lash (or auto, the default)");
            path.push_back(c);
            return true;
          });
      for (int c : path) ok[c] = 1;
    }
  }
  clear_dead(f, rs.tables);
  return rs;
}

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


// Fault rings (Boppana & Chalasani's f-rings, destination-based). Dead chips must form
// rectangular blocks; each block's ring is the live chips of the block grown by one.
class FRing {
 public:
  FRing(const NetworkConfig& n, const FaultSet& f) : n_(n), f_(f), t_(f.topology()) {}

  RouteSet build() {
    const std::string why = "--routing fring: ";
    if (t_.torus()) throw ConfigError(why + "fault rings are defined on meshes; use lash on a torus");
    if (!n_.faults.links.empty())
      throw ConfigError(why + "handles failed chips and boards only, not failed links; use lash");
    if (n_.vcs < 4)
      throw ConfigError(why + "needs at least 4 VCs (one class per message direction WE, EW, NS, SN); got --vcs " +
                        std::to_string(n_.vcs));
    find_blocks(why);
    const int N = t_.chips(), V = n_.vcs;
    RouteSet rs;
    rs.scheme = "fring";
    rs.groups = 4;
    rs.tables.assign(N, RouteTable(N));
    for (int c = 0; c < N; ++c)
      for (int d = 0; d < N; ++d) {
        if (f_.chip_dead(c) || f_.chip_dead(d)) continue;
        if (c == d) {
          rs.tables[c].set(d, {kLocal, all_vcs_mask(V)});
          continue;
        }
        const Port p = route(c, d);
        rs.tables[c].set(d, {(uint8_t)p, vc_group_mask(V, vc_class(c, d), 4)});
      }
    clear_dead(f_, rs.tables);
    return rs;
  }

 private:
  struct Block {
    int x1, y1, x2, y2;
  };

  // Dead chips grouped 4-connected; each group must fill its bounding rectangle, and
  // the rings (rectangles grown by one) must be pairwise disjoint.
  void find_blocks(const std::string& why) {
    const int N = t_.chips();
    std::vector<int> comp(N, -1);
    for (int s = 0; s < N; ++s) {
      if (!f_.chip_dead(s) || comp[s] >= 0) continue;
      Block b{t_.x(s), t_.y(s), t_.x(s), t_.y(s)};
      int count = 0;
      std::vector<int> st{s};
      comp[s] = (int)blocks_.size();
      while (!st.empty()) {
        const int c = st.back();
        st.pop_back();
        ++count;
        b.x1 = std::min(b.x1, t_.x(c));
        b.x2 = std::max(b.x2, t_.x(c));
        b.y1 = std::min(b.y1, t_.y(c));
        b.y2 = std::max(b.y2, t_.y(c));
        for (int p = 0; p < kNumNetPorts; ++p) {
          const long d = t_.neighbour(c, (Port)p);
          if (d >= 0 && f_.chip_dead(d) && comp[d] < 0) {
            comp[d] = comp[s];
            st.push_back((int)d);
          }
        }
      }
      if (count != (b.x2 - b.x1 + 1) * (b.y2 - b.y1 + 1))
        throw ConfigError(why + "the dead chips around " + at(t_, s) +
                          " do not form a rectangle (fault rings need rectangular blocks); use lash");
      blocks_.push_back(b);
    }
    for (size_t i = 0; i < blocks_.size(); ++i)
      for (size_t j = i + 1; j < blocks_.size(); ++j) {
        const Block &a = blocks_[i], &b = blocks_[j];
        if (a.x1 - 1 <= b.x2 + 1 && b.x1 - 1 <= a.x2 + 1 && a.y1 - 1 <= b.y2 + 1 && b.y1 - 1 <= a.y2 + 1)
          throw ConfigError(why + "the fault rings around the blocks at " + at(t_, t_.id(a.x1, a.y1)) +
                            " and " + at(t_, t_.id(b.x1, b.y1)) +
                            " overlap (blocks need two live chips between them); use lash");
      }
    ring_.assign(N, -1);
    for (size_t i = 0; i < blocks_.size(); ++i) {
      const Block& b = blocks_[i];
      for (int y = std::max(0, b.y1 - 1); y <= std::min(t_.height() - 1, b.y2 + 1); ++y)
        for (int x = std::max(0, b.x1 - 1); x <= std::min(t_.width() - 1, b.x2 + 1); ++x)
          if (!f_.chip_dead(t_.id(x, y))) ring_[t_.id(x, y)] = (int)i;
    }
  }

  // Message class (VC class) of a packet at c bound for d: by direction, WE 0, EW 1,
  // NS 2, SN 3; but on a block's ring a packet bound for that block's shadow is a column
  // packet going around the block and keeps its column class (NS or SN) all the way
  // round, as in Boppana & Chalasani. (Classes by position alone let a detouring column
  // packet change class at the ring's corners, and the checker finds a cycle around
  // the block.)
  int vc_class(int c, int d) const {
    const int cx = t_.x(c), cy = t_.y(c), dx = t_.x(d), dy = t_.y(d);
    const int b = ring_[c];
    if (b >= 0) {
      const Block& k = blocks_[b];
      if (dx >= k.x1 && dx <= k.x2 && dy > k.y2) return 3;
      if (dx >= k.x1 && dx <= k.x2 && dy < k.y1) return 2;
    }
    return dx > cx ? 0 : dx < cx ? 1 : dy < cy ? 2 : 3;
  }

  // The next hop from c toward d: e-cube, except on a block's ring, where
  //  - a packet for the block's "shadow" (a chip beyond the block in y within its
  //    columns) walks the near ring row to the ring's side, then along the side past the
  //    block (after which e-cube brings it back to its column);
  //  - a row packet whose next hop is into the block goes around it north or south
  //    (toward the destination's row, the shorter way for rows within the block).
  Port route(int c, int d) {
    const int cx = t_.x(c), cy = t_.y(c), dx = t_.x(d), dy = t_.y(d);
    const int W = t_.width(), H = t_.height();
    const Port ecube = dor_step(t_, c, d, true).port;
    const int b = ring_[c];
    if (b < 0) return ecube;
    const Block& k = blocks_[b];
    const bool side_col = cx == k.x1 - 1 || cx == k.x2 + 1;
    auto side = [&]() {  // the ring side a shadow packet goes around, W or E
      bool west = (dx - k.x1) <= (k.x2 - dx);
      if (k.x1 == 0) west = false;
      if (k.x2 == W - 1) west = true;
      return west ? kWest : kEast;
    };
    if (dx >= k.x1 && dx <= k.x2 && dy > k.y2) {  // shadow above the block
      if (cy == k.y1 - 1 && cx >= k.x1 && cx <= k.x2) return side();
      if (side_col && cy >= k.y1 - 1 && cy <= k.y2) return kNorth;
    }
    if (dx >= k.x1 && dx <= k.x2 && dy < k.y1) {  // shadow below the block
      if (cy == k.y2 + 1 && cx >= k.x1 && cx <= k.x2) return side();
      if (side_col && cy >= k.y1 && cy <= k.y2 + 1) return kSouth;
    }
    if ((ecube == kEast || ecube == kWest) && f_.link_dead(c, ecube)) {
      bool north = dy > k.y2 ? true : dy < k.y1 ? false : (k.y2 + 1 - dy) <= (dy - (k.y1 - 1));
      if (k.y2 == H - 1) north = false;
      if (k.y1 == 0) north = true;
      return north ? kNorth : kSouth;
    }
    return ecube;
  }

  const NetworkConfig& n_;
  const FaultSet& f_;
  const Topology2D& t_;
  std::vector<Block> blocks_;
  std::vector<int> ring_;  // per chip: the block whose ring it is on, or -1
};

}  // namespace

RouteSet build_routes(const NetworkConfig& n, const FaultSet& f) {
  const std::string cut = f.connectivity();
  if (!cut.empty()) throw ConfigError(cut);
  Routing r = n.routing;
  if (r == Routing::Auto) r = f.empty() ? Routing::XY : Routing::Lash;
  RouteSet rs = r == Routing::Lash ? Lash(n, f).build() : r == Routing::FRing ? FRing(n, f).build() : dor(n, f);
  if (n.routing == Routing::Auto) rs.scheme = "auto (" + rs.scheme + ")";
  return rs;
}

}  // namespace fm
