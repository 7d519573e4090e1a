// Table-based routing: each router holds, for every destination chip, the output port
// and the set of output VCs a packet may be allocated there. Routing schemes fill these
// tables (models/routing/: dor.h builds the dimension-order ones); the routers (and later
// the deadlock checker and the RTL) only read them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "models/noc/types.h"

namespace fm {

// One table entry: 1 byte port + 2 bytes VC mask (bit v = VC v allowed). As a register
// word (route_word()) it is what the RTL route-table port and the model's CSR window take
// (docs/router-microarchitecture.md, "Formats").
struct RouteEntry {
  uint8_t port = kLocal;
  uint16_t vc_mask = 0;
};
// Port value of an entry for a destination that has no route (a dead chip). A head
// flit that looks it up is a violation; the checker requires that no live pair uses it.
// The RTL stores it as its own port code (fm_pkg::PortNone) and drops such a head flit
// as the model does.
constexpr uint8_t kNoRoute = 0xff;

// The route-table register word: bits [kRouteWordPortLsb, +kRouteWordPortBits) the port
// byte (0..4, or kNoRoute), bits [kRouteWordMaskLsb, +kRouteWordMaskBits) the VC mask,
// bits kRouteWordBits..31 zero. The RTL package declares the same layout (rtl/fm_pkg.sv
// RoutePortLsb etc.); tb/rtl_mesh_router.cpp static_asserts the two equal.
constexpr int kRouteWordPortLsb = 0, kRouteWordPortBits = 8;
constexpr int kRouteWordMaskLsb = 8, kRouteWordMaskBits = 16;
constexpr int kRouteWordBits = 24;
static_assert(kRouteWordPortLsb + kRouteWordPortBits <= kRouteWordMaskLsb &&
                  kRouteWordMaskLsb + kRouteWordMaskBits == kRouteWordBits,
              "route word fields overlap or leave a gap at the top");
static_assert(kMaxVcs <= kRouteWordMaskBits, "the VC mask field holds every VC");

// Encodes an entry as its register word. The one encoder: the model's CSR window, the
// fault controller's table writes and the RTL adapters all use it.
constexpr uint32_t route_word(const RouteEntry& e) {
  return (uint32_t)e.port << kRouteWordPortLsb | (uint32_t)e.vc_mask << kRouteWordMaskLsb;
}
// Decodes a register word into *e; false (and *e untouched) when a reserved bit (24..31)
// is set. The one decoder, inverse of route_word() on every entry.
constexpr bool route_from_word(uint32_t w, RouteEntry* e) {
  if (w >> kRouteWordBits) return false;
  e->port = (uint8_t)(w >> kRouteWordPortLsb & ((1u << kRouteWordPortBits) - 1));
  e->vc_mask = (uint16_t)(w >> kRouteWordMaskLsb & ((1u << kRouteWordMaskBits) - 1));
  return true;
}

// What is wrong with a table entry a router with `vcs` VCs and the output ports in the
// bit set `ports` (bit p: port p is connected) would install.
enum class RouteEntryFault : uint8_t {
  kNone,  // acceptable: kNoRoute, or a connected port and a non-empty subset of the VCs
  kPort,  // a port above kLocal, or one not in `ports`
  kMask,  // an empty VC mask, or one naming a VC >= vcs
};
// The one table-entry predicate: Router::load_table and its CSR writes, the RTL adapter's
// load_table and the deadlock checker's per-hop check all ask it (the RTL's table-write
// assertion, rtl/fm_route_table.sv, checks the same rule). kNoRoute is acceptable here;
// the checker refuses it on a live path itself.
constexpr RouteEntryFault route_entry_fault(const RouteEntry& e, int vcs, uint32_t ports) {
  if (e.port == kNoRoute) return RouteEntryFault::kNone;
  if (e.port > kLocal || !(ports >> e.port & 1)) return RouteEntryFault::kPort;
  if (e.vc_mask == 0 || (e.vc_mask & ~((1u << vcs) - 1))) return RouteEntryFault::kMask;
  return RouteEntryFault::kNone;
}
// The message a router gives for a refused entry of router `router` ("router 3", "RTL
// router 3") for destination `dst` (the loaders' one wording).
std::string route_entry_error(const std::string& router, ChipId dst, const RouteEntry& e, int vcs);

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
