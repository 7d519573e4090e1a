// The route-set checker: the proof obligation of every routing configuration, run
// before every simulation and by `faultmesh routes`. It reads the same per-router
// tables the routers use and checks
//   - connectivity: every live (source, destination) pair follows the tables to its
//     destination over live links without a loop;
//   - deadlock freedom: the VC-level channel dependency graph (channel = router, output
//     port, VC; an edge wherever a packet holding one channel may request the next) is
//     acyclic; otherwise it reports one cycle as a list of (router, port, VC).
// It also measures the route set: path lengths against the minimal ones on the live
// graph, the VCs it uses, and link loads under uniform traffic.
#pragma once
#include <string>
#include <vector>

#include "models/noc/fault_set.h"
#include "models/route_table.h"

namespace fm {

struct LinkLoad {
  int x, y;
  Port port;
  double load;  // flits/cycle on this link direction when every live chip injects 1 flit/cycle, uniform
};

struct RouteCheck {
  bool connected = false, deadlock_free = false;
  std::string problem;  // the first failure, or ""
  long live_pairs = 0;
  double avg_path_length = 0, avg_path_stretch = 0;
  double avg_min_length = 0;        // minimal over the live links
  double avg_faultfree_length = 0;  // minimal with nothing failed (topology distance)
  int max_path_length = 0, max_min_length = 0;
  int vcs_used = 0;
  double max_link_load = 0;  // saturation throughput under uniform <= 1 / max_link_load
  std::vector<LinkLoad> top_links;  // most loaded first
  bool ok() const { return connected && deadlock_free; }
};

RouteCheck check_routes(const FaultSet& f, const std::vector<RouteTable>& tables, int vcs,
                        int top_links = 5);

}  // namespace fm
