// What a run records for its HTML page (`faultmesh view`, sim/view.h), beside its
// statistics: the flits every ICI link direction carried in each time window, the dead
// chips, boards and link directions with the cycle each died, the drops per link and
// per chip, and every chip's role in the collective's schedule. The testbenches know
// these; the page only draws them, so they go into the run JSON rather than being
// re-derived in a browser. Every array here is an array of objects, which the CSV
// writers leave out (sim/summary.h, the sweep's results.csv).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/collective/schedule.h"
#include "models/config.h"
#include "models/noc/network.h"

namespace fm {

// Flits sent on each ICI link direction per time window. Windows are closed by sample()
// at the cycles the testbench chooses (its utilization windows); once there are more
// than cap() of them, neighbouring windows are merged in pairs (oldest first), so a long
// run keeps a bounded record (at most 65,536 link-window counts, at least 16 windows).
class LinkWindows {
 public:
  // Every link direction the topology has (dead ones too: they may have carried flits
  // before they failed), chip by chip, port by port; counting starts at cycle 0.
  explicit LinkWindows(Network& net);
  // Closes the window that ends at cycle `now` (nothing when it would be empty).
  void sample(Network& net, Cycle now);
  size_t cap() const { return cap_; }
  size_t windows() const { return to_.size(); }
  // {"links": [{"x","y","port"}...], "windows": [{"from","to","flits": [per link]}...]}
  nlohmann::ordered_json json(const Topology2D& t) const;

 private:
  std::vector<std::pair<ChipId, Port>> links_;
  std::vector<uint64_t> last_;              // flits_sent() at the last sample, per link
  std::vector<Cycle> from_, to_;
  std::vector<std::vector<uint64_t>> flits_;  // per window, per link
  size_t cap_;
};

// Adds "dead_chips" [{"x","y","cycle"}], "dead_boards" [{"bx","by","x0","y0","w","h",
// "cycle"}] and "dead_links" [{"x","y","port","cycle","cause"}] to `j`: what had failed
// before the run (cycle 0) and each failure during it at the cycle it happened
// (`applied`: indices into n.faults.timed in the order applied, `cycles` when). A dead
// link direction is one the topology has and no flit can cross: its own failure
// ("link") or a dead chip at either end ("chip").
void add_dead_elements(const NetworkConfig& n, const std::vector<size_t>& applied,
                       const std::vector<Cycle>& cycles, nlohmann::ordered_json* j);

// The role of every chip in a schedule, from its transfers: for each phase a chip takes
// part in, whether its partners lie in its row ("row ring"), its column ("column ring")
// or elsewhere ("ring"); ft2d's fold phases make a chip that hands data over a "leaf"
// and one that only receives it a "parent". Non-participants are "idle", dead chips
// "dead". {"from_cycle", "algo", "phases": [...], "chips": [{"x","y","role"}...]}.
nlohmann::ordered_json chip_roles_json(const coll::Schedule& s, const Topology2D& t,
                                       const std::vector<char>& dead, Cycle from_cycle,
                                       const std::string& algo);

}  // namespace fm
