// Routing schemes: each turns (network, fault set) into the per-router tables the
// routers use (destination -> output port + allowed VCs). docs/routing.md describes
// them; models/routing/checker.h verifies whatever they produce.
//
//   xy, yx  dimension-order routing (models/routing/dor.h; dateline VC classes on a
//           torus); refuses a fault set that blocks any live pair's path.
//   lash    any fault set that leaves the live chips connected: per destination a
//           shortest-path tree over live links (ties broken toward the XY route, so the
//           fault-free mesh gets exactly XY); destinations are packed first-fit into
//           groups whose link-level channel dependency graphs are acyclic, and the VCs
//           are split among the groups. A destination that fits no group uses an
//           up*/down* tree in a group of its own (up*/down* trees never form a cycle),
//           so the scheme always succeeds, minimal wherever the VCs allow. (When one-way
//           link failures leave no two-way spanning tree, the fallback is two groups of
//           in-tree/out-tree routes through a root instead, needing 2 VCs.)
//   fring   e-cube (XY) with fault rings in the manner of Boppana & Chalasani: on a mesh
//           whose dead chips form rectangular blocks with non-overlapping rings, a
//           packet blocked by a block goes around it on the ring of live chips that
//           surrounds it; four VC classes by message direction (WE, EW, NS, SN), so it
//           needs at least 4 VCs. It refuses tori, link faults, non-rectangular holes
//           and rings that overlap or touch.
//   auto    xy when nothing has failed, lash otherwise (the default).
#pragma once
#include <string>
#include <vector>

#include "models/config.h"
#include "models/noc/fault_set.h"
#include "models/route_table.h"

namespace fm {

struct RouteSet {
  std::vector<RouteTable> tables;
  std::string scheme;        // the scheme that made them (auto resolved)
  int groups = 1;            // lash: destination groups (VC partitions)
  int fallback_dests = 0;      // lash: destinations on the non-minimal fallback trees
};

// Throws ConfigError when the scheme cannot route this fault set, saying why.
RouteSet build_routes(const NetworkConfig& n, const FaultSet& f);

}  // namespace fm
