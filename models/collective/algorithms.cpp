// Allreduce algorithms as transfer lists (docs/collectives.md has the drawings): the
// algorithm names, and the construction's entry points, which check the request and
// hand it to its algorithm's file (algorithms_impl.h lists them).
//
// Every algorithm here is built from one piece: a ring job, a cycle of chips that
// reduce-scatters a buffer range so that each word ends summed at its owner, and
// all-gathers it back (rings.cpp). The single-ring algorithms run one such job over all
// live chips (rings.cpp); the 2-D family (2d, shrink, ft2d) runs a two-level scheme of
// them (two_d.cpp), which ft2d wraps in a fold around the holes (ft2d_fold.cpp, or the
// band rings of ft2d_bands.cpp where the fold does not apply) and shrink confines to a
// fault-free rectangle (shrink.cpp). Loads and bounds: bounds.cpp.
#include "models/collective/algorithms.h"

#include <string>

#include "models/collective/algorithms_impl.h"

namespace fm::coll {

namespace {

// The whole construction, into `b` (a storing or a counting builder): build_schedule
// and count_transfers share it, so the count is the schedule's, whatever the algorithm.
void construct(const FaultSet& f, const AlgoParams& p, ScheduleBuilder& b) {
  if (p.words < 1) throw ConfigError("allreduce size: words must be >= 1 (got 0)");
  if (p.chunk_words < 1) throw ConfigError("allreduce chunk: chunk words must be >= 1 (got 0)");
  const std::string cut_off = f.connectivity();
  if (!cut_off.empty()) throw ConfigError("allreduce needs the live chips connected: " + cut_off);
  const Topology2D& t = f.topology();

  if (p.algo == Algo::TwoD && f.live_chips() < t.chips())
    throw ConfigError(std::string("--algo 2d needs every chip alive (dead: ") + f.describe() +
                      "); use --algo ft2d, or the baselines shrink or snake");

  // Single rings: ring, biring, altring, snake.
  if (p.algo == Algo::Ring || p.algo == Algo::BiRing || p.algo == Algo::AltRing ||
      p.algo == Algo::Snake) {
    detail::construct_single_ring(f, p, b);
    return;
  }
  // The 2-D family.
  detail::construct_two_d(f, p, b);
}

}  // namespace

AlgoParams algo_params_of(const Config& c) {
  AlgoParams p;
  p.algo = c.coll.algo;
  p.order = c.coll.order;
  const uint64_t fb = c.net.flit_bytes;
  p.words = (uint32_t)((c.coll.bytes + fb - 1) / fb);
  p.chunk_words = (uint32_t)(c.coll.chunk_bytes / fb);
  p.slices = c.coll.slices;
  p.line = c.coll.line;
  return p;
}

Schedule build_schedule(const FaultSet& f, const AlgoParams& p) {
  ScheduleBuilder b(f.topology().chips(), p.words);
  construct(f, p, b);
  return b.finish();
}

uint64_t count_transfers(const FaultSet& f, const AlgoParams& p) {
  ScheduleBuilder b(f.topology().chips(), p.words, /*count_only=*/true);
  construct(f, p, b);
  return b.added();
}

}  // namespace fm::coll
