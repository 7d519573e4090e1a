// One walk over the route tables, hop by hop, for everything that follows a route
// without simulating it: the schedule's link loads (models/collective/bounds.cpp), the
// host's "does this failure touch the collective" (models/chip/host.cpp) and the check
// that dimension-order tables avoid the faults (routes.cpp). The deadlock checker
// (checker.cpp) keeps its own walk: it memoises path lengths across sources and names
// each kind of bad entry.
#pragma once

#include "models/noc/topology.h"
#include "models/noc/types.h"

namespace fm {

// How a walk ended: at the destination, at an entry with no ICI port (no route, or a
// local port), after more hops than there are chips (a loop), or because visit said so.
enum class Walk { Arrived, NoPort, Loop, Stopped };

// Follows the route from src to dst: port_of(c) is the port chip c's table gives for
// dst; visit(c, port) is called for each hop (the link leaving c through port) before
// it is taken and returns false to stop there.
template <class PortOf, class Visit>
Walk for_each_hop(const Topology2D& t, ChipId src, ChipId dst, PortOf port_of, Visit visit) {
  ChipId c = src;
  for (int hops = 0; c != dst; ++hops) {
    if (hops >= t.chips()) return Walk::Loop;
    const unsigned port = port_of(c);
    const long n = port < (unsigned)kNumNetPorts ? t.neighbour(c, (Port)port) : -1;
    if (n < 0) return Walk::NoPort;
    if (!visit(c, (Port)port)) return Walk::Stopped;
    c = (ChipId)n;
  }
  return Walk::Arrived;
}

}  // namespace fm
