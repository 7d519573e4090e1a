// ft2d's band design, the fallback where the fold (ft2d_fold.cpp) does not apply: each
// run of lines a hole cuts is joined with a full line next to it into a band, threaded
// by one ring through all its live chips, which then takes part in the two-level scheme
// (two_d.cpp) like a line. band_cycle, the band's ring, also gives snake its
// Hamiltonian cycle (rings.cpp).
#include <algorithm>
#include <cstdlib>

#include "models/collective/algorithms_impl.h"

namespace fm::coll::detail {

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

namespace {

// Which band each line of the frame belongs to: band[v] is the band id of line v, -1
// for a full line on its own.
struct Bands {
  const Frame& fr;
  const std::vector<char>& full;
  std::vector<int> band;
  int nb = 0;

  Bands(const Frame& f, const std::vector<char>& fl) : fr(f), full(fl), band(f.V, -1) {
    for (int v = 0; v < fr.V; ++v)
      if (!full[v] && band[v] < 0) start_from_run(v);
    for (bool changed = true; changed;) {
      changed = false;
      for (int id = 0; id < nb; ++id) {
        if (members(id).empty()) continue;
        if ((!has_full(id) || !covers(id)) && grow(id)) changed = true;
      }
    }
  }

  // The run of cut lines through v, in order, made one band, or two: with two full
  // neighbours and more than one cut line, the lower half of the run pairs with the
  // line below, the upper half with the line above, so that no band is deeper than it
  // must be. Otherwise one band; growing adds a full line.
  void start_from_run(int v) {
    int a = v;
    for (int w = fr.vnext(a, -1); w >= 0 && w != v && !full[w]; w = fr.vnext(a, -1)) a = w;
    std::vector<int> run;
    for (int w = a; w >= 0 && !full[w] && band[w] == -1; w = fr.vnext(w, 1)) {
      band[w] = -2;
      run.push_back(w);
    }
    const int below = fr.vnext(run.front(), -1), above = fr.vnext(run.back(), 1);
    const bool split = run.size() >= 2 && below >= 0 && above >= 0 && below != above && full[below] &&
                       full[above] && band[below] < 0 && band[above] < 0;
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
  std::vector<int> members(int id) const {
    std::vector<int> ls;
    for (int v = 0; v < fr.V; ++v)
      if (band[v] == id) ls.push_back(v);
    return ls;
  }
  bool has_full(int id) const {
    for (int v = 0; v < fr.V; ++v)
      if (band[v] == id && full[v]) return true;
    return false;
  }
  // Every column has a live chip in the band.
  bool covers(int id) const {
    for (int u = 0; u < fr.U; ++u) {
      bool any = false;
      for (int v = 0; v < fr.V && !any; ++v) any = band[v] == id && fr.live(u, v);
      if (!any) return false;
    }
    return true;
  }
  // Grow a band by one adjacent line (below first): a free full line is taken, a line
  // of another band merges the two. False when the band already holds every line.
  bool grow(int id) {
    const auto ls = members(id);
    if ((int)ls.size() == fr.V) return false;
    for (int d : {-1, 1}) {
      for (int v : ls) {
        const int w = fr.vnext(v, d);
        if (w < 0 || band[w] == id) continue;
        if (band[w] < 0) {
          band[w] = id;
        } else {
          const int from = band[w];
          for (int& x : band)
            if (x == from) x = id;
        }
        return true;
      }
    }
    return false;
  }
  // Band id's lines in band order: contiguous, starting after a line not in the band.
  std::vector<int> ordered(int id) const {
    std::vector<int> ls = members(id);
    if (!ls.empty() && (int)ls.size() < fr.V) {
      size_t s = 0;
      while (true) {
        const int before = fr.vnext(ls[s], -1);
        if (before < 0 || band[before] != id) break;
        s = (s + 1) % ls.size();
      }
      std::rotate(ls.begin(), ls.begin() + s, ls.end());
    }
    return ls;
  }
};

// The ring spec of one band, its lines `ls` in band order.
RingSpec band_spec(const Frame& fr, const std::vector<char>& full, const std::vector<int>& ls) {
  const bool torus = fr.t.torus();
  int owner = -1;  // the owner (and, on a mesh, return) line
  for (int v : ls)
    if (full[v]) {
      owner = v;
      break;
    }
  RingSpec s;
  s.cols.resize(fr.U);
  for (int u = 0; u < fr.U; ++u) {
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
  s.cols.erase(std::remove_if(s.cols.begin(), s.cols.end(), [](const std::vector<ChipId>& c) { return c.empty(); }),
               s.cols.end());
  s.cyc = band_cycle(fr, ls, torus ? -1 : owner);
  s.bi = torus;
  if (torus) s.lead_num = 5, s.lead_den = 6;
  return s;
}

// On a mesh the column groups of phase 2 cross the bands (a column is one line), and
// where a band ring also runs along that column (its turns at the ends, its detours
// around the hole) the two would share those vertical links; so would the detour of a
// column cut by the hole. Such "hot" columns get no shard of their own (weight 0, their
// share spread over the others): a band ring edge between two chips that own nothing
// already carries the full 2x buffer, so the busiest link stays at that and no column
// traffic is added on top. (On a torus the column groups avoid the bands' lines, which
// are a contiguous arc of every column, and nothing is needed.)
void weight_hot_columns(const Frame& fr, std::vector<RingSpec>& specs) {
  const int U = fr.U, V = fr.V;
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

}  // namespace

// ft2d's fallback (fold_plan is the main design): its first-phase specs. A line is
// "full" when all its chips and links along u are live; it keeps its own ring. Each
// run of cut lines is joined with an adjacent full line into a band (extended further
// while some column has no live chip in it), and the band gets one ring threading all
// its live chips:
//   torus: a column-by-column zigzag around the band (each column swept up or down,
//          whichever starts nearer), both ways;
//   mesh:  the zigzag over the band's other lines eastward, then back westward along
//          the full line (the "return line"), one way: like the alternate-node ring,
//          each link direction carries at most one ring edge.
// Ownership keeps phase-2 groups on straight columns: column u's shard is owned in a
// band by the full line's chip in column u (on a torus 5/6 of it, the cut lines' chips
// sharing the other 1/6, which lowers the band edges' load; see band_spec and
// docs/collectives.md); on a mesh the cut lines' chips forward and add but own nothing.
std::vector<RingSpec> ft2d_specs(const Frame& fr) {
  const std::vector<char> full = full_lines(fr);
  const Bands bands(fr, full);
  std::vector<RingSpec> specs;
  for (int v = 0; v < fr.V; ++v)
    if (bands.band[v] < 0) specs.push_back(full_line_spec(fr, v, 0, fr.U - 1));
  for (int id = 0; id < bands.nb; ++id) {
    const std::vector<int> ls = bands.ordered(id);
    if (!ls.empty()) specs.push_back(band_spec(fr, full, ls));
  }
  if (!fr.t.torus() && bands.nb > 0) weight_hot_columns(fr, specs);
  return specs;
}

}  // namespace fm::coll::detail
