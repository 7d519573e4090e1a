// The fault set of a run: which chips and which link directions are dead. A failed
// board kills its chips; a dead chip kills every link to and from it. Built from the
// FaultConfig (command line or fault file, docs/faults-format in docs/routing.md).
#pragma once
#include <istream>
#include <string>
#include <vector>

#include "models/config.h"
#include "models/noc/topology.h"

namespace fm {

class FaultSet {
 public:
  // Expands boards and checks every fault against the topology; throws ConfigError
  // naming the bad fault and what is allowed.
  FaultSet(const NetworkConfig& n);

  bool chip_dead(ChipId c) const { return dead_chip_[c]; }
  // True when no flit can leave chip c through network port p: no link there (mesh
  // edge), the link failed, or either end is dead.
  bool link_dead(ChipId c, Port p) const { return dead_link_[c * kNumNetPorts + p]; }
  bool empty() const { return empty_; }
  int live_chips() const { return live_; }
  const Topology2D& topology() const { return topo_; }
  // "" when every live chip reaches every other over live links; otherwise one line
  // saying which chips are cut off.
  std::string connectivity() const;
  // Hops from every chip to d over live links (-1: cannot reach d); reverse BFS. The
  // minimal path lengths used by the lash scheme and by the route checker.
  std::vector<int> distances_to(ChipId d) const;
  // The failed chips and link directions, for reports: "(3,5) (4,5) ...", "(4,4)E ...".
  std::string describe() const;

 private:
  Topology2D topo_;
  std::vector<char> dead_chip_, dead_link_;
  bool empty_ = true;
  int live_ = 0;
};

// Parses "x,y:D" or "x,y:D:oneway" (D one of N,E,S,W). False on a malformed string.
bool parse_link_fault(const std::string& s, LinkFault* out);
// "" when every chip, board and link of `one` lies inside `mesh` (a valid network), else
// what is wrong, e.g. "chip 9,9: outside the mesh (x 0..7, y 0..7)".
std::string place_error(const NetworkConfig& mesh, const FaultConfig& one);
// Reads a fault file into `out` (appending). Format, one fault per line, '#' comments:
//   chip x,y | board bx,by | link x,y:D [oneway]
// Throws ConfigError naming the file, line and problem; with `mesh`, also for a chip,
// board or link outside it.
void read_fault_file(const std::string& path, FaultConfig* out, const NetworkConfig* mesh = nullptr);
// The same from a stream; `path` names it in errors.
void read_faults(std::istream& in, const std::string& path, FaultConfig* out,
                 const NetworkConfig* mesh = nullptr);
std::string to_string(const LinkFault& l);
// Parses a --fail-at value: "WHEN:chip:x,y", "WHEN:board:bx,by" or
// "WHEN:link:x,y:D[:oneway]", WHEN a cycle ("120000"), a progress ("50%") or a phase of
// the running collective with an optional delay ("@reduce-scatter-y", "@all-gather-x+500").
// Returns "" or what is wrong.
std::string parse_timed_fault(const std::string& s, TimedFault* out);
std::string to_string(const TimedFault& f);
// A collective phase name as the command line writes it: lower case, spaces and '_'
// become '-', parentheses go ("reduce-scatter y (xy half)" -> "reduce-scatter-y-xy-half").
std::string phase_key(const std::string& phase_name);
// Whether a phase trigger `key` names this phase: the whole key, or a prefix of it that
// ends at a '-' ("reduce-scatter-y" names both halves of order both).
bool phase_matches(const std::string& key, const coll::Phase& phase);
// The fault configuration with the timed faults in `upto` (indices) made permanent.
FaultConfig with_timed(const FaultConfig& f, const std::vector<size_t>& upto);

}  // namespace fm
