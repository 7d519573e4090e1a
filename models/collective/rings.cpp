// The ring job, the piece every allreduce here is built from: a cycle of chips (or a
// chain, a path) that reduce-scatters a buffer range so that each word ends summed at
// its owner, and all-gathers it back. Transfers are added step by step, and within a
// step chunk by chunk, so the derived dependencies pipeline the ring: chunk m of step
// k+1 can go as soon as chunk m of step k has arrived. Also the single-ring algorithms
// (ring, biring, altring, snake), which run one such job over all live chips.
#include <algorithm>
#include <map>
#include <stdexcept>

#include "models/collective/algorithms_impl.h"

namespace fm::coll::detail {

// The ownership intervals of `spec` over [lo, hi) as (chip, a, b), column by column.
OwnList ownership(const RingSpec& spec, uint32_t lo, uint32_t hi) {
  OwnList out;
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

uint32_t own_mid(const RingSpec& spec, uint32_t lo, uint32_t hi) {
  const bool halves = (spec.chain ? spec.ring_own : spec.bi) && spec.cyc.size() >= 3 && hi - lo >= 2;
  return halves ? lo + (hi - lo) / 2 : hi;
}

// Splits a spec into its jobs over [lo, hi): one, or two opposite halves when bi.
void make_jobs(const RingSpec& spec, uint32_t lo, uint32_t hi, std::vector<Job>* jobs) {
  if (spec.cyc.size() < 2 || hi <= lo) return;
  const uint32_t mid = own_mid(spec, lo, hi);
  const bool bi = !spec.chain && mid < hi;
  for (int dir = 0; dir < (bi ? 2 : 1); ++dir) {
    Job j;
    j.chain = spec.chain;
    j.cyc = spec.cyc;
    if (dir == 1) std::reverse(j.cyc.begin(), j.cyc.end());
    std::map<ChipId, int> pos;
    for (size_t i = 0; i < j.cyc.size(); ++i) pos[j.cyc[i]] = (int)i;
    // A two-way ring's direction owns one half; a chain all of [lo, hi), in two
    // halves for ring_own.
    std::vector<std::pair<uint32_t, uint32_t>> parts;
    if (bi) parts.push_back(dir == 0 ? std::make_pair(lo, mid) : std::make_pair(mid, hi));
    else if (mid < hi) parts = {{lo, mid}, {mid, hi}};
    else parts.push_back({lo, hi});
    for (const auto& r : parts)
      for (const auto& o : ownership(spec, r.first, r.second))
        j.own.push_back({pos.at(o.first), o.second.first, o.second.second});
    // A chain whose path does not start at its first column (full_line_spec) lists its
    // shards in column order, not by position, so emit_chain_step's "farthest first"
    // does not hold for it: sorted by position, a 16x16 torus with one dead link at
    // 2 MiB ran 0.5 % faster with order both and 2 % slower with order xy.
    jobs->push_back(std::move(j));
  }
}

namespace {

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

}  // namespace

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

namespace {

// One ring over the given cycle, whole range: used by ring/biring/altring/snake.
void single_ring(ScheduleBuilder& b, const RingSpec& spec, uint32_t words, uint32_t chunk) {
  std::vector<Job> jobs;
  make_jobs(spec, 0, words, &jobs);
  emit(b, jobs, true, b.phase({Step::ReduceScatter}), chunk);
  emit(b, jobs, false, b.phase({Step::AllGather}), chunk);
}

}  // namespace

// ring, biring, altring, snake: one ring job through every live chip.
void construct_single_ring(const FaultSet& f, const AlgoParams& p, ScheduleBuilder& b) {
  const Topology2D& t = f.topology();
  const int W = t.width(), H = t.height();
  const uint32_t S = p.words, cw = p.chunk_words;
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
}

}  // namespace fm::coll::detail
