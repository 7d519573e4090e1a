#include "models/route_table.h"

namespace fm {

uint16_t all_vcs_mask(int vcs) { return (uint16_t)((1u << vcs) - 1); }

uint16_t dateline_class_mask(int vcs, int cls) {
  const int half = vcs / 2;  // class 0: [0, half), class 1: [half, vcs)
  const uint16_t low = (uint16_t)((1u << half) - 1);
  return cls == 0 ? low : (uint16_t)(all_vcs_mask(vcs) & ~low);
}

namespace {

// One dimension's step from coordinate `at` toward `to` on a line or ring of size k.
// Returns the port (plus or minus) and whether the remaining path crosses the wrap link.
struct Step {
  bool plus;
  bool crosses_wrap;
};

Step dim_step(int at, int to, int k, bool torus) {
  if (!torus) return {to > at, false};
  const int up = ((to - at) % k + k) % k;    // hops going plus
  const int down = ((at - to) % k + k) % k;  // hops going minus
  const bool plus = up <= down;              // tie: plus
  // Going plus from at to to wraps (k-1 -> 0) iff to < at; going minus wraps iff to > at.
  return {plus, plus ? (to < at) : (to > at)};
}

}  // namespace

std::vector<RouteTable> build_dor_tables(const NetworkConfig& n) {
  const Topology2D topo(n);
  const int chips = topo.chips();
  std::vector<RouteTable> tables(chips, RouteTable(chips));
  const uint16_t all = all_vcs_mask(n.vcs);
  for (int c = 0; c < chips; ++c) {
    const int cx = topo.x(c), cy = topo.y(c);
    for (int d = 0; d < chips; ++d) {
      const int dx = topo.x(d), dy = topo.y(d);
      RouteEntry e;
      e.vc_mask = all;
      const bool x_first = n.routing == Routing::XY;
      const bool x_left = cx != dx, y_left = cy != dy;
      if (!x_left && !y_left) {
        e.port = kLocal;
      } else if (x_left && (x_first || !y_left)) {
        Step s = dim_step(cx, dx, n.width, topo.torus());
        e.port = s.plus ? kEast : kWest;
        if (topo.torus()) e.vc_mask = dateline_class_mask(n.vcs, s.crosses_wrap ? 0 : 1);
      } else {
        Step s = dim_step(cy, dy, n.height, topo.torus());
        e.port = s.plus ? kNorth : kSouth;
        if (topo.torus()) e.vc_mask = dateline_class_mask(n.vcs, s.crosses_wrap ? 0 : 1);
      }
      tables[c].set(d, e);
    }
  }
  return tables;
}

}  // namespace fm
