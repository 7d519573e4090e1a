// Allreduce algorithms as transfer lists (docs/collectives.md has the drawings).
//
// Every algorithm here is built from one piece: a ring job, a cycle of chips that
// reduce-scatters a buffer range so that each word ends summed at its owner, and
// all-gathers it back. Transfers are added step by step, and within a step chunk by
// chunk, so the derived dependencies pipeline the ring: chunk m of step k+1 can go as
// soon as chunk m of step k has arrived.
//
// The 2-D family (2d, shrink, ft2d) is a two-level reduction in a frame whose first
// dimension u is x (order XY) or y (order YX):
//   1. every "line spec" (a row ring, or for ft2d a band ring threading several rows)
//      reduce-scatters the range; each of its chips owns a set of column shards;
//   2. for every piece of the buffer, the owners it has (one per line spec) form a
//      group, which allreduces that piece (ring reduce-scatter then all-gather);
//   3. every line spec all-gathers the range.
// The groups of step 2 are derived from the ownership, not written by hand, so any
// assignment of shards gives a correct schedule; the constructions below only choose
// assignments that keep the groups on straight lines. ft2d wraps the scheme in a fold
// (chips outside the full lines hand their data in first) and an unfold (they get the
// sum back last).
#include "models/collective/algorithms.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <stdexcept>

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

uint32_t cut(uint32_t lo, uint32_t hi, size_t j, size_t k) {
  return lo + (uint32_t)((uint64_t)(hi - lo) * j / k);
}

// The ownership intervals of `spec` over [lo, hi) as (chip, a, b), column by column.
std::vector<std::pair<ChipId, std::pair<uint32_t, uint32_t>>> ownership(const RingSpec& spec,
                                                                        uint32_t lo,
                                                                        uint32_t hi) {
  std::vector<std::pair<ChipId, std::pair<uint32_t, uint32_t>>> out;
  const size_t k = spec.cols.size();
  // Column j's shard: [cum_j, cum_j+1) of the total weight, scaled to [lo, hi).
  std::vector<size_t> cum(k + 1, 0);
  for (size_t j = 0; j < k; ++j) cum[j + 1] = cum[j] + (spec.weight.empty() ? 1 : spec.weight[j]);
  for (size_t j = 0; j < k; ++j) {
    const uint32_t a = cut(lo, hi, cum[j], cum[k]), b = cut(lo, hi, cum[j + 1], cum[k]);
    if (a == b) continue;
    const size_t m = spec.cols[j].size();
    if (m == 0) throw std::logic_error("collective: a column shard has no owner");
    if (spec.lead_den > 0 && m > 1) {
      const uint32_t mid = cut(a, b, spec.lead_num, spec.lead_den);
      if (mid > a) out.push_back({spec.cols[j][0], {a, mid}});
      for (size_t i = 1; i < m; ++i) {
        const uint32_t ca = cut(mid, b, i - 1, m - 1), cb = cut(mid, b, i, m - 1);
        if (cb > ca) out.push_back({spec.cols[j][i], {ca, cb}});
      }
      continue;
    }
    for (size_t i = 0; i < m; ++i) {
      const uint32_t ca = cut(a, b, i, m), cb = cut(a, b, i + 1, m);
      if (cb > ca) out.push_back({spec.cols[j][i], {ca, cb}});
    }
  }
  return out;
}

// Splits a spec into its jobs over [lo, hi): one, or two opposite halves when bi.
void make_jobs(const RingSpec& spec, uint32_t lo, uint32_t hi, std::vector<Job>* jobs) {
  if (spec.cyc.size() < 2 || hi <= lo) return;
  const bool bi = !spec.chain && spec.bi && spec.cyc.size() >= 3 && hi - lo >= 2;
  const uint32_t mid = bi ? lo + (hi - lo) / 2 : hi;
  for (int dir = 0; dir < (bi ? 2 : 1); ++dir) {
    Job j;
    j.chain = spec.chain;
    j.cyc = spec.cyc;
    if (dir == 1) std::reverse(j.cyc.begin(), j.cyc.end());
    std::map<ChipId, int> pos;
    for (size_t i = 0; i < j.cyc.size(); ++i) pos[j.cyc[i]] = (int)i;
    const uint32_t a = dir == 0 ? lo : mid, b = dir == 0 ? mid : hi;
    for (const auto& o : ownership(spec, a, b)) j.own.push_back({pos.at(o.first), o.second.first, o.second.second});
    jobs->push_back(std::move(j));
  }
}

// Step k of a chain job (RingSpec::chain) over the path c[0..n-1]. Reduce-scatter: the
// shard owned by c[q] flows in from both ends, c[k] -> c[k+1] while k < q and
// c[n-1-k] -> c[n-2-k] while n-1-k > q, each chip adding what arrives to its own part
// before passing it on; the shards with the longest way to go are listed first, so
// the link serves them first (engines send in schedule order). All-gather: the owner's
// result is copied outward, c[q+k] -> c[q+k+1] and c[q-k] -> c[q-k-1]. Over both
// phases the link c[i] -> c[i+1] carries the shards beyond it once and those before it
// once: the whole range, whatever the shard sizes.
void emit_chain_step(ScheduleBuilder& b, const Job& j, size_t k, bool reduce, int phase,
                     uint32_t chunk) {
  const size_t n = j.cyc.size();
  auto send = [&](size_t s, size_t d, const Own& o) {
    for (uint32_t off = o.a; off < o.b; off += chunk)
      b.add(j.cyc[s], j.cyc[d], off, std::min(chunk, o.b - off), reduce, phase);
  };
  if (reduce) {
    for (size_t i = j.own.size(); i-- > 0;)
      if (k < (size_t)j.own[i].pos) send(k, k + 1, j.own[i]);
    for (const Own& o : j.own)
      if (n - 1 - k > (size_t)o.pos) send(n - 1 - k, n - 2 - k, o);
  } else {
    for (const Own& o : j.own) {
      const size_t q = (size_t)o.pos;
      if (q + k + 1 < n) send(q + k, q + k + 1, o);
      if (k + 1 <= q) send(q - k, q - k - 1, o);
    }
  }
}

