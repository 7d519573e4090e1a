// Table-based routing: each router holds, for every destination chip, the output port
// and the set of output VCs a packet may be allocated there. Routing schemes fill these
// tables; the routers (and later the deadlock checker and the RTL) only read them.
#pragma once
#include <vector>

#include "models/config.h"
#include "models/noc/topology.h"

namespace fm {

// One table entry: 1 byte port + 2 bytes VC mask (bit v = VC v allowed). The same
// 24-bit format is what the RTL route-table register port takes (docs/router-microarchitecture.md).
struct RouteEntry {
  uint8_t port = kLocal;
  uint16_t vc_mask = 0;
};
// Port value of an entry for a destination that has no route (a dead chip). A head
// flit that looks it up is a violation; the checker requires that no live pair uses it.
constexpr uint8_t kNoRoute = 0xff;

class RouteTable {
 public:
  explicit RouteTable(int chips = 0) : e_(chips) {}
  const RouteEntry& lookup(ChipId dst) const { return e_[dst]; }
  void set(ChipId dst, RouteEntry e) { e_[dst] = e; }
  int size() const { return (int)e_.size(); }

 private:
  std::vector<RouteEntry> e_;
};

// VC classes used on a torus (dateline scheme): class 0 is the lower half of the VCs,
// class 1 the upper half. A packet whose remaining path in the current dimension still
// crosses the wraparound link uses class 0; otherwise class 1.
uint16_t all_vcs_mask(int vcs);
// The VCs of group g when `vcs` VCs are split into k groups: [g*vcs/k, (g+1)*vcs/k).
uint16_t vc_group_mask(int vcs, int g, int k);
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
