// shrink, a baseline: 2d (two_d.cpp) on the largest fault-free rectangle of the
// machine, the chips outside it idle. This file finds the rectangle.
#include "models/collective/algorithms_impl.h"

namespace fm::coll::detail {

// shrink: the largest rectangle of live chips with live links inside (wrapping on a
// torus). Among equally large ones, one spanning a whole torus dimension (its lines
// close into rings) is preferred, the first-phase dimension (x unless `x_first` is
// false) first; then the lowest (y, x) corner.
Rect largest_rect(const FaultSet& f, bool x_first) {
  const Topology2D& t = f.topology();
  const int W = t.width(), H = t.height();
  const bool torus = t.torus();
  auto ok_chip = [&](int x, int y) { return !f.chip_dead(t.id(x % W, y % H)); };
  auto link_ok = [&](int x, int y, Port p) {
    const ChipId a = t.id(x % W, y % H);
    const long n = t.neighbour(a, p);
    return n >= 0 && !f.link_dead(a, p) && !f.link_dead((ChipId)n, opposite(p));
  };
  Rect best;
  auto score = [&](const Rect& r) {
    const long a = (long)r.w * r.h;
    const int fw = torus && r.w == W, fh = torus && r.h == H;
    return a * 4 + (x_first ? 2 * fw + fh : 2 * fh + fw);
  };
  for (int y0 = 0; y0 < H; ++y0)
    for (int x0 = 0; x0 < W; ++x0) {
      if (!ok_chip(x0, y0)) continue;
      // Grow heights row by row; for each height the widest run that stays valid.
      int maxw = torus ? W : W - x0;
      for (int h = 1; h <= (torus ? H : H - y0); ++h) {
        const int y = y0 + h - 1;
        int w = 0;
        while (w < maxw) {
          const int x = x0 + w;
          if (!ok_chip(x, y)) break;
          if (w > 0 && !link_ok(x - 1, y, kEast)) break;
          if (h > 1 && !link_ok(x, y - 1, kNorth)) break;
          ++w;
        }
        maxw = w;
        if (maxw == 0) break;
        const Rect r{x0, y0, maxw, h};
        if (score(r) > score(best)) best = r;
      }
    }
  return best;
}

}  // namespace fm::coll::detail
