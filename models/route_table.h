// Table-based routing: each router holds, for every destination chip, the output port
// and the set of output VCs a packet may be allocated there. Routing schemes fill these
// tables (models/routing/: dor.h builds the dimension-order ones); the routers (and later
// the deadlock checker and the RTL) only read them.
#pragma once
#include <cstdint>
#include <vector>

#include "models/noc/types.h"

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

// The VC mask of all `vcs` VCs.
uint16_t all_vcs_mask(int vcs);
// The VCs of group g when `vcs` VCs are split into k groups: [g*vcs/k, (g+1)*vcs/k).
uint16_t vc_group_mask(int vcs, int g, int k);

}  // namespace fm
