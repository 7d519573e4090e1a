// ft2d's fold design (used whenever it applies; the band design, ft2d_bands.cpp, is the
// fallback). The full lines keep their rings and alone run the two-level scheme
// (two_d.cpp). A chip of a cut line is a leaf: its data reaches the full lines through
// the chip next to it in its column toward the nearest full line (its parent; a chain
// through other cut lines when the nearest is further away), and it gets the result
// back the same way, so it contributes and receives the full sum without any ring
// having to detour. The leaves of a segment (a run of them along their line) first
// reduce along it as a chain (RingSpec::chain); those next to a full line hand each
// piece to the chip owning it in that line's ring, after the ring's reduce-scatter, and
// two such segments cut by one board pair up to halve what their chains carry
// (docs/collectives.md). Not applicable (ok = false) when some leaf has no live column
// path to a full line, or there is no full line.
//
// fold_plan runs the steps in turn: trim the core, find every leaf's depth and parent,
// the full lines' rings and (mesh) their column weights, the segments, their pairs, and
// each segment's chain and hand-overs.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <stdexcept>

#include "models/collective/algorithms_impl.h"

namespace fm::coll::detail {

// A line is full when all its chips are live and so are its links along u; on a torus
// where chains run (--line chain or auto), one dead link is allowed too: the line then
// runs as a chain from just past it (full_line_spec), nearly as fast as its ring.
std::vector<char> full_lines(const Frame& fr) {
  const bool chain_ok = fr.t.torus() && fr.line != Line::Ring && fr.U >= 3;
  std::vector<char> full(fr.V, 1);
  for (int v = 0; v < fr.V; ++v) {
    int dead_links = 0;
    for (int u = 0; u < fr.U; ++u) {
      if (!fr.live(u, v)) full[v] = 0;
      if (fr.U > 1 && (fr.t.torus() || u + 1 < fr.U) && !fr.ulink(u, v)) ++dead_links;
    }
    if (dead_links > (chain_ok ? 1 : 0)) full[v] = 0;
  }
  return full;
}

namespace {

// With order both, the piece of an owner over another segment of its line goes in
// through the leaves under the last kSpread parents (with a leaf of this segment)
// to pass it on in the ring's reduce-scatter. Fewer leaves load their column links,
// which the other half's rings use, with more of the piece; more leaves include
// parents that pass the piece early, and the ring waits for their chain. Measured
// (order both, 2, 4 and 8 leaves and all of them; docs/collectives.md): 8.
constexpr size_t kSpread = 8;

// The columns the full lines' rings span, and the columns a hole cuts.
struct Core {
  std::vector<char> cutcol;  // per column: its full lines' chips are not one straight run
  int ua, ub;                // the rings span columns [ua, ub]
};

// A column is cut when its full lines' chips are not one straight run (a hole sits
// between them). On a mesh with one order (xy or yx), cut or faulty columns at the
// sides (a run touching u = 0 or U-1) leave the rings: the full lines' rings span only
// the core [ua, ub], and the full lines' chips outside it become leaves too, handing
// over along their line toward the core (no column group has to detour, and the rings
// get shorter).
Core trim_core(const Frame& fr, const std::vector<char>& full, bool both) {
  const int U = fr.U, V = fr.V;
  const bool torus = fr.t.torus();
  int first = -1, last = -1;
  for (int v = 0; v < V; ++v)
    if (full[v]) {
      if (first < 0) first = v;
      last = v;
    }
  std::vector<char> cutcol(U, 0);
  for (int u = 0; u < U; ++u) {
    bool linked = true;
    for (int v = first; v < last && linked; ++v) linked = fr.live(u, v) && fr.vlink(u, v);
    cutcol[u] = !linked;
  }
  // Trimmed too: side columns with any dead chip or link (a hole in a corner), which
  // shortens the rings; a mesh ring's load, 2 S (1 - 1/n), falls with its length.
  std::vector<char> faulty(U, 0);
  for (int u = 0; u < U; ++u)
    for (int v = 0; v < V; ++v)
      faulty[u] = faulty[u] || cutcol[u] || !fr.live(u, v) || (v + 1 < V && !fr.vlink(u, v));
  // Not with order both: a trimmed chip's whole buffer is added into the chip next to
  // the core and copied back, 3 S more HBM words there (8 S against 5 S). One order
  // takes about 2 S cycles, time enough for that; order both about S, and that chip's
  // HBM then paces every ring through it (16x32 mesh, corner board, 2 MiB: 52,063
  // cycles trimmed, 39,888 not). Kept in the rings, a cut column owns nothing (the
  // weights below), so its column group still does not detour.
  int ua = 0, ub = U - 1;
  if (!torus && !both) {
    while (ua < U && faulty[ua]) ++ua;
    while (ub >= 0 && faulty[ub]) --ub;
    if (ub - ua + 1 < 2) ua = 0, ub = U - 1;
  }
  return {cutcol, ua, ub};
}

// Every live chip's place in the fold (ok = false when some leaf has no live column
// path to a full line).
struct Leaves {
  bool ok = false;
  std::vector<int> depth;    // per chip: 0 for a chip of the rings
  std::vector<long> parent;  // per chip: the chip it hands its data to, -1 for none
};

// Depth and parent of every leaf: a chip of a cut line goes along its column to the
// nearer full line (ties: down), then along that line to the core; a full line's
// chip outside the core along its line.
Leaves find_leaves(const Frame& fr, const std::vector<char>& full, const Core& core) {
  const int U = fr.U, V = fr.V, ua = core.ua, ub = core.ub;
  auto hdepth = [&](int u) { return u < ua ? ua - u : u > ub ? u - ub : 0; };
  std::vector<int> depth(fr.t.chips(), 0);
  std::vector<long> parent(fr.t.chips(), -1);
  for (int v = 0; v < V; ++v) {
    for (int u = 0; u < U; ++u) {
      if (!fr.live(u, v)) continue;
      const ChipId c = fr.chip(u, v);
      if (full[v]) {
        if (hdepth(u) > 0) {
          depth[c] = hdepth(u);
          parent[c] = fr.chip(u < ua ? u + 1 : u - 1, v);
        }
        continue;
      }
      int best = -1, dir = 0;
      for (int d : {-1, 1}) {
        int w = v;
        for (int k = 1; k < V; ++k) {
          const int nb = fr.vnext(w, d);
          if (nb < 0 || !fr.live(u, nb) || !fr.vlink(u, d < 0 ? nb : w)) break;
          if (full[nb]) {
            if (best < 0 || k < best) best = k, dir = d;
            break;
          }
          w = nb;
        }
      }
      if (best < 0) return {};  // no column path to a full line
      depth[c] = best + hdepth(u);
      parent[c] = fr.chip(u, fr.vnext(v, dir));
    }
  }
  return {true, std::move(depth), std::move(parent)};
}

// The full lines' rings over the core, into `specs`; returns per line v the index of
// its ring, -1 for a cut line.
std::vector<int> full_line_rings(const Frame& fr, const std::vector<char>& full,
                                 const Core& core, std::vector<RingSpec>* specs) {
  const int V = fr.V, ua = core.ua, ub = core.ub;
  std::vector<int> spec_of(V, -1);
  for (int v = 0; v < V; ++v)
    if (full[v]) {
      spec_of[v] = (int)specs->size();
      specs->push_back(full_line_spec(fr, v, ua, ub));
    }
  return spec_of;
}

// On a mesh, a column whose full-line chips are not one straight run (the hole cuts
// it) has its phase-2 group detour around the hole over links of the full rows next
// to it, which their own rings load fully: such columns own nothing (their share is
// spread over the others). An alternate-node ring edge a -> b carries 2 S - s(a) -
// s(b), so the columns sharing an edge with such a column own a double share, which
// keeps that edge at the others' load; where two cut columns share an edge (the
// ring's turn at a side, when the core could not be trimmed) the inner one keeps two
// thirds of a share, which balances that edge against its group's detour. With order
// both the column links are busy with the other half, and the double shares' column
// traffic would cost more than it saves: there only the cut columns change.
void weight_cut_columns(const Core& core, bool both, std::vector<RingSpec>* specs) {
  const int ua = core.ua, ub = core.ub;
  const std::vector<char>& cutcol = core.cutcol;
  const int K = ub - ua + 1;  // core columns, indexed from ua
  std::vector<uint32_t> w(K, 3);
  bool cut_any = false;
  for (int k = 0; k < K; ++k)
    if (cutcol[ua + k]) w[k] = 0, cut_any = true;
  std::vector<ChipId> idx(K);
  for (int k = 0; k < K; ++k) idx[k] = (ChipId)k;
  const std::vector<ChipId> ring = alt_order(idx);
  const size_t edges = K >= 3 ? ring.size() : K == 2 ? 1 : 0;
  for (size_t k = 0; k < edges; ++k) {
    const int a = (int)ring[k], c = (int)ring[(k + 1) % ring.size()];
    if (w[a] == 0 && w[c] == 0) w[std::abs(2 * a - (K - 1)) < std::abs(2 * c - (K - 1)) ? a : c] = both ? 1 : 2;
  }
  std::vector<uint32_t> w2 = w;
  for (size_t k = 0; k < edges && !both; ++k) {
    const int a = (int)ring[k], c = (int)ring[(k + 1) % ring.size()];
    if (w[a] == 0 && w[c] == 3) w2[c] = 6;
    if (w[c] == 0 && w[a] == 3) w2[a] = 6;
  }
  w = w2;
  bool any = false;
  for (uint32_t x : w) any = any || x > 0;
  if (cut_any && any)
    for (RingSpec& sp : *specs) sp.weight = w;
}

// Segments: runs of leaves of one depth joined by live links along u (wrapping on a
// torus), each started where the previous chip does not continue it.
struct Seg {
  int d, v, pv;  // depth, its line, its parents' line
  std::vector<ChipId> path;
  bool aligned;   // depth 1 in a cut line, all parents in one full line pv
  int pair = -1;  // the segment it splits the range with (see below)
};

std::vector<Seg> find_segments(const Frame& fr, const std::vector<char>& full,
                               const Leaves& leaves) {
  const int U = fr.U, V = fr.V;
  const bool torus = fr.t.torus();
  const std::vector<int>& depth = leaves.depth;
  const std::vector<long>& parent = leaves.parent;
  std::vector<Seg> segs;
  for (int v = 0; v < V; ++v) {
    auto depth_at = [&](int u) { return fr.live(u, v) ? depth[fr.chip(u, v)] : 0; };
    std::vector<char> seen(U, 0);
    for (int u0 = 0; u0 < U; ++u0) {
      const int d = depth_at(u0);
      if (d == 0 || seen[u0]) continue;
      int s = u0;
      for (int k = 0; k < U; ++k) {  // walk back to the run's start
        const int pu = torus ? (s - 1 + U) % U : s - 1;
        if (pu < 0 || depth_at(pu) != d || !fr.ulink(pu, v) || pu == u0) break;
        s = pu;
      }
      Seg sg{d, v, 0, {}, false};
      for (int u = s, k = 0; k < U; ++k) {
        seen[u] = 1;
        sg.path.push_back(fr.chip(u, v));
        const int nu = torus ? (u + 1) % U : u + 1;
        if (nu >= U || depth_at(nu) != d || !fr.ulink(u, v) || seen[nu]) break;
        u = nu;
      }
      sg.pv = fr.v((ChipId)parent[sg.path[0]]);
      sg.aligned = d == 1 && !full[v] && sg.pv != v && full[sg.pv];
      for (ChipId c : sg.path) sg.aligned = sg.aligned && fr.v((ChipId)parent[c]) == sg.pv;
      segs.push_back(std::move(sg));
    }
  }
  return segs;
}

// Pairs: two aligned depth-1 segments over the same columns in adjacent lines that
// fold away from each other (the two rows a 2x2 board cuts), joined column by column
// by live links. Each chip first adds half the range into its partner (the partners'
// link is otherwise idle), so each segment's chain carries only half the range: a
// chain's reduce-scatter loads its end links with nearly all it carries, twice what
// a full line's two-way ring puts on a link in its reduce-scatter.
// With order both on a mesh, not at all: there the other half's column chains keep
// the partners' link busy (measured: 16x32 mesh, board 4,8, 4 MiB: 73,454 cycles
// unpaired, 74,510 paired). On a torus that link's column ring has room for part
// of the range: see chain_ranges.
void pair_segments(const Frame& fr, std::vector<Seg>* segs_io) {
  std::vector<Seg>& segs = *segs_io;
  for (size_t i = 0; i < segs.size(); ++i)
    for (size_t j = i + 1; j < segs.size() && segs[i].pair < 0; ++j) {
      const Seg &x = segs[i], &y = segs[j];
      if (!x.aligned || !y.aligned || y.pair >= 0 ||  // aligned: depth 1
          x.path.size() != y.path.size() || x.pv == y.v || y.pv == x.v)
        continue;
      int up = fr.vnext(x.v, 1) == y.v ? 1 : fr.vnext(x.v, -1) == y.v ? -1 : 0;
      bool ok = up != 0;
      for (size_t k = 0; k < x.path.size() && ok; ++k) {
        const int u = fr.u(x.path[k]);
        ok = fr.u(y.path[k]) == u && fr.vlink(u, up > 0 ? x.v : y.v);
      }
      if (ok) segs[i].pair = (int)j, segs[j].pair = (int)i;
    }
}

// What this segment's chain reduces: all of [lo, hi); or, paired, the part
// [lo, pe) split in halves between the two segments (each chip first adds its
// partner's half into its partner), and the rest [pe, hi) each its own. Pairing all
// of the range would load the partners' link with S (there and back); pe at
// (U-1)/U keeps it at a full line's two-way ring load, S (1 - 1/U). With order
// both (torus only, see pair_segments) the link also carries the other half's
// column ring, so less is paired: 5/8, the fastest of the fractions measured
// (cycles at 4 MiB, 16x32 torus, board 4,8; 1/2 61,278, 5/8 60,343, 2/3 60,636,
// 3/4 61,010, 7/8 62,618, (U-1)/U 67,152, unpaired 64,403).
std::vector<std::pair<uint32_t, uint32_t>> chain_ranges(const Frame& fr,
                                                        const std::vector<Seg>& segs, size_t i,
                                                        uint32_t lo, uint32_t hi, bool both,
                                                        FoldPlan::Level& lv) {
  const int U = fr.U;
  const Seg& sg = segs[i];
  const std::vector<ChipId>& path = sg.path;
  const uint32_t pe = both ? cut(lo, hi, 5, 8) : cut(lo, hi, (size_t)U - 1, (size_t)U);
  const uint32_t m = lo + (pe - lo) / 2;
  std::vector<std::pair<uint32_t, uint32_t>> mine = {{lo, hi}};
  if (sg.pair >= 0) {
    const bool first = (int)i < sg.pair;
    mine = {first ? std::make_pair(lo, m) : std::make_pair(m, pe), {pe, hi}};
    for (size_t k = 0; k < path.size(); ++k)  // my partner's half into my partner
      lv.pre.push_back({path[k], segs[sg.pair].path[k], first ? m : lo, first ? pe : m});
  }
  return mine;
}

// An aligned segment's chain (`line`: the parent line's ring spec) over the ranges it
// reduces.
void fold_aligned(const Frame& fr, const Seg& sg, const RingSpec& line,
                  const std::vector<std::pair<uint32_t, uint32_t>>& mine,
                  const std::vector<long>& parent, uint32_t lo, uint32_t hi, bool both,
                  FoldPlan::Level& lv) {
  const std::vector<ChipId>& path = sg.path;
  Job job;
  job.chain = true;
  job.cyc = path;
  // Each piece the parent line's ring reduce-scatters, as it travels (job by job):
  //  - its owner has a leaf of the segment in its column: the segment reduces it to
  //    that leaf, which hands it to the owner late (one hop up the column) and gets
  //    the result back from it;
  //  - otherwise (reaching the owner would load the full line's links) it is
  //    added into the line's ring by parents of the segment, early: see below.
  std::map<int, int> leaf_at;  // column -> position in the segment
  for (size_t k = 0; k < path.size(); ++k) leaf_at[fr.u(path[k])] = (int)k;
  std::vector<Job> ring;
  make_jobs(line, lo, hi, &ring);
  Job back = job;
  for (const Job& r : ring) {
    // The ring positions under a leaf of the segment, ascending, and the leaf at
    // each: the search below walks these, not the whole ring (U^2 on a long line).
    std::vector<int> leaf_of(r.cyc.size(), -1), lp;
    for (size_t k = 0; k < r.cyc.size(); ++k) {
      const auto l = leaf_at.find(fr.u(r.cyc[k]));
      if (l != leaf_at.end()) leaf_of[k] = l->second, lp.push_back((int)k);
    }
    const size_t L = lp.size();
    for (const Own& o : r.own)
      for (const auto& range : mine) {
        const uint32_t a = std::max(range.first, o.a), b = std::min(range.second, o.b);
        if (a >= b) continue;
        const auto own_leaf = leaf_at.find(fr.u(r.cyc[o.pos]));
        if (own_leaf != leaf_at.end()) {
          job.own.push_back({own_leaf->second, a, b});
          back.own.push_back({own_leaf->second, a, b});
          lv.late.push_back({path[own_leaf->second], r.cyc[o.pos], a, b});
          continue;
        }
        // To leaves under the last parents to pass the piece on in the ring's
        // reduce-scatter, which add it in; back from leaves under the first parents
        // to receive the result in the all-gather: the ring need not wait for
        // either. With order xy/yx one leaf each way (its column link carries the
        // piece; the column links are idle then), also for the hole's own columns;
        // with order both, where the other half's rings load the column links, the
        // piece of an owner over another segment of the line (a mesh row the hole
        // cuts in two) is split over up to kSpread leaves each way.
        const size_t m = !both || !fr.live(fr.u(r.cyc[o.pos]), sg.v) ? 1 : kSpread;
        // in: the nearest leaves before the owner in ring order (o.pos-1, o.pos-2,
        // ... wrapping); out: the nearest after it (o.pos+1, ...).
        std::vector<int> in, out;
        const size_t at = (size_t)(std::lower_bound(lp.begin(), lp.end(), o.pos) - lp.begin());
        const size_t after = (size_t)(std::upper_bound(lp.begin(), lp.end(), o.pos) - lp.begin());
        for (size_t t = 0; t < L && out.size() < m; ++t) {
          const int q = lp[(after + t) % L];
          if (q != o.pos) out.push_back(leaf_of[q]);
        }
        for (size_t t = 0; t < L && in.size() < m; ++t) {
          const int q = lp[(at + L - 1 - t) % L];
          if (q != o.pos) in.push_back(leaf_of[q]);
        }
        if (in.empty() || out.empty()) throw std::logic_error("ft2d: a segment under no chip of its line");
        const size_t q = std::min(in.size(), out.size());
        for (size_t k = 0; k < q; ++k) {
          const uint32_t ka = cut(a, b, k, q), kb = cut(a, b, k + 1, q);
          if (ka == kb) continue;
          job.own.push_back({in[k], ka, kb});
          back.own.push_back({out[k], ka, kb});
          lv.early.push_back({path[in[k]], (ChipId)parent[path[in[k]]], ka, kb});
          lv.early_back.push_back({path[out[k]], (ChipId)parent[path[out[k]]], ka, kb});
        }
      }
  }
  auto by_pos = [](const Own& x, const Own& y) { return x.pos < y.pos; };
  std::stable_sort(job.own.begin(), job.own.end(), by_pos);
  std::stable_sort(back.own.begin(), back.own.end(), by_pos);
  lv.seg.push_back(std::move(job));
  lv.seg_back.push_back(std::move(back));
}

// Otherwise one even shard per leaf, handed to its parent before the lines' rings.
void fold_even(const std::vector<ChipId>& path, const std::vector<long>& parent, uint32_t lo,
               uint32_t hi, FoldPlan::Level& lv) {
  RingSpec seg;
  seg.cyc = path;
  seg.chain = true;
  for (ChipId c : path) seg.cols.push_back({c});
  make_jobs(seg, lo, hi, &lv.seg);
  make_jobs(seg, lo, hi, &lv.seg_back);
  std::map<ChipId, std::pair<uint32_t, uint32_t>> shard;
  for (const auto& o : ownership(seg, lo, hi)) shard[o.first] = o.second;
  for (ChipId c : path) {  // a leaf without a shard (more chips than words) has none
    const auto it = shard.find(c);
    if (it == shard.end()) continue;
    lv.early.push_back({c, (ChipId)parent[c], it->second.first, it->second.second});
    lv.early_back.push_back(lv.early.back());
  }
}

}  // namespace

FoldPlan fold_plan(const Frame& fr, uint32_t lo, uint32_t hi, bool both) {
  FoldPlan plan;
  const std::vector<char> full = full_lines(fr);
  bool any_full = false;
  for (char x : full) any_full = any_full || x;
  if (!any_full) return plan;
  const Core core = trim_core(fr, full, both);
  const Leaves leaves = find_leaves(fr, full, core);
  if (!leaves.ok) return plan;
  const std::vector<int> spec_of = full_line_rings(fr, full, core, &plan.specs);
  if (!fr.t.torus()) weight_cut_columns(core, both, &plan.specs);
  int max_depth = 0;
  for (int d : leaves.depth) max_depth = std::max(max_depth, d);
  plan.levels.resize(max_depth);
  std::vector<Seg> segs = find_segments(fr, full, leaves);
  if (!both || fr.t.torus()) pair_segments(fr, &segs);
  for (size_t i = 0; i < segs.size(); ++i) {
    const Seg& sg = segs[i];
    FoldPlan::Level& lv = plan.levels[sg.d - 1];
    const auto mine = chain_ranges(fr, segs, i, lo, hi, both, lv);
    if (sg.aligned)
      fold_aligned(fr, sg, plan.specs[spec_of[sg.pv]], mine, leaves.parent, lo, hi, both, lv);
    else
      fold_even(sg.path, leaves.parent, lo, hi, lv);
  }
  plan.ok = true;
  return plan;
}

}  // namespace fm::coll::detail
