// Internals shared by the files of the routing schemes (models/routing/routes.h is the
// public side): routes.cpp holds build_routes, dimension order and fault rings; lash.cpp
// holds lash, the scheme for any fault set.
#pragma once
#include <vector>

#include "models/routing/routes.h"

namespace fm::routing_detail {

// Entries for dead chips: no route to them, and a dead router's table is never used.
void clear_dead(const FaultSet& f, std::vector<RouteTable>& tables);

// The lash tables (lash.cpp): per destination a shortest-path tree, the trees packed
// into acyclic VC groups, the destinations that fit none on up*/down* (or in-tree/
// out-tree) fallback trees.
RouteSet lash_routes(const NetworkConfig& n, const FaultSet& f);

}  // namespace fm::routing_detail
