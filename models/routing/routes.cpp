// build_routes: the scheme --routing names (auto resolved) turned into the routers'
// tables. Dimension order and fault rings are here; lash, the scheme for any fault set,
// is models/routing/lash.cpp.
#include "models/routing/routes.h"

#include <algorithm>

#include "models/routing/dor.h"
#include "models/routing/routes_impl.h"
#include "models/routing/walk.h"

namespace fm {

namespace routing_detail {

// Entries for dead chips: no route to them, and a dead router's table is never used.
void clear_dead(const FaultSet& f, std::vector<RouteTable>& tables) {
  const int n = f.topology().chips();
  for (int c = 0; c < n; ++c)
    for (int d = 0; d < n; ++d)
      if (f.chip_dead(c) || f.chip_dead(d)) tables[c].set(d, {kNoRoute, 0});
}

}  // namespace routing_detail

namespace {

using routing_detail::clear_dead;

std::string at(const Topology2D& t, ChipId c) {
  return "(" + std::to_string(t.x(c)) + "," + std::to_string(t.y(c)) + ")";
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
  RouteSet rs = r == Routing::Lash    ? routing_detail::lash_routes(n, f)
                : r == Routing::FRing ? FRing(n, f).build()
                                      : dor(n, f);
  if (n.routing == Routing::Auto) rs.scheme = "auto (" + rs.scheme + ")";
  return rs;
}

}  // namespace fm
