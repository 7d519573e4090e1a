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

const char* const kAlgoNames = "ring|biring|altring|2d|ft2d|shrink|snake";

const char* to_string(Algo a) {
  switch (a) {
    case Algo::Ring: return "ring";
    case Algo::BiRing: return "biring";
    case Algo::AltRing: return "altring";
    case Algo::TwoD: return "2d";
    case Algo::FT2D: return "ft2d";
    case Algo::Shrink: return "shrink";
    case Algo::Snake: return "snake";
  }
  return "?";
}

const char* to_string(Order o) {
  switch (o) {
    case Order::XY: return "xy";
    case Order::YX: return "yx";
    case Order::Both: return "both";
  }
  return "?";
}

bool parse_algo(const std::string& s, Algo* out) {
  for (Algo a : {Algo::Ring, Algo::BiRing, Algo::AltRing, Algo::TwoD, Algo::FT2D, Algo::Shrink,
                 Algo::Snake})
    if (s == to_string(a)) {
      *out = a;
      return true;
    }
  return false;
}

const char* to_string(Line l) {
  switch (l) {
    case Line::Ring: return "ring";
    case Line::Chain: return "chain";
    case Line::Auto: return "auto";
  }
  return "?";
}

bool parse_line(const std::string& s, Line* out) {
  for (Line l : {Line::Ring, Line::Chain, Line::Auto})
    if (s == to_string(l)) {
      *out = l;
      return true;
    }
  return false;
}

bool parse_order(const std::string& s, Order* out) {
  for (Order o : {Order::XY, Order::YX, Order::Both})
    if (s == to_string(o)) {
      *out = o;
      return true;
    }
  return false;
}

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