// Adds the reduce-scatter (reduce = true) or all-gather of a set of jobs, step by step
// across all of them, chunk by chunk within a step.
void emit(ScheduleBuilder& b, const std::vector<Job>& jobs, bool reduce, int phase,
          uint32_t chunk) {
  if (b.count_only()) {
    // Closed form for the memory estimate: a ring and a chain alike move every shard
    // over n-1 links per phase, chunk by chunk (a chain's reduce-scatter takes pos
    // steps from the left and n-1-pos from the right; its all-gather the reverse).
    // Walking the steps instead costs chips^2 for one long line.
    for (const Job& j : jobs) {
      if (j.cyc.size() < 2) continue;
      uint64_t chunks = 0;
      for (const Own& o : j.own) chunks += (o.b - o.a + (uint64_t)chunk - 1) / chunk;
      b.count((j.cyc.size() - 1) * chunks);
    }
    return;
  }
  size_t steps = 0;
  for (const Job& j : jobs) steps = std::max(steps, j.cyc.size() - 1);
  for (size_t k = 0; k < steps; ++k)
    for (const Job& j : jobs) {
      const size_t n = j.cyc.size();
      if (k + 1 >= n) continue;
      if (j.chain) {
        emit_chain_step(b, j, k, reduce, phase, chunk);
        continue;
      }
      for (const Own& o : j.own) {
        // Reduce-scatter: the owner's shard starts after it and ends at it.
        // All-gather: it starts at the owner and ends just before it.
        const size_t s = reduce ? (o.pos + 1 + k) % n : (o.pos + k) % n, d = (s + 1) % n;
        for (uint32_t off = o.a; off < o.b; off += chunk)
          b.add(j.cyc[s], j.cyc[d], off, std::min(chunk, o.b - off), reduce, phase);
      }
    }
}

// The alternate-node order of a path: p0, p2, p4, ..., then the odd ones backwards,
// so that on a line every link direction carries exactly one ring edge.
std::vector<ChipId> alt_order(const std::vector<ChipId>& p) {
  std::vector<ChipId> r;
  for (size_t i = 0; i < p.size(); i += 2) r.push_back(p[i]);
  for (size_t i = p.size() - 1 - (p.size() % 2 == 0 ? 0 : 1); i < p.size(); i -= 2) {
    r.push_back(p[i]);
    if (i < 2) break;
  }
  return r;
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
};

