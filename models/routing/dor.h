// Dimension-order routing (XY or YX): the one definition of the DOR next hop, and the
// DOR route tables built from it. The table type itself is models/route_table.h.
#pragma once
#include <cstdint>
#include <vector>

#include "models/config.h"
#include "models/noc/topology.h"
#include "models/noc/types.h"
#include "models/route_table.h"

namespace fm {

// VC classes used on a torus (dateline scheme): class 0 is the lower half of the VCs,
// class 1 the upper half. A packet whose remaining path in the current dimension still
// crosses the wraparound link uses class 0; otherwise class 1.
uint16_t dateline_class_mask(int vcs, int cls);

// The dimension-order next hop from c toward d (kLocal when c == d), and whether the
// rest of the path in that dimension crosses the torus wraparound link. The one
// definition of DOR, used by the DOR tables and as the tie-break of other schemes.
struct DorStep {
  Port port;
  bool crosses_wrap;
};
DorStep dor_step(const Topology2D& t, ChipId c, ChipId d, bool x_first);

// Dimension-order routing tables (XY or YX as configured), one per router; minimal on a
// torus with dateline VC classes, ties (distance exactly half the ring) go East/North.
std::vector<RouteTable> build_dor_tables(const NetworkConfig& n);

}  // namespace fm
