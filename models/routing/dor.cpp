#include "models/routing/dor.h"

namespace fm {

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

DorStep dor_step(const Topology2D& t, ChipId c, ChipId d, bool x_first) {
  const int cx = t.x(c), cy = t.y(c), dx = t.x(d), dy = t.y(d);
  const bool x_left = cx != dx, y_left = cy != dy;
  if (!x_left && !y_left) return {kLocal, false};
  if (x_left && (x_first || !y_left)) {
    const Step s = dim_step(cx, dx, t.width(), t.torus());
    return {s.plus ? kEast : kWest, s.crosses_wrap};
  }
  const Step s = dim_step(cy, dy, t.height(), t.torus());
  return {s.plus ? kNorth : kSouth, s.crosses_wrap};
}

std::vector<RouteTable> build_dor_tables(const NetworkConfig& n) {
  const Topology2D topo(n);
  const int chips = topo.chips();
  std::vector<RouteTable> tables(chips, RouteTable(chips));
  const uint16_t all = all_vcs_mask(n.vcs);
  const bool x_first = n.routing != Routing::YX;
  for (int c = 0; c < chips; ++c) {
    for (int d = 0; d < chips; ++d) {
      const DorStep s = dor_step(topo, c, d, x_first);
      RouteEntry e;
      e.port = s.port;
      e.vc_mask = all;
      if (topo.torus() && s.port != kLocal)
        e.vc_mask = dateline_class_mask(n.vcs, s.crosses_wrap ? 0 : 1);
      tables[c].set(d, e);
    }
  }
  return tables;
}

}  // namespace fm
