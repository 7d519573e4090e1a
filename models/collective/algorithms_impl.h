// Internals shared by the allreduce constructions (algorithms.h is the public side):
// the ring jobs every algorithm is built from, the frame the 2-D family works in, and
// the functions each construction's file provides to the others.
//
//   rings.cpp       ring jobs and how they are emitted; ring, biring, altring, snake
//   two_d.cpp       the 2-D family's two-level scheme (2d, shrink, ft2d) and its slices
//   ft2d_fold.cpp   ft2d's fold design: leaves hand their data to the full lines
//   ft2d_bands.cpp  ft2d's fallback: cut lines joined into band rings
//   shrink.cpp      shrink's largest fault-free rectangle
//   bounds.cpp      link and HBM loads of a schedule, topology and algorithm bounds
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "models/collective/algorithms.h"

namespace fm::coll::detail {

// A ring specification: the cycle (transfers go cyc[k] -> cyc[k+1], wrapping), whether
// the range is split in two halves going opposite ways (bi), and the ownership: the
// range is cut into cols.size() equal column shards, column j's shard split evenly
// among the chips cols[j] (chips of the ring; a chip in no column owns nothing).
struct RingSpec {
  std::vector<ChipId> cyc;
  bool bi = false;
  std::vector<std::vector<ChipId>> cols;
  std::vector<uint32_t> weight;  // per column; empty: equal shards
  // When lead_den > 0, the first chip of a column with several gets lead_num/lead_den
  // of the column's shard and the others share the rest evenly.
  uint32_t lead_num = 0, lead_den = 0;
  // A chain instead of a ring: cyc is a path (consecutive chips neighbours), and each
  // shard is reduced from both ends of the path toward its owner, then copied back out
  // both ways. Every link direction then carries the range exactly once (S), against
  // 2 S (1 - 1/n) for the alternate-node ring over the same path; docs/collectives.md.
  bool chain = false;
  // A chain standing in for a two-way ring (a torus line that lost one link, beside
  // lines that close): its ownership is cut as the ring's would be, each half [lo, mid)
  // and [mid, hi) into the column shards, so that the phase-2 groups find the same
  // pieces on every line (own_mid).
  bool ring_own = false;
};

struct Own {
  int pos;
  uint32_t a, b;
};
// One direction of a ring spec over one range.
struct Job {
  std::vector<ChipId> cyc;
  std::vector<Own> own;
  bool chain = false;  // cyc is a path: see RingSpec::chain
};

// Ownership intervals: (chip, [a, b)).
using OwnList = std::vector<std::pair<ChipId, std::pair<uint32_t, uint32_t>>>;

// Point j of k equal steps from lo to hi.
inline uint32_t cut(uint32_t lo, uint32_t hi, size_t j, size_t k) {
  return lo + (uint32_t)((uint64_t)(hi - lo) * j / k);
}

// The machine seen with u as the first-phase dimension (x for XY, y for YX).
struct Frame {
  const FaultSet& f;
  const Topology2D& t;
  bool xy;
  int U, V;
  Line line;  // how straight lines run (AlgoParams::line)
  Frame(const FaultSet& fs, bool x_first, Line l = Line::Ring)
      : f(fs), t(fs.topology()), xy(x_first),
        U(x_first ? t.width() : t.height()), V(x_first ? t.height() : t.width()), line(l) {}
  ChipId chip(int u, int v) const { return xy ? t.id(u, v) : t.id(v, u); }
  int u(ChipId c) const { return xy ? t.x(c) : t.y(c); }
  int v(ChipId c) const { return xy ? t.y(c) : t.x(c); }
  bool live(int u, int v) const { return !f.chip_dead(chip(u, v)); }
  // Both directions of the link from (u, v) to (u+1, v) (wrapping on a torus) live.
  bool ulink(int u, int v) const {
    const ChipId a = chip(u, v);
    const Port p = xy ? kEast : kNorth;
    const long n = t.neighbour(a, p);
    return n >= 0 && !f.link_dead(a, p) && !f.link_dead((ChipId)n, opposite(p));
  }
  bool vlink(int u, int v) const {
    const ChipId a = chip(u, v);
    const Port p = xy ? kNorth : kEast;
    const long n = t.neighbour(a, p);
    return n >= 0 && !f.link_dead(a, p) && !f.link_dead((ChipId)n, opposite(p));
  }
  // Line v+d (wrapping on a torus), or -1 off a mesh edge.
  int vnext(int v, int d) const {
    const int w = v + d;
    if (t.torus()) return (w + V) % V;
    return w < 0 || w >= V ? -1 : w;
  }
};

// The two-level scheme over [lo, hi) in one frame, with the given line specs, as job
// lists (the caller emits them phase by phase, so that the two frames of order both
// run side by side).
struct TwoLevel {
  std::vector<Job> rs1, rs2;  // line jobs, group jobs (all-gather reuses them)
};

// ft2d's fold plan (ft2d_fold.cpp describes the design). Not applicable (ok = false)
// when some leaf has no live column path to a full line, or there is no full line.
struct FoldPlan {
  bool ok = false;
  std::vector<RingSpec> specs;  // the full lines' rings
  // A hand-over: src adds [a, b) into dst when folding; dst copies it back when
  // unfolding.
  struct Hand {
    ChipId src, dst;
    uint32_t a, b;
  };
  // Per depth d (index d-1): the segment chains of leaves at depth d over [lo, hi),
  // and their hand-overs. Folding runs deepest first, so a leaf's data is in its
  // parent's buffer before the parent's own segment chain starts; unfolding runs the
  // other way. `early` hand-overs go before the full lines' rings (to the parent: the
  // raw part, and a segment's shards when they cannot be aligned); `late` ones are the
  // pieces of an aligned segment, each to the chip owning it in the parent line's ring,
  // added after that ring's reduce-scatter and copied back after the second level's
  // all-gather, so the segment's chain runs beside the line's rings instead of
  // before and after them.
  struct Level {
    std::vector<Job> seg, seg_back;     // chains: reduce-scatter, all-gather
    std::vector<Hand> pre, early, late;  // pre: a paired segment's exchange
    std::vector<Hand> early_back;        // unfold copies (dst -> src) for `early`
  };
  std::vector<Level> levels;
};

// A rectangle of chips (coordinates wrap on a torus).
struct Rect {
  int x0 = 0, y0 = 0, w = 0, h = 0;
};

// rings.cpp
OwnList ownership(const RingSpec& spec, uint32_t lo, uint32_t hi);
// Where the ownership of [lo, hi) is cut in two halves, each cut into the column
// shards: the middle for a two-way ring (one job per half) and a chain with ring_own
// (one job over both); hi otherwise.
uint32_t own_mid(const RingSpec& spec, uint32_t lo, uint32_t hi);
void make_jobs(const RingSpec& spec, uint32_t lo, uint32_t hi, std::vector<Job>* jobs);
void emit(ScheduleBuilder& b, const std::vector<Job>& jobs, bool reduce, int phase,
          uint32_t chunk);
std::vector<ChipId> alt_order(const std::vector<ChipId>& p);
void construct_single_ring(const FaultSet& f, const AlgoParams& p, ScheduleBuilder& b);

// two_d.cpp
RingSpec line_spec(const Frame& fr, const std::vector<ChipId>& line, bool cyclic);
RingSpec full_line_spec(const Frame& fr, int v, int ua, int ub);
void two_level(const Frame& fr, const std::vector<RingSpec>& specs, uint32_t lo, uint32_t hi,
               TwoLevel* out);
std::vector<RingSpec> rect_specs(const Frame& fr, int u0, int nu, int v0, int nv);
void construct_two_d(const FaultSet& f, const AlgoParams& p, ScheduleBuilder& b);

// ft2d_fold.cpp
std::vector<char> full_lines(const Frame& fr);
FoldPlan fold_plan(const Frame& fr, uint32_t lo, uint32_t hi, bool both);

// ft2d_bands.cpp
std::vector<ChipId> band_cycle(const Frame& fr, const std::vector<int>& ls, int owner);
std::vector<RingSpec> ft2d_specs(const Frame& fr);

// shrink.cpp
Rect largest_rect(const FaultSet& f, bool x_first);

}  // namespace fm::coll::detail
