// The 2-D family (2d, shrink, ft2d): a two-level reduction in a frame whose first
// dimension u is x (order XY) or y (order YX):
//   1. every "line spec" (a row ring, or for ft2d a band ring threading several rows)
//      reduce-scatters the range; each of its chips owns a set of column shards;
//   2. for every piece of the buffer, the owners it has (one per line spec) form a
//      group, which allreduces that piece (ring reduce-scatter then all-gather);
//   3. every line spec all-gathers the range.
// The groups of step 2 are derived from the ownership, not written by hand, so any
// assignment of shards gives a correct schedule; the constructions only choose
// assignments that keep the groups on straight lines (rect_specs here for 2d and
// shrink; ft2d_fold.cpp and ft2d_bands.cpp for ft2d). ft2d wraps the scheme in a fold
// (chips outside the full lines hand their data in first) and an unfold (they get the
// sum back last). Straight lines run as rings or as chains (AlgoParams::line).
#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "models/collective/algorithms_impl.h"

namespace fm::coll::detail {
namespace {

// Whether chip b lies on a's line further along v (wrapping on a torus) with every link
// between them live: the chips in between are live, and forward what passes without
// taking part (a leaf row's routers, for a column group that crosses it). The routes are
// minimal, so a transfer from a to b runs straight along that run.
bool straight_run(const Frame& fr, ChipId a, ChipId b) {
  if (fr.u(a) != fr.u(b) || a == b) return false;
  const int u = fr.u(a);
  for (int v = fr.v(a); v != fr.v(b); v = fr.vnext(v, 1))
    if (v < 0 || !fr.vlink(u, v)) return false;
  return true;
}

// Whether consecutive chips of `p` are joined by live links (both ways): neighbours, or
// (a phase-2 group) on one line with a straight run of live links between them. The
// path a chain needs.
bool path_linked(const Frame& fr, const std::vector<ChipId>& p) {
  for (size_t i = 0; i + 1 < p.size(); ++i) {
    bool joined = false;
    for (int q = 0; q < kNumNetPorts && !joined; ++q)
      joined = fr.t.neighbour(p[i], (Port)q) == (long)p[i + 1] && !fr.f.link_dead(p[i], (Port)q) &&
               !fr.f.link_dead(p[i + 1], opposite((Port)q));
    if (!joined && !straight_run(fr, p[i], p[i + 1])) return false;
  }
  return true;
}

// Whether a straight line (a path of live links; `cyclic` when it also closes) runs as a
// chain under the frame's line mode: chain always, auto only where no ring closes (a
// closed ring both ways carries S (n-1)/n per link direction, a chain S, an
// alternate-node ring 2 S (n-1)/n).
bool as_chain(const Frame& fr, const std::vector<ChipId>& path, bool cyclic) {
  if (fr.line == Line::Ring || path.size() < 3) return false;  // n = 2: ring = chain
  return (fr.line == Line::Chain || !cyclic) && path_linked(fr, path);
}

}  // namespace

// The ring of one straight line of chips (in order along u): the natural cycle, both
// ways, when it closes with a live wraparound link; the alternate-node ring otherwise;
// or a chain along it (as_chain). Chip i owns column shard i.
RingSpec line_spec(const Frame& fr, const std::vector<ChipId>& line, bool cyclic) {
  RingSpec s;
  s.chain = as_chain(fr, line, cyclic);
  s.bi = !s.chain && cyclic && line.size() >= 3;
  s.cyc = s.bi || s.chain ? line : alt_order(line);
  for (ChipId c : line) s.cols.push_back({c});
  return s;
}

// Full line v over columns [ua, ub] (all of them on a torus): line_spec of its chips in
// order along u, closing on a torus. A torus line that lost one link (full_lines lets it
// count as full where chains run) becomes a chain starting just past the dead link: it
// carries S per link direction against the closed ring's S (n-1)/n, where the fold would
// hand the whole line's data to its neighbours. Its shards stay owned column by
// column (chip u owns shard u - ua), so the phase-2 groups stay on straight columns.
RingSpec full_line_spec(const Frame& fr, int v, int ua, int ub) {
  const bool torus = fr.t.torus();
  std::vector<ChipId> line;
  for (int u = ua; u <= ub; ++u) line.push_back(fr.chip(u, v));
  int broken = -1;  // u of the dead link (u, v) -> (u+1, v) of a torus line
  if (torus && fr.U >= 3)
    for (int u = 0; u < fr.U; ++u)
      if (!fr.ulink(u, v)) broken = u;
  if (broken < 0) return line_spec(fr, line, torus && fr.U >= 3);
  std::vector<ChipId> path;
  for (int i = 0; i < fr.U; ++i) path.push_back(fr.chip((broken + 1 + i) % fr.U, v));
  RingSpec s = line_spec(fr, path, false);
  s.ring_own = fr.line == Line::Auto;  // where the closed lines run as two-way rings
  s.cols.clear();
  for (ChipId c : line) s.cols.push_back({c});
  return s;
}

namespace {

// The ring of a phase-2 group (one owner per line spec), members as chips. On one
// straight line of consecutive live links: natural cycle both ways when it closes,
// else the alternate-node ring over the path. Anything else (a group that had to
// detour): the alternate-node ring over the members sorted along v, which is correct
// (the network routes the longer edges) if less tidy. Ownership: even, in ring order.
RingSpec group_spec(const Frame& fr, std::vector<ChipId> m) {
  std::sort(m.begin(), m.end(), [&](ChipId a, ChipId b) {
    return fr.v(a) != fr.v(b) ? fr.v(a) < fr.v(b) : fr.u(a) < fr.u(b);
  });
  RingSpec s;
  bool one_line = true;
  for (ChipId c : m) one_line = one_line && fr.u(c) == fr.u(m[0]);
  std::vector<ChipId> path = m;
  bool cyclic = false;
  if (one_line && m.size() >= 2) {
    const int u = fr.u(m[0]);
    const size_t n = m.size();
    // Breaks: consecutive members (cyclically on a torus) not joined by a live link.
    std::vector<size_t> breaks;  // index i: no link between m[i] and m[i+1]
    for (size_t i = 0; i < n; ++i) {
      const bool last = i + 1 == n;
      if (last && !fr.t.torus()) {
        breaks.push_back(i);
        continue;
      }
      const int va = fr.v(m[i]), vb = fr.v(m[(i + 1) % n]);
      const bool adj = (va + 1) % fr.V == vb && fr.vlink(u, va);
      if (!adj) breaks.push_back(i);
    }
    // More than one break: a gap that only passes live chips of other lines (the leaf
    // rows of another hole, on a column two holes cut into two runs of full rows) is
    // crossed straight instead (straight_run), so the group stays one path rather than
    // an alternate-node ring whose long edges detour around the hole. The break kept is
    // a dead one, else (every gap crossable) the widest, the first of equals: where the
    // path would share the most links with the leaves' hand-overs.
    if (breaks.size() >= 2) {
      auto gap = [&](size_t i) { return (fr.v(m[(i + 1) % n]) - fr.v(m[i]) + fr.V) % fr.V; };
      auto crossable = [&](size_t i) { return (i + 1 < n || fr.t.torus()) && straight_run(fr, m[i], m[(i + 1) % n]); };
      std::vector<size_t> kept;
      for (size_t i : breaks)
        if (!crossable(i)) kept.push_back(i);
      if (kept.empty()) {
        size_t w = breaks[0];
        for (size_t i : breaks)
          if (gap(i) > gap(w)) w = i;
        kept.push_back(w);
      }
      if (kept.size() == 1) breaks = kept;
    }
    if (breaks.empty() && (int)n == fr.V) {
      cyclic = true;
    } else if (breaks.size() == 1) {  // a path: start it just after the break
      std::rotate(path.begin(), path.begin() + (breaks[0] + 1) % n, path.end());
    }
  }
  // A chain needs one straight path of live links (breaks.size() == 1 above; on a torus
  // a column that lost one link becomes a chain instead of detouring).
  if (one_line && as_chain(fr, path, cyclic)) {
    s.cyc = path;
    s.chain = true;
  } else if (cyclic) {
    s.cyc = path;
    s.bi = true;
  } else {
    s.cyc = alt_order(path);
  }
  for (ChipId c : path) s.cols.push_back({c});
  return s;
}

// Who owns what of [lo, hi) once the line spec `s` has reduce-scattered it (both halves
// of a two-way ring), sorted by offset.
OwnList line_ownership(const RingSpec& s, uint32_t lo, uint32_t hi) {
  OwnList o;
  const uint32_t mid = own_mid(s, lo, hi);
  if (s.cyc.size() == 1) {
    o.push_back({s.cyc[0], {lo, hi}});
  } else {
    o = ownership(s, lo, mid);
    if (mid < hi) {
      auto o2 = ownership(s, mid, hi);
      o.insert(o.end(), o2.begin(), o2.end());
    }
  }
  std::sort(o.begin(), o.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  return o;
}

// Step 2 of the two-level scheme: for each piece of [lo, hi), the chips owning it, one
// per line spec (the pieces are cut at every ownership boundary of every spec; adjacent
// pieces with the same owners are merged).
std::vector<std::pair<std::pair<uint32_t, uint32_t>, std::vector<ChipId>>> owner_groups(
    const std::vector<RingSpec>& specs, uint32_t lo, uint32_t hi) {
  // Per spec, its ownership over [lo, hi) as the two halves make_jobs uses.
  std::vector<std::vector<std::pair<ChipId, std::pair<uint32_t, uint32_t>>>> own;
  std::vector<uint32_t> cuts = {lo, hi};
  for (const RingSpec& s : specs) {
    auto o = line_ownership(s, lo, hi);
    for (const auto& x : o) cuts.push_back(x.second.first);
    own.push_back(std::move(o));
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::vector<std::pair<std::pair<uint32_t, uint32_t>, std::vector<ChipId>>> groups;
  std::vector<size_t> at(specs.size(), 0);
  for (size_t k = 0; k + 1 < cuts.size(); ++k) {
    const uint32_t a = cuts[k], b = cuts[k + 1];
    std::vector<ChipId> m;
    for (size_t s = 0; s < specs.size(); ++s) {
      while (own[s][at[s]].second.second <= a) ++at[s];
      m.push_back(own[s][at[s]].first);
    }
    if (!groups.empty() && groups.back().first.second == a && groups.back().second == m)
      groups.back().first.second = b;
    else
      groups.push_back({{a, b}, m});
  }
  return groups;
}

}  // namespace

void two_level(const Frame& fr, const std::vector<RingSpec>& specs, uint32_t lo, uint32_t hi,
               TwoLevel* out) {
  for (const RingSpec& s : specs) make_jobs(s, lo, hi, &out->rs1);
  for (const auto& g : owner_groups(specs, lo, hi)) {
    if (g.second.size() < 2) continue;
    make_jobs(group_spec(fr, g.second), g.first.first, g.first.second, &out->rs2);
  }
}

// The straight line specs of a rectangle [u0, u0+nu) x [v0, v0+nv) (coordinates wrap on
// a torus): one per v.
std::vector<RingSpec> rect_specs(const Frame& fr, int u0, int nu, int v0, int nv) {
  std::vector<RingSpec> specs;
  for (int j = 0; j < nv; ++j) {
    const int v = (v0 + j) % fr.V;
    std::vector<ChipId> line;
    bool cyclic = fr.t.torus() && nu == fr.U;
    for (int i = 0; i < nu; ++i) {
      const int u = (u0 + i) % fr.U;
      line.push_back(fr.chip(u, v));
      if (cyclic && !fr.ulink(u, v)) cyclic = false;
    }
    specs.push_back(line_spec(fr, line, cyclic));
  }
  return specs;
}

namespace {

// One of the order's parts: the buffer range [lo, hi), xy or yx first.
struct Part {
  bool xy;
  uint32_t lo, hi;
};

// The schedule of the order's parts, slice by slice: the fold (ft2d), the two-level
// scheme and the unfold, the parts' phases side by side.
void emit_parts(const FaultSet& f, const AlgoParams& p, const Rect& r, const std::vector<Part>& parts,
                uint32_t slices, ScheduleBuilder& b) {
  const uint32_t cw = p.chunk_words;
  auto phase_of = [&](const Part& pt, Step step, bool first) {
    const Half half = parts.size() == 1 ? Half::Whole : pt.xy ? Half::XY : Half::YX;
    return b.phase({step, pt.xy == first ? Dim::X : Dim::Y, half});
  };
  auto chunked = [&](ChipId src, ChipId dst, uint32_t a, uint32_t bnd, bool reduce, int phase) {
    if (b.count_only()) return b.count(bnd > a ? (bnd - a + (uint64_t)cw - 1) / cw : 0);
    for (uint32_t off = a; off < bnd; off += cw) b.add(src, dst, off, std::min(cw, bnd - off), reduce, phase);
  };
  // Slice by slice (each a share of every part's range, with its own fold, two-level
  // scheme and unfold), so that with the engines sending in schedule order slice s+1's
  // fold runs while slice s is in the full lines' rings: the fold's latency is paid
  // once per slice, not for the whole buffer.
  for (uint32_t sl = 0; sl < slices; ++sl) {
    std::vector<Part> sp(parts.size());
    for (size_t i = 0; i < parts.size(); ++i)
      sp[i] = {parts[i].xy, cut(parts[i].lo, parts[i].hi, sl, slices),
               cut(parts[i].lo, parts[i].hi, sl + 1, slices)};
    std::vector<TwoLevel> tl(sp.size());
    std::vector<FoldPlan> fold(sp.size());
    for (size_t i = 0; i < sp.size(); ++i) {
      const Frame fr(f, sp[i].xy, p.line);
      std::vector<RingSpec> specs;
      if (p.algo == Algo::FT2D) {
        fold[i] = fold_plan(fr, sp[i].lo, sp[i].hi, p.order == Order::Both);
        specs = fold[i].ok ? fold[i].specs : ft2d_specs(fr);
      } else if (sp[i].xy) {
        specs = rect_specs(fr, r.x0, r.w, r.y0, r.h);
      } else {
        specs = rect_specs(fr, r.y0, r.h, r.x0, r.w);
      }
      two_level(fr, specs, sp[i].lo, sp[i].hi, &tl[i]);
    }
    // Phases: first dimension reduce-scatter, second dimension reduce-scatter, second
    // all-gather, first all-gather; the two halves of order both run side by side.
    std::vector<int> ph(sp.size());
    size_t levels = 0;
    for (const FoldPlan& fp : fold) levels = std::max(levels, fp.levels.size());
    if (levels > 0) {  // ft2d's leaves hand their data over, deepest first
      const int pf = b.phase({Step::Fold});
      for (size_t d = levels; d-- > 0;) {
        for (size_t i = 0; i < sp.size(); ++i)
          if (d < fold[i].levels.size())
            for (const auto& h : fold[i].levels[d].pre) chunked(h.src, h.dst, h.a, h.b, true, pf);
        for (size_t i = 0; i < sp.size(); ++i)
          if (d < fold[i].levels.size()) emit(b, fold[i].levels[d].seg, true, pf, cw);
        for (size_t i = 0; i < sp.size(); ++i)
          if (d < fold[i].levels.size())
            for (const auto& h : fold[i].levels[d].early) chunked(h.src, h.dst, h.a, h.b, true, pf);
      }
    }
    // The aligned segments' pieces join their owners after the lines' reduce-scatter
    // (and come back before the lines' all-gather): listed between the phases.
    auto late = [&](bool fold_in, int phase) {
      for (size_t i = 0; i < sp.size(); ++i)
        for (const FoldPlan::Level& lv : fold[i].levels)
          for (const auto& h : lv.late) {
            if (fold_in)
              chunked(h.src, h.dst, h.a, h.b, true, phase);
            else
              chunked(h.dst, h.src, h.a, h.b, false, phase);
          }
    };
    for (size_t i = 0; i < sp.size(); ++i) ph[i] = phase_of(sp[i], Step::ReduceScatter, true);
    for (size_t i = 0; i < sp.size(); ++i) emit(b, tl[i].rs1, true, ph[i], cw);
    if (levels > 0) late(true, b.phase({Step::Fold}));
    for (size_t i = 0; i < sp.size(); ++i) ph[i] = phase_of(sp[i], Step::ReduceScatter, false);
    for (size_t i = 0; i < sp.size(); ++i) emit(b, tl[i].rs2, true, ph[i], cw);
    for (size_t i = 0; i < sp.size(); ++i) ph[i] = phase_of(sp[i], Step::AllGather, false);
    for (size_t i = 0; i < sp.size(); ++i) emit(b, tl[i].rs2, false, ph[i], cw);
    if (levels > 0) late(false, b.phase({Step::Unfold}));
    for (size_t i = 0; i < sp.size(); ++i) ph[i] = phase_of(sp[i], Step::AllGather, true);
    for (size_t i = 0; i < sp.size(); ++i) emit(b, tl[i].rs1, false, ph[i], cw);
    if (levels > 0) {  // and get the result back, nearest first
      const int pu = b.phase({Step::Unfold});
      for (size_t d = 0; d < levels; ++d) {
        for (size_t i = 0; i < sp.size(); ++i)
          if (d < fold[i].levels.size())
            for (const auto& h : fold[i].levels[d].early_back) chunked(h.dst, h.src, h.a, h.b, false, pu);
        for (size_t i = 0; i < sp.size(); ++i)
          if (d < fold[i].levels.size()) emit(b, fold[i].levels[d].seg_back, false, pu, cw);
        for (size_t i = 0; i < sp.size(); ++i)
          if (d < fold[i].levels.size())
            for (const auto& h : fold[i].levels[d].pre) chunked(h.dst, h.src, h.a, h.b, false, pu);
      }
    }
  }
}

// Order both's split of the buffer between the xy and the yx half, [0, m) and [m, S),
// for ft2d around faults. Split evenly, the half whose first dimension a fault slows
// (a torus row that lost a link runs as a chain, whose end links carry nearly all of
// its reduce-scatter) paces the whole allreduce while the other half idles at the end.
// So each half's cost per word is estimated from its own schedule, built once over a
// test range with one chunk per piece: the sum over its ring phases of the busiest chip
// pair's words in the phase (the phases run one after another; transfers between
// neighbours are one link, the rare longer ones counted as one; fold phases left out,
// as slices pipeline them under the rings). Each half gets a share inversely
// proportional to its cost, so both end together; a share within kEvenBand of a half
// stays even, as the estimate is rough. Measured on a 16x16 torus at 2 MiB with one
// failed link: 29,893 cycles against 33,268 even and 28,590 at the best fixed split
// (docs/collectives.md, "Order both around faults").
// The test schedules hold a line's n^2 transfers (every shard over every link of its
// line); past kMaxTestTransfers (a line of a few thousand chips) the split stays even,
// decided from their count alone, so that the memory estimate (count_transfers), which
// makes the same decision, can refuse such a run before anything is built.
uint32_t both_split(const FaultSet& f, const AlgoParams& p, const Rect& r) {
  constexpr uint32_t kTestWords = 1u << 16;
  constexpr uint64_t kMaxTestTransfers = 1u << 22;
  constexpr double kEvenBand = 0.05;
  double cost[2];
  for (int i = 0; i < 2; ++i) {
    AlgoParams q = p;
    q.words = q.chunk_words = kTestWords;
    ScheduleBuilder counter(f.topology().chips(), kTestWords, /*count_only=*/true);
    emit_parts(f, q, r, {{i == 0, 0, kTestWords}}, 1, counter);
    if (counter.added() > kMaxTestTransfers) return p.words / 2;
    ScheduleBuilder tb(f.topology().chips(), kTestWords);
    emit_parts(f, q, r, {{i == 0, 0, kTestWords}}, 1, tb);
    const Schedule& s = tb.pending();
    std::vector<std::map<std::pair<ChipId, ChipId>, uint64_t>> load(s.phases.size());
    for (const Xfer& x : s.xfers) load[x.phase][{x.src, x.dst}] += x.len;
    cost[i] = 0;
    for (size_t ph = 0; ph < load.size(); ++ph) {
      if (s.phases[ph].fold()) continue;
      uint64_t busiest = 0;
      for (const auto& l : load[ph]) busiest = std::max(busiest, l.second);
      cost[i] += (double)busiest;
    }
  }
  const uint32_t S = p.words;
  if (cost[0] + cost[1] <= 0) return S / 2;
  const double share = cost[1] / (cost[0] + cost[1]);  // the xy half's
  if (std::abs(share - 0.5) < kEvenBand) return S / 2;
  const auto m = (uint32_t)std::llround(share * S);
  return std::min(std::max<uint32_t>(m, 1), S - 1);
}

}  // namespace

// The 2-D family's schedule: participants, the order's parts, and slice by slice the
// fold (ft2d), the two-level scheme and the unfold.
void construct_two_d(const FaultSet& f, const AlgoParams& p, ScheduleBuilder& b) {
  const Topology2D& t = f.topology();
  const int W = t.width(), H = t.height();
  const uint32_t S = p.words;
  Rect r{0, 0, W, H};
  if (p.algo == Algo::Shrink) r = largest_rect(f, p.order != Order::YX);
  for (ChipId c = 0; c < (ChipId)t.chips(); ++c) {
    bool on = !f.chip_dead(c);
    if (p.algo == Algo::Shrink) {
      const int dx = (t.x(c) - r.x0 + W) % W, dy = (t.y(c) - r.y0 + H) % H;
      on = dx < r.w && dy < r.h;
    }
    b.set_participant(c, on);
  }
  std::vector<Part> parts;
  if (p.order == Order::XY) parts.push_back({true, 0, S});
  if (p.order == Order::YX) parts.push_back({false, 0, S});
  if (p.order == Order::Both) {
    const uint32_t m = p.algo == Algo::FT2D && !f.empty() && S >= 2 ? both_split(f, p, r) : S / 2;
    parts.push_back({true, 0, m});
    parts.push_back({false, m, S});
  }
  if (p.slices > kMaxSlices)
    throw ConfigError("allreduce slices: " + std::to_string(p.slices) + ", allowed 0 (auto) or 1.." +
                      std::to_string(kMaxSlices));
  // Auto: one count for the whole family, holes or not (kAutoSlices), so 2d, shrink and
  // ft2d run alike by default (docs/collectives.md, "Slices").
  uint32_t slices = p.slices ? p.slices : kAutoSlices;
  // A slice has at least one word of every part.
  uint32_t smallest = S;
  for (const Part& pt : parts) smallest = std::min(smallest, pt.hi - pt.lo);
  slices = std::max<uint32_t>(1, std::min(slices, smallest));
  emit_parts(f, p, r, parts, slices, b);
}

}  // namespace fm::coll::detail
