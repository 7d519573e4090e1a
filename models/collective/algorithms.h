// Allreduce algorithms as schedules (models/collective/schedule.h) and their analytic
// bounds. docs/collectives.md describes each construction, with drawings, and the
// bound formulas.
//
//   ring    one ring through every participant (a Hamiltonian cycle of the fault-free
//           machine; a W x 1 or 1 x H line in natural order), reduce-scatter then
//           all-gather, unidirectional.
//   biring  the same ring, the buffer split in two halves going opposite ways.
//   altring the alternate-node embedding: along a line without wraparound the ring is
//           0,2,4,...,then back ...,5,3,1, so each link direction carries the ring once.
//   2d      reduce-scatter along X, reduce-scatter along Y, all-gather along Y,
//           all-gather along X (Order selects XY, YX, or both at once on half the data
//           each), with one ring per row and per column; refuses holes (use ft2d).
//   ft2d    2d with the rows and columns a hole cuts re-threaded around it: their chips
//           hand their data to the nearest full row and get the sum back (leaves), or,
//           where that cannot be done, join it in one ring (bands).
//   shrink  baseline: 2d on the largest fault-free rectangle; chips outside are idle.
//   snake   baseline: one ring threaded through all live chips.
#pragma once
#include <string>
#include <vector>

#include "models/kinds.h"
#include "models/collective/schedule.h"
#include "models/config.h"
#include "models/noc/fault_set.h"
#include "models/route_table.h"

namespace fm::coll {


constexpr uint32_t kMaxSlices = 64;
// --slices auto: the same count for every 2-D-family algorithm (2d, shrink, ft2d), holes
// or not, so that their default runs compare like for like. Of 23 measured rows (16x32
// and 32x32 meshes and tori, 64 KiB to 2 MiB) 4 is within 4 % of the best count in most
// and 25 % off at worst, where 1 is up to 39 % off and 8 up to 60 % (docs/collectives.md,
// "Slices").
constexpr uint32_t kAutoSlices = 4;

struct AlgoParams {
  Algo algo = Algo::TwoD;
  Order order = Order::XY;
  uint32_t words = 0;        // buffer length in words (flits of data), >= 1
  uint32_t chunk_words = 0;  // pipelining granularity in words, >= 1
  // 2-D family: the range cut into this many slices, each run whole in turn, so one
  // slice's fold and its second dimension overlap the next one's first rings; 0 = auto
  // (kAutoSlices). At most kMaxSlices.
  uint32_t slices = 0;
  // 2-D family: ring or chain lines (models/kinds.h).
  Line line = Line::Ring;
};

// The schedule parameters of a run's configuration: the algorithm, order, lines and
// slices of cfg.coll, the bytes and chunk in words of cfg.net.flit_bytes (the chips'
// descriptor carries the same, CollectiveLibrary::get).
AlgoParams algo_params_of(const Config& cfg);

// Builds the schedule for the live chips of `f`. Throws ConfigError with a clear
// message when the algorithm cannot run there (e.g. 2d with holes: "use --algo ft2d").
Schedule build_schedule(const FaultSet& f, const AlgoParams& p);
// The number of transfers build_schedule(f, p) would give, counted by running the same
// construction without storing any transfer or dependency (memory O(chips); 0.1 s for
// the 4.3 M transfers of 2d on a 64x64 torus at 64 KiB): the memory estimate's input
// before anything is built. Throws as build_schedule does.
uint64_t count_transfers(const FaultSet& f, const AlgoParams& p);

// Bandwidth figures of a schedule executed over given route tables (one per chip,
// models/routing/routes.h): words carried by every link direction, and per chip the
// words its engine reads/writes/adds. Throws ConfigError when a transfer's walk over the
// tables does not arrive.
struct ScheduleLoad {
  std::vector<uint64_t> link_words;  // [chip * 4 + port]: words leaving chip via port
  uint64_t max_link_words = 0;       // the busiest link direction
  std::vector<uint64_t> chip_hbm_words;     // read for sends + written by copies + 2x reduces
  std::vector<uint64_t> chip_reduce_words;  // words added by the reduction unit
  int max_hops = 0;                  // longest path of any transfer
};
ScheduleLoad schedule_load(const Schedule& s, const Topology2D& t,
                           const std::vector<RouteTable>& tables);

// Lower bound, in link-word-times (one word per link direction per cycle), on the time
// any allreduce of `words` (S) among the n participants needs on this topology with its
// faults: the largest of
//  (a) per participant c: S / live out-links(c) and S / live in-links(c) (it must send
//      and receive S words of information). The ring-family figure 2 S (n-1)/(n links)
//      is not used: it assumes every chip reduces an equal share, and ft2d's leaf chips
//      beat it (docs/collectives.md);
//  (b) cuts: for every straight cut (a set of whole columns, or rows, against the rest;
//      one cut line on a mesh, two on a torus) with participants on both sides, each
//      side must receive the other side's contribution to every word, so
//      S / (live link directions crossing the cut toward that side);
//  (c) gossip: 2 (n-1) messages per word are needed to inform n chips of all values,
//      so 2 (n-1) S / (live link directions of the machine).
double topology_bound_words(const FaultSet& f, const std::vector<char>& participant,
                            uint32_t words);
// The bandwidth-regime ideal of an algorithm on its topology: its busiest link
// direction's words (max_link_words).
double algorithm_bound_words(const ScheduleLoad& l);


}  // namespace fm::coll
