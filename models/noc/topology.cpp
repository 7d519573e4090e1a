#include "models/noc/topology.h"

#include <algorithm>
#include <cstdlib>

namespace fm {

const char* port_name(Port p) {
  static const char* names[] = {"N", "E", "S", "W", "L", "L1", "L2", "L3"};
  static_assert(sizeof(names) / sizeof(names[0]) == kMaxPorts, "one name per port");
  return p < kMaxPorts ? names[p] : "?";
}

long Topology2D::neighbour(ChipId c, Port p) const {
  int cx = x(c), cy = y(c);
  switch (p) {
    case kNorth: ++cy; break;
    case kSouth: --cy; break;
    case kEast: ++cx; break;
    case kWest: --cx; break;
    default: return -1;
  }
  if (torus_) {
    cx = (cx + w_) % w_;
    cy = (cy + h_) % h_;
  } else if (cx < 0 || cy < 0 || cx >= w_ || cy >= h_) {
    return -1;
  }
  return id(cx, cy);
}

bool Topology2D::is_wrap(ChipId c, Port p) const {
  if (!torus_) return false;
  switch (p) {
    case kNorth: return y(c) == h_ - 1;
    case kSouth: return y(c) == 0;
    case kEast: return x(c) == w_ - 1;
    case kWest: return x(c) == 0;
    default: return false;
  }
}

int Topology2D::distance(ChipId a, ChipId b) const {
  int dx = std::abs(x(a) - x(b)), dy = std::abs(y(a) - y(b));
  if (torus_) {
    dx = std::min(dx, w_ - dx);
    dy = std::min(dy, h_ - dy);
  }
  return dx + dy;
}

}  // namespace fm
