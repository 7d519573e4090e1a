// How much a schedule loads the machine, and the bounds its time is measured against:
// the words every link direction carries and every chip's HBM and reduction unit
// handle when the schedule runs over given route tables; the busiest link direction as
// the algorithm's bandwidth-regime ideal; and the topology's lower bound for any
// allreduce among the participants (algorithms.h has the formulas).
#include <algorithm>
#include <string>

#include "models/collective/algorithms.h"
#include "models/routing/walk.h"

namespace fm::coll {

ScheduleLoad schedule_load(const Schedule& s, const Topology2D& t,
                           const std::vector<RouteTable>& tables) {
  const int chips = t.chips();
  ScheduleLoad L;
  L.link_words.assign((size_t)chips * kNumNetPorts, 0);
  L.chip_hbm_words.assign(chips, 0);
  L.chip_reduce_words.assign(chips, 0);
  for (const Xfer& x : s.xfers) {
    int hops = 0;
    const Walk w = for_each_hop(
        t, x.src, x.dst, [&](ChipId c) { return tables[c].lookup(x.dst).port; },
        [&](ChipId c, Port port) {
          L.link_words[(size_t)c * kNumNetPorts + port] += x.len;
          ++hops;
          return true;
        });
    if (w != Walk::Arrived)
      throw ConfigError("schedule_load: the route tables do not lead from chip " + std::to_string(x.src) +
                        " to chip " + std::to_string(x.dst));
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