// Whether consecutive chips of `p` are neighbours joined by a live link (both ways):
// the path a chain needs.
bool path_linked(const Frame& fr, const std::vector<ChipId>& p) {
  for (size_t i = 0; i + 1 < p.size(); ++i) {
    bool joined = false;
    for (int q = 0; q < kNumNetPorts && !joined; ++q)
      joined = fr.t.neighbour(p[i], (Port)q) == (long)p[i + 1] && !fr.f.link_dead(p[i], (Port)q) &&
               !fr.f.link_dead(p[i + 1], opposite((Port)q));
    if (!joined) return false;
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
std::vector<std::pair<ChipId, std::pair<uint32_t, uint32_t>>> line_ownership(const RingSpec& s,
                                                                             uint32_t lo,
                                                                             uint32_t hi) {
  std::vector<std::pair<ChipId, std::pair<uint32_t, uint32_t>>> o;
  const bool bi = !s.chain && s.bi && s.cyc.size() >= 3 && hi - lo >= 2;
  const uint32_t mid = bi ? lo + (hi - lo) / 2 : hi;
  if (s.cyc.size() == 1) {
    o.push_back({s.cyc[0], {lo, hi}});
  } else {
    o = ownership(s, lo, mid);
    if (bi) {
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

// The two-level scheme over [lo, hi) in one frame, with the given line specs, as job
// lists (the caller emits them phase by phase, so that the two frames of order both
// run side by side).
struct TwoLevel {
  std::vector<Job> rs1, rs2;  // line jobs, group jobs (all-gather reuses them)
};

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

// The ring threading a band: lines `ls` (in order along v) of the frame; `ret` >= 0 is
// a full line of the band used as the return line (mesh), -1 for none (torus, or a mesh
// band without a full line, closed by one long edge). Columns are visited in order,
// each swept up or down toward the previous chip (a zigzag); on a mesh the return line
// then runs back. Each link direction carries at most one ring edge when the band is
// whole; holes cost detours.
std::vector<ChipId> band_cycle(const Frame& fr, const std::vector<int>& ls, int owner) {
  const int U = fr.U;
  const bool torus = fr.t.torus();
  std::vector<int> rank(fr.V, -1);  // position of a line within the band
  for (size_t i = 0; i < ls.size(); ++i) rank[ls[i]] = (int)i;
  // The zigzag: columns in order from u_start, each swept toward the previous chip.
  const bool ret = owner >= 0;
  int u_start = 0;
  if (torus) {  // start just after a column with fewest live chips, so parity closes
    std::vector<int> cnt(U, 0);
    for (int u = 0; u < U; ++u)
      for (int v : ls) cnt[u] += fr.live(u, v);
    for (int u = 0; u < U; ++u)
      if (cnt[u] < cnt[(u + 1) % U]) {
        u_start = (u + 1) % U;
        break;
      }
  }
  // Two tries, the first column swept up or down; the one with fewer hops in all wins
  // (on a torus band the parity decides whether the cycle closes in one hop).
  std::vector<ChipId> best;
  long best_hops = -1;
  for (int first_down = 0; first_down < 2; ++first_down) {
    std::vector<ChipId> cyc;
    int prev = ret ? rank[owner] : -1;  // band rank of the previous chip
    for (int i = 0; i < U; ++i) {
      const int u = (u_start + i) % U;
      std::vector<int> col;
      for (int v : ls)
        if (fr.live(u, v) && !(ret && v == owner)) col.push_back(rank[v]);
      if (col.empty()) continue;
      const bool flip = prev >= 0 ? std::abs(col.back() - prev) < std::abs(col.front() - prev)
                                  : first_down == 1;
      if (flip) std::reverse(col.begin(), col.end());
      for (int r : col) cyc.push_back(fr.chip(u, ls[r]));
      prev = col.back();
    }
    if (ret)
      for (int u = U - 1; u >= 0; --u) cyc.push_back(fr.chip(u, owner));
    long hops = 0;
    for (size_t k = 0; k < cyc.size(); ++k)
      hops += fr.t.distance(cyc[k], cyc[(k + 1) % cyc.size()]);
    if (best_hops < 0 || hops < best_hops) {
      best_hops = hops;
      best = cyc;
    }
  }
  return best;
}

// ft2d's fallback (fold_plan below is the main design): its first-phase specs. A line is "full" when all its chips and links along u are
// live; it keeps its own ring. Each run of cut lines is joined with an adjacent full
// line into a band (extended further while some column has no live chip in it), and
// the band gets one ring threading all its live chips:
//   torus: a column-by-column zigzag around the band (each column swept up or down,
//          whichever starts nearer), both ways;
//   mesh:  the zigzag over the band's other lines eastward, then back westward along
//          the full line (the "return line"), one way: like the alternate-node ring,
//          each link direction carries at most one ring edge.
// Ownership keeps phase-2 groups on straight columns: column u's shard is owned in a
// band by the full line's chip in column u (on a torus 5/6 of it, the cut lines' chips
// sharing the other 1/6, which lowers the band edges' load; see below and
// docs/collectives.md); on a mesh the cut lines' chips forward and add but own nothing.
std::vector<RingSpec> ft2d_specs(const Frame& fr) {
  const int U = fr.U, V = fr.V;
  const bool torus = fr.t.torus();
  std::vector<char> full(V, 1);
  for (int v = 0; v < V; ++v)
    for (int u = 0; u < U; ++u) {
      if (!fr.live(u, v)) full[v] = 0;
      if (U > 1 && (torus || u + 1 < U) && !fr.ulink(u, v)) full[v] = 0;
    }
  std::vector<int> band(V, -1);  // band id of each line, -1: a full line on its own
  int nb = 0;
  auto merge = [&](int from, int to) {
    for (int& x : band)
      if (x == from) x = to;
  };
  auto vnext = [&](int v, int d) -> int {  // line v+d, or -1 off a mesh edge
    const int w = v + d;
    if (torus) return (w + V) % V;
    return w < 0 || w >= V ? -1 : w;
  };
  for (int v = 0; v < V; ++v)
    if (!full[v] && band[v] < 0) {
      // The run of cut lines through v, in order.
      int a = v;
      for (int w = vnext(a, -1); w >= 0 && w != v && !full[w]; w = vnext(a, -1)) a = w;
      std::vector<int> run;
      for (int w = a; w >= 0 && !full[w] && band[w] == -1; w = vnext(w, 1)) {
        band[w] = -2;
        run.push_back(w);
      }
      // Two full neighbours and more than one cut line: the lower half of the run
      // pairs with the line below, the upper half with the line above, so that no band
      // is deeper than it must be. Otherwise one band; growing adds a full line.
      const int below = vnext(run.front(), -1), above = vnext(run.back(), 1);
      const bool split = run.size() >= 2 && below >= 0 && above >= 0 && below != above &&
                         full[below] && full[above] && band[below] < 0 && band[above] < 0;
      const size_t half = split ? (run.size() + 1) / 2 : run.size();
      int id = nb++;
      for (size_t i = 0; i < run.size(); ++i) {
        if (i == half) id = nb++;
        band[run[i]] = id;
      }
      if (split) {
        band[below] = id - 1;
        band[above] = id;
      }
    }
  auto members = [&](int id) {
    std::vector<int> ls;
    for (int v = 0; v < V; ++v)
      if (band[v] == id) ls.push_back(v);
    return ls;
  };
  auto has_full = [&](int id) {
    for (int v = 0; v < V; ++v)
      if (band[v] == id && full[v]) return true;
    return false;
  };
  auto covers = [&](int id) {
    for (int u = 0; u < U; ++u) {
      bool any = false;
      for (int v = 0; v < V && !any; ++v) any = band[v] == id && fr.live(u, v);
      if (!any) return false;
    }
    return true;
  };
  // Grow a band by one adjacent line (below first): a free full line is taken, a line
  // of another band merges the two. False when the band already holds every line.
  auto grow = [&](int id) {
    const auto ls = members(id);
    if ((int)ls.size() == V) return false;
    for (int d : {-1, 1}) {
      for (int v : ls) {
        const int w = vnext(v, d);
        if (w < 0 || band[w] == id) continue;
        if (band[w] < 0) band[w] = id;
        else merge(band[w], id);
        return true;
      }
    }
    return false;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (int id = 0; id < nb; ++id) {
      if (members(id).empty()) continue;
      if ((!has_full(id) || !covers(id)) && grow(id)) changed = true;
    }
  }
  std::vector<RingSpec> specs;
  for (int v = 0; v < V; ++v)
    if (band[v] < 0) {
      std::vector<ChipId> line;
      for (int u = 0; u < U; ++u) line.push_back(fr.chip(u, v));
      specs.push_back(line_spec(fr, line, torus && U >= 3));
    }
  for (int id = 0; id < nb; ++id) {
    std::vector<int> ls = members(id);
    if (ls.empty()) continue;
    // Lines in band order: contiguous, starting after a line not in the band.
    if ((int)ls.size() < V) {
      size_t s = 0;
      while (true) {
        const int before = vnext(ls[s], -1);
        if (before < 0 || band[before] != id) break;
        s = (s + 1) % ls.size();
      }
      std::rotate(ls.begin(), ls.begin() + s, ls.end());
    }
    std::vector<int> rank(V, -1);  // position of a line within the band
    for (size_t i = 0; i < ls.size(); ++i) rank[ls[i]] = (int)i;
    int owner = -1;  // the owner (and, on a mesh, return) line
    for (int v : ls)
      if (full[v]) {
        owner = v;
        break;
      }
    RingSpec s;
    s.cols.resize(U);
    for (int u = 0; u < U; ++u) {
      if (owner >= 0) {
        s.cols[u].push_back(fr.chip(u, owner));
        // Torus: the cut lines' chips own a sixth of their column's shard (the full
        // line five sixths). A band ring edge between chips owning nothing carries the
        // whole buffer; with shares it carries less. Their pieces' column groups skip
        // the full lines of the bands and so cross the band's vertical links, which the
        // zigzag also uses: a sixth balances the two (docs/collectives.md).
        if (torus)
          for (int v : ls)
            if (v != owner && fr.live(u, v)) s.cols[u].push_back(fr.chip(u, v));
      } else {
        for (int v : ls)
          if (fr.live(u, v)) s.cols[u].push_back(fr.chip(u, v));
      }
    }
    // A band holding every line can still miss a column (a 1-wide frame with a dead
    // chip): its shard goes to the other columns (the groups follow the ownership).
    s.cols.erase(std::remove_if(s.cols.begin(), s.cols.end(),
                                [](const std::vector<ChipId>& c) { return c.empty(); }),
                 s.cols.end());
    s.cyc = band_cycle(fr, ls, torus ? -1 : owner);
    s.bi = torus;
    if (torus) s.lead_num = 5, s.lead_den = 6;
    specs.push_back(std::move(s));
  }
  // On a mesh the column groups of phase 2 cross the bands (a column is one line), and
  // where a band ring also runs along that column (its turns at the ends, its detours
  // around the hole) the two would share those vertical links; so would the detour of
  // a column cut by the hole. Such "hot" columns get no shard of their own (weight 0,
  // their share spread over the others): a band ring edge between two chips that own
  // nothing already carries the full 2x buffer, so the busiest link stays at that and
  // no column traffic is added on top. (On a torus the column groups avoid the bands'
  // lines, which are a contiguous arc of every column, and nothing is needed.)
  if (!torus && nb > 0) {
    std::vector<uint32_t> w(U, 1);
    for (const RingSpec& sp : specs) {
      if (sp.cols.size() != (size_t)U || sp.cyc.size() < 2) continue;
      bool band_ring = false;
      for (ChipId c : sp.cyc) band_ring = band_ring || fr.v(c) != fr.v(sp.cyc[0]);
      if (!band_ring) continue;
      for (size_t k = 0; k < sp.cyc.size(); ++k) {
        const ChipId a = sp.cyc[k], b = sp.cyc[(k + 1) % sp.cyc.size()];
        if (fr.v(a) != fr.v(b) || fr.t.distance(a, b) > 1) w[fr.u(a)] = w[fr.u(b)] = 0;
      }
    }
    for (int u = 0; u < U; ++u)
      for (int v = 0; v < V; ++v)
        if (!fr.live(u, v) || (v + 1 < V && !fr.vlink(u, v))) w[u] = 0;
    bool any = false;
    for (uint32_t x : w) any = any || x > 0;
    if (any)
      for (RingSpec& sp : specs)
        if (sp.cols.size() == (size_t)U) sp.weight = w;
  }
  return specs;
}

// ft2d's fold design (used whenever it applies; the band design above is the fallback).
// The full lines keep their rings and alone run the two-level scheme. A chip of a cut
// line is a leaf: its data reaches the full lines through the chip next to it in its
// column toward the nearest full line (its parent; a chain through other cut lines when
// the nearest is further away), and it gets the result back the same way, so it
// contributes and receives the full sum without any ring having to detour. The leaves
// of a segment (a run of them along their line) first reduce along it as a chain
// (RingSpec::chain); those next to a full line hand each piece to the chip owning it
// in that line's ring, after the ring's reduce-scatter, and two such segments cut by
// one board pair up to halve what their chains carry (docs/collectives.md). Not
// applicable (ok = false) when some leaf has no live column path to a full line, or
// there is no full line.
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
    std::vector<Hand> pre, early, late;  // pre: a paired segment's exchange (below)
    std::vector<Hand> early_back;        // unfold copies (dst -> src) for `early`
  };
  std::vector<Level> levels;
};

std::vector<char> full_lines(const Frame& fr) {
  std::vector<char> full(fr.V, 1);
  for (int v = 0; v < fr.V; ++v)
    for (int u = 0; u < fr.U; ++u) {
      if (!fr.live(u, v)) full[v] = 0;
      if (fr.U > 1 && (fr.t.torus() || u + 1 < fr.U) && !fr.ulink(u, v)) full[v] = 0;
    }
  return full;
}

FoldPlan fold_plan(const Frame& fr, uint32_t lo, uint32_t hi, bool both) {
  // With order both, the piece of an owner over another segment of its line goes in
  // through the leaves under the last kSpread parents (with a leaf of this segment)
  // to pass it on in the ring's reduce-scatter. Fewer leaves load their column links,
  // which the other half's rings use, with more of the piece; more leaves include
  // parents that pass the piece early, and the ring waits for their chain. Measured
  // (order both, 2, 4 and 8 leaves and all of them; docs/collectives.md): 8.
  constexpr size_t kSpread = 8;
  FoldPlan plan;
  const int U = fr.U, V = fr.V;
  const bool torus = fr.t.torus();
  const std::vector<char> full = full_lines(fr);
  bool any_full = false;
  for (char x : full) any_full = any_full || x;
  if (!any_full) return plan;
  auto vnext = [&](int v, int d) -> int {
    const int w = v + d;
    if (torus) return (w + V) % V;
    return w < 0 || w >= V ? -1 : w;
  };
  // A column is cut when its full lines' chips are not one straight run (a hole sits
  // between them). On a mesh with one order (xy or yx), cut or faulty columns at the
  // sides (a run touching u = 0 or U-1) leave the rings: the full lines' rings span only
  // the core [ua, ub], and the full lines' chips outside it become leaves too, handing
  // over along their line toward the core (no column group has to detour, and the rings
  // get shorter).
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
  auto hdepth = [&](int u) { return u < ua ? ua - u : u > ub ? u - ub : 0; };
  // Depth and parent of every leaf: a chip of a cut line goes along its column to the
  // nearer full line (ties: down), then along that line to the core; a full line's
  // chip outside the core along its line.
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
          const int nb = vnext(w, d);
          if (nb < 0 || !fr.live(u, nb) || !fr.vlink(u, d < 0 ? nb : w)) break;
          if (full[nb]) {
            if (best < 0 || k < best) best = k, dir = d;
            break;
          }
          w = nb;
        }
      }
      if (best < 0) return plan;  // no column path to a full line
      depth[c] = best + hdepth(u);
      parent[c] = fr.chip(u, vnext(v, dir));
    }
  }
  std::vector<int> spec_of(V, -1);
  for (int v = 0; v < V; ++v)
    if (full[v]) {
      std::vector<ChipId> line;
      for (int u = ua; u <= ub; ++u) line.push_back(fr.chip(u, v));
      spec_of[v] = (int)plan.specs.size();
      plan.specs.push_back(line_spec(fr, line, torus && U >= 3));
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
  if (!torus) {
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
      for (RingSpec& sp : plan.specs) sp.weight = w;
  }
  int max_depth = 0;
  for (int d : depth) max_depth = std::max(max_depth, d);
  plan.levels.resize(max_depth);
  // Segments: runs of leaves of one depth joined by live links along u (wrapping on a
  // torus), each started where the previous chip does not continue it.
  struct Seg {
    int d, v, pv;  // depth, its line, its parents' line
    std::vector<ChipId> path;
    bool aligned;   // depth 1 in a cut line, all parents in one full line pv
    int pair = -1;  // the segment it splits the range with (see below)
  };
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
  // Pairs: two aligned depth-1 segments over the same columns in adjacent lines that
  // fold away from each other (the two rows a 2x2 board cuts), joined column by column
  // by live links. Each chip first adds half the range into its partner (the partners'
  // link is otherwise idle), so each segment's chain carries only half the range: a
  // chain's reduce-scatter loads its end links with nearly all it carries, twice what
  // a full line's two-way ring puts on a link in its reduce-scatter.
  // Not with order both: there the other half's rings keep the partners' link busy.
  for (size_t i = 0; i < segs.size() && !both; ++i)
    for (size_t j = i + 1; j < segs.size() && segs[i].pair < 0; ++j) {
      const Seg &x = segs[i], &y = segs[j];
      if (!x.aligned || !y.aligned || y.pair >= 0 ||  // aligned: depth 1
          x.path.size() != y.path.size() || x.pv == y.v || y.pv == x.v)
        continue;
      int up = vnext(x.v, 1) == y.v ? 1 : vnext(x.v, -1) == y.v ? -1 : 0;
      bool ok = up != 0;
      for (size_t k = 0; k < x.path.size() && ok; ++k) {
        const int u = fr.u(x.path[k]);
        ok = fr.u(y.path[k]) == u && fr.vlink(u, up > 0 ? x.v : y.v);
      }
      if (ok) segs[i].pair = (int)j, segs[j].pair = (int)i;
    }
  for (size_t i = 0; i < segs.size(); ++i) {
    const Seg& sg = segs[i];
    const std::vector<ChipId>& path = sg.path;
    FoldPlan::Level& lv = plan.levels[sg.d - 1];
    // What this segment's chain reduces: all of [lo, hi); or, paired, the part
    // [lo, pe) split in halves between the two segments (each chip first adds its
    // partner's half into its partner), and the rest [pe, hi) each its own. Pairing all
    // of the range would load the partners' link with S (there and back); pe at
    // (U-1)/U keeps it at a full line's two-way ring load, S (1 - 1/U).
    const uint32_t pe = cut(lo, hi, (size_t)U - 1, (size_t)U), m = lo + (pe - lo) / 2;
    std::vector<std::pair<uint32_t, uint32_t>> mine = {{lo, hi}};
    if (sg.pair >= 0) {
      const bool first = (int)i < sg.pair;
      mine = {first ? std::make_pair(lo, m) : std::make_pair(m, pe), {pe, hi}};
      for (size_t k = 0; k < path.size(); ++k)  // my partner's half into my partner
        lv.pre.push_back({path[k], segs[sg.pair].path[k], first ? m : lo, first ? pe : m});
    }
    Job job;
    job.chain = true;
    job.cyc = path;
    if (sg.aligned) {
      // Each piece the parent line's ring reduce-scatters, as it travels (job by job):
      //  - its owner has a leaf of the segment in its column: the segment reduces it to
      //    that leaf, which hands it to the owner late (one hop up the column) and gets
      //    the result back from it;
      //  - otherwise (reaching the owner would load the full line's links) it is
      //    added into the line's ring by parents of the segment, early: see below.
      std::map<int, int> leaf_at;  // column -> position in the segment
      for (size_t k = 0; k < path.size(); ++k) leaf_at[fr.u(path[k])] = (int)k;
      std::vector<Job> ring;
      make_jobs(plan.specs[spec_of[sg.pv]], lo, hi, &ring);
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
      continue;
    }
    // Otherwise one even shard per leaf, handed to its parent before the lines' rings.
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
  plan.ok = true;
  return plan;
}

// shrink: the largest rectangle of live chips with live links inside (wrapping on a
// torus). Among equally large ones, one spanning a whole torus dimension (its lines
// close into rings) is preferred, the first-phase dimension (x unless `x_first` is
// false) first; then the lowest (y, x) corner.
struct Rect {
  int x0 = 0, y0 = 0, w = 0, h = 0;
};
Rect largest_rect(const FaultSet& f, bool x_first) {
  const Topology2D& t = f.topology();
  const int W = t.width(), H = t.height();
  const bool torus = t.torus();
  auto ok_chip = [&](int x, int y) { return !f.chip_dead(t.id(x % W, y % H)); };
  auto link_ok = [&](int x, int y, Port p) {
    const ChipId a = t.id(x % W, y % H);
    const long n = t.neighbour(a, p);
    return n >= 0 && !f.link_dead(a, p) && !f.link_dead((ChipId)n, opposite(p));
  };
  Rect best;
  auto score = [&](const Rect& r) {
    const long a = (long)r.w * r.h;
    const int fw = torus && r.w == W, fh = torus && r.h == H;
    return a * 4 + (x_first ? 2 * fw + fh : 2 * fh + fw);
  };
  for (int y0 = 0; y0 < H; ++y0)
    for (int x0 = 0; x0 < W; ++x0) {
      if (!ok_chip(x0, y0)) continue;
      // Grow heights row by row; for each height the widest run that stays valid.
      int maxw = torus ? W : W - x0;
      for (int h = 1; h <= (torus ? H : H - y0); ++h) {
        const int y = y0 + h - 1;
        int w = 0;
        while (w < maxw) {
          const int x = x0 + w;
          if (!ok_chip(x, y)) break;
          if (w > 0 && !link_ok(x - 1, y, kEast)) break;
          if (h > 1 && !link_ok(x, y - 1, kNorth)) break;
          ++w;
        }
        maxw = w;
        if (maxw == 0) break;
        const Rect r{x0, y0, maxw, h};
        if (score(r) > score(best)) best = r;
      }
    }
  return best;
}

// One ring over the given cycle, whole range: used by ring/biring/altring/snake.
void single_ring(ScheduleBuilder& b, const RingSpec& spec, uint32_t words, uint32_t chunk) {
  std::vector<Job> jobs;
  make_jobs(spec, 0, words, &jobs);
  emit(b, jobs, true, b.phase("reduce-scatter"), chunk);
  emit(b, jobs, false, b.phase("all-gather"), chunk);
}

// The whole construction, into `b` (a storing or a counting builder): build_schedule
// and count_transfers share it, so the count is the schedule's, whatever the algorithm.
void construct(const FaultSet& f, const AlgoParams& p, ScheduleBuilder& b) {
  if (p.words < 1) throw ConfigError("allreduce size: words must be >= 1 (got 0)");
  if (p.chunk_words < 1) throw ConfigError("allreduce chunk: chunk words must be >= 1 (got 0)");
  const std::string cut_off = f.connectivity();
  if (!cut_off.empty()) throw ConfigError("allreduce needs the live chips connected: " + cut_off);
  const Topology2D& t = f.topology();
  const int W = t.width(), H = t.height();
  const uint32_t S = p.words, cw = p.chunk_words;

  if (p.algo == Algo::TwoD && f.live_chips() < t.chips())
    throw ConfigError(std::string("--algo 2d needs every chip alive (dead: ") + f.describe() +
                      "); use --algo ft2d, or the baselines shrink or snake");

  // Single rings: ring, biring, altring, snake.
  if (p.algo == Algo::Ring || p.algo == Algo::BiRing || p.algo == Algo::AltRing ||
      p.algo == Algo::Snake) {
    for (ChipId c = 0; c < (ChipId)t.chips(); ++c) b.set_participant(c, !f.chip_dead(c));
    std::vector<ChipId> order;  // the cycle through the live chips
    if (W == 1 || H == 1) {
      for (ChipId c = 0; c < (ChipId)t.chips(); ++c)
        if (!f.chip_dead(c)) order.push_back(c);
    } else if (p.algo == Algo::AltRing) {
      // The boustrophedon path (row 0 east, row 1 west, ...); alternate-node below.
      for (int y = 0; y < H; ++y)
        for (int i = 0; i < W; ++i) {
          const int x = y % 2 == 0 ? i : W - 1 - i;
          if (!f.chip_dead(t.id(x, y))) order.push_back(t.id(x, y));
        }
    }
    RingSpec s;
    if (W == 1 || H == 1 || p.algo == Algo::AltRing) {
      s.cyc = p.algo == Algo::AltRing ? alt_order(order) : order;
      s.bi = p.algo == Algo::BiRing || (p.algo == Algo::Snake && t.torus());
    } else {
      // A Hamiltonian cycle of the machine (holes skipped): the band ring of ft2d over
      // all lines, i.e. the column zigzag closed by wraparound (torus) or by a full edge
      // line as the return line (mesh). Tried sweeping columns and sweeping rows, and on
      // a torus with the lines starting at 0 or just after the emptiest line (so a hole
      // sits at the ends of the sweep, not in its middle); the fewest hops in all wins.
      RingSpec z;
      long best_hops = -1;
      for (bool xy : {true, false}) {
        const Frame fr(f, xy);
        auto line_full = [&](int v) {
          for (int u = 0; u < fr.U; ++u)
            if (!fr.live(u, v) || (u + 1 < fr.U && !fr.ulink(u, v))) return false;
          return true;
        };
        std::vector<int> starts = {0};
        if (t.torus()) {
          int emptiest = 0, least = fr.U + 1;
          for (int v = 0; v < fr.V; ++v) {
            int live = 0;
            for (int u = 0; u < fr.U; ++u) live += fr.live(u, v);
            if (live < least) least = live, emptiest = v;
          }
          // After the last of a run of emptiest lines.
          for (int k = 1; k < fr.V; ++k) {
            const int next = (emptiest + 1) % fr.V;
            int live = 0;
            for (int u = 0; u < fr.U; ++u) live += fr.live(u, next);
            if (live != least) break;
            emptiest = next;
          }
          starts.push_back((emptiest + 1) % fr.V);
        }
        for (int st : starts) {
          std::vector<int> ls(fr.V);
          for (int i = 0; i < fr.V; ++i) ls[i] = (st + i) % fr.V;
          const int ret = t.torus() ? -1 : line_full(0) ? 0 : line_full(fr.V - 1) ? fr.V - 1 : -1;
          std::vector<ChipId> cyc = band_cycle(fr, ls, ret);
          long hops = 0;
          for (size_t k = 0; k < cyc.size(); ++k) hops += t.distance(cyc[k], cyc[(k + 1) % cyc.size()]);
          if (best_hops < 0 || hops < best_hops) {
            best_hops = hops;
            z.cyc = cyc;
          }
        }
      }
      s.cyc = z.cyc;
      s.bi = p.algo == Algo::BiRing || (p.algo == Algo::Snake && t.torus());
    }
    for (ChipId c : s.cyc) s.cols.push_back({c});
    if (s.cyc.size() >= 2) single_ring(b, s, S, cw);
    return;
  }

  // The 2-D family.
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
  struct Part {
    bool xy;
    uint32_t lo, hi;
  };
  std::vector<Part> parts;
  if (p.order == Order::XY) parts.push_back({true, 0, S});
  if (p.order == Order::YX) parts.push_back({false, 0, S});
  if (p.order == Order::Both) {
    parts.push_back({true, 0, S / 2});
    parts.push_back({false, S / 2, S});
  }
  if (p.slices > kMaxSlices)
    throw ConfigError("allreduce slices: " + std::to_string(p.slices) + ", allowed 0 (auto) or 1.." +
                      std::to_string(kMaxSlices));
  // Auto: one count for the whole family, holes or not (kAutoSlices), so 2d, shrink and
  // ft2d run alike by default (docs/collectives.md, "Slices").
  uint32_t slices = p.slices ? p.slices : kAutoSlices;
  // A slice has at least one word of every part.
  slices = std::max<uint32_t>(1, std::min<uint64_t>(slices, S / parts.size()));
  auto name = [&](const Part& pt, const char* what, bool first) {
    const bool x = pt.xy == first;
    std::string n = std::string(what) + (x ? " x" : " y");
    if (parts.size() > 1) n += pt.xy ? " (xy half)" : " (yx half)";
    return b.phase(n);
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
      const int pf = b.phase("fold leaves");
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
    for (size_t i = 0; i < sp.size(); ++i) ph[i] = name(sp[i], "reduce-scatter", true);
    for (size_t i = 0; i < sp.size(); ++i) emit(b, tl[i].rs1, true, ph[i], cw);
    if (levels > 0) late(true, b.phase("fold leaves"));
    for (size_t i = 0; i < sp.size(); ++i) ph[i] = name(sp[i], "reduce-scatter", false);
    for (size_t i = 0; i < sp.size(); ++i) emit(b, tl[i].rs2, true, ph[i], cw);
    for (size_t i = 0; i < sp.size(); ++i) ph[i] = name(sp[i], "all-gather", false);
    for (size_t i = 0; i < sp.size(); ++i) emit(b, tl[i].rs2, false, ph[i], cw);
    if (levels > 0) late(false, b.phase("unfold leaves"));
    for (size_t i = 0; i < sp.size(); ++i) ph[i] = name(sp[i], "all-gather", true);
    for (size_t i = 0; i < sp.size(); ++i) emit(b, tl[i].rs1, false, ph[i], cw);
    if (levels > 0) {  // and get the result back, nearest first
      const int pu = b.phase("unfold leaves");
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

ScheduleLoad schedule_load(const Schedule& s, const Topology2D& t,
                           const std::vector<RouteTable>& tables) {
  const int chips = t.chips();
  ScheduleLoad L;
  L.link_words.assign((size_t)chips * kNumNetPorts, 0);
  L.chip_hbm_words.assign(chips, 0);
  L.chip_reduce_words.assign(chips, 0);
  for (const Xfer& x : s.xfers) {
    ChipId c = x.src;
    int hops = 0;
    while (c != x.dst) {
      const uint8_t port = tables[c].lookup(x.dst).port;
      const long n = port < kNumNetPorts ? t.neighbour(c, (Port)port) : -1;
      if (n < 0 || ++hops > chips)
        throw ConfigError("schedule_load: the route tables do not lead from chip " +
                          std::to_string(x.src) + " to chip " + std::to_string(x.dst));
      L.link_words[(size_t)c * kNumNetPorts + port] += x.len;
      c = (ChipId)n;
    }
    L.max_hops = std::max(L.max_hops, hops);
    L.chip_hbm_words[x.src] += x.len;
    L.chip_hbm_words[x.dst] += x.reduce ? 2ull * x.len : x.len;
    if (x.reduce) L.chip_reduce_words[x.dst] += x.len;
  }
  for (uint64_t w : L.link_words) L.max_link_words = std::max(L.max_link_words, w);
  return L;
}

double algorithm_bound_words(const ScheduleLoad& l) { return (double)l.max_link_words; }

double topology_bound_words(const FaultSet& f, const std::vector<char>& participant,
                            uint32_t words) {
  const Topology2D& t = f.topology();
  const int W = t.width(), H = t.height(), chips = t.chips();
  int n = 0;
  for (char p : participant) n += p != 0;
  if (n < 2) return 0.0;
  double best = 0.0;
  // (a) Every participant must send S words of information (the others' sums depend on
  // each of its words) and receive S (its sum depends on everyone's), over its live
  // links: S / out-links and S / in-links. (The often quoted 2 S (n-1) / (n links) is
  // what a chip sends when every participant reduces an equal share, as in rings; a
  // leaf that only hands its data over and gets the sum back sends S, and ft2d's
  // leaves do exactly that, so it is not a bound for every algorithm.)
  // (c) One-way gossip: informing n chips of everyone's value needs 2 (n-1) messages
  // per word, each crossing at least one link: 2 (n-1) S over all live link directions.
  int live_links = 0;
  for (int c = 0; c < chips; ++c) {
    int out = 0, in = 0;
    for (int p = 0; p < kNumNetPorts; ++p) {
      out += !f.link_dead((ChipId)c, (Port)p);
      const long nb = t.neighbour((ChipId)c, (Port)p);
      in += nb >= 0 && !f.link_dead((ChipId)nb, opposite((Port)p));
    }
    live_links += out;
    if (!participant[c]) continue;
    if (out > 0) best = std::max(best, (double)words / out);
    if (in > 0) best = std::max(best, (double)words / in);
  }
  if (live_links > 0) best = std::max(best, 2.0 * (n - 1) * words / live_links);
  // (b) Straight cuts: a set of whole columns (rows) against the rest. On a mesh one
  // cut line: columns [0, k) | [k, W). On a torus a cut needs two lines: columns
  // [a, b) (cyclic) | the rest. Each side must receive the full buffer's worth of the
  // other side's contribution, so words / (live links crossing toward it).
  auto cut_bound = [&](bool vertical) {
    const int D = vertical ? W : H, E = vertical ? H : W;
    auto chip_at = [&](int d, int e) { return vertical ? t.id(d, e) : t.id(e, d); };
    const Port plus = vertical ? kEast : kNorth, minus = vertical ? kWest : kSouth;
    // in_side(d) for d in [a, a+len) cyclic.
    const int starts = t.torus() ? D : 1;
    for (int a = 0; a < starts; ++a)
      for (int len = 1; len < D; ++len) {
        std::vector<char> side(D, 0);
        for (int i = 0; i < len; ++i) side[(a + i) % D] = 1;
        int pin = 0, pout = 0;
        for (int d = 0; d < D; ++d)
          for (int e = 0; e < E; ++e)
            if (participant[chip_at(d, e)]) (side[d] ? pin : pout)++;
        if (pin == 0 || pout == 0) continue;
        long to_in = 0, to_out = 0;  // live link directions crossing into / out of side
        for (int d = 0; d < D; ++d)
          for (int e = 0; e < E; ++e)
            for (Port p : {plus, minus}) {
              const ChipId c = chip_at(d, e);
              const long nb = t.neighbour(c, p);
              if (nb < 0 || f.link_dead(c, p)) continue;
              const int dn = vertical ? t.x((ChipId)nb) : t.y((ChipId)nb);
              if (side[d] == side[dn]) continue;
              (side[d] ? to_out : to_in)++;
            }
        for (long links : {to_in, to_out})
          best = std::max(best, links == 0 ? 1e300 : (double)words / links);
      }
  };
  cut_bound(true);
  cut_bound(false);
  return best;
}

}  // namespace fm::coll
