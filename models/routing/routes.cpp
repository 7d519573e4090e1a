#include "models/routing/routes.h"

#include <algorithm>
#include <queue>

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
      for (int c = s; !ok[c];) {
        const Port p = (Port)rs.tables[c].lookup(d).port;
        if (f.link_dead(c, p))
          throw ConfigError("--routing " + rs.scheme + ": the faults block dimension-order routing from " +
                            at(t, s) + " to " + at(t, d) + " at " + at(t, c) + " going " +
                            port_name(p) + "; use --routing lash (or auto, the default)");
        path.push_back(c);
        c = (int)t.neighbour(c, p);
      }
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
    std::vector<std::vector<int>> groups;
    std::vector<int> rest = pack(live_, n_.vcs, &groups);
    std::vector<int> updown;
    if (!rest.empty()) {
      // Not every destination fits: keep one group for up*/down* trees.
      groups.clear();
      updown = n_.vcs > 1 ? pack(live_, n_.vcs - 1, &groups) : live_;
      updown_levels();
      for (int d : updown) updown_tree(d);
      groups.push_back(updown);
    }
    rs.groups = (int)groups.size();
    rs.updown_dests = (int)updown.size();
    rs.tables.assign(N_, RouteTable(N_));
    const int V = n_.vcs, k = rs.groups;
    for (int g = 0; g < k; ++g) {
      const int lo = g * V / k, hi = (g + 1) * V / k;
      const uint16_t mask = (uint16_t)(((1u << hi) - 1) & ~((1u << lo) - 1));
      for (int d : groups[g])
        for (int c : live_)
          rs.tables[c].set(d, {c == d ? (uint8_t)kLocal : tree_[(size_t)d * N_ + c],
                               c == d ? all_vcs_mask(V) : mask});
    }
    clear_dead(f_, rs.tables);
    return rs;
  }

 private:
  uint8_t& next(int d, int c) { return tree_[(size_t)d * N_ + c]; }

  // Shortest-path tree toward d over live links; among shortest next hops prefer the
  // configured dimension order's, then the other order's, then N, E, S, W.
  void shortest_tree(int d) {
    std::vector<int> dist(N_, -1);
    std::queue<int> q;
    q.push(d);
    dist[d] = 0;
    while (!q.empty()) {
      const int c = q.front();
      q.pop();
      for (int p = 0; p < kNumNetPorts; ++p) {
        const long u = t_.neighbour(c, (Port)p);
        if (u < 0 || dist[u] >= 0 || f_.link_dead(u, opposite((Port)p))) continue;
        dist[u] = dist[c] + 1;
        q.push((int)u);
      }
    }
    const bool x_first = n_.routing != Routing::YX;
    for (int c : live_) {
      if (c == d) continue;
      const Port pref[6] = {dor_step(t_, c, d, x_first).port, dor_step(t_, c, d, !x_first).port,
                            kNorth, kEast, kSouth, kWest};
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
  void updown_levels() {
    int root = live_[0];
    const ChipId centre = t_.id(t_.width() / 2, t_.height() / 2);
    int best = 1 << 30;
    for (int c : live_) {
      const int dd = t_.distance(c, centre);
      if (dd < best) { best = dd; root = c; }
    }
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
      if (level_[c] < 0)
        throw ConfigError("--routing lash: the links that work in both directions do not connect " +
                          at(t_, c) + " to the rest, so no up*/down* fallback exists for this "
                          "fault set (one-way link failures); give the router more VCs");
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
  std::vector<int> live_, level_;
  std::vector<uint8_t> tree_;  // [dest][chip]: next port
};

}  // namespace

RouteSet build_routes(const NetworkConfig& n, const FaultSet& f) {
  const std::string cut = f.connectivity();
  if (!cut.empty()) throw ConfigError(cut);
  Routing r = n.routing;
  if (r == Routing::Auto) r = f.empty() ? Routing::XY : Routing::Lash;
  RouteSet rs = r == Routing::Lash ? Lash(n, f).build() : dor(n, f);
  if (n.routing == Routing::Auto) rs.scheme = "auto (" + rs.scheme + ")";
  return rs;
}

}  // namespace fm
