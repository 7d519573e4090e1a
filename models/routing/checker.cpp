#include "models/routing/checker.h"

#include <algorithm>
#include <queue>
#include <sstream>

namespace fm {

namespace {

std::string at(const Topology2D& t, ChipId c) {
  return "(" + std::to_string(t.x(c)) + "," + std::to_string(t.y(c)) + ")";
}

// Channel dependency graph at link level with per-VC adjacency: for link l (chip*4 +
// port), a few successor links, each with adj[v] = mask of successor VCs reachable from
// VC v of l.
struct Cdg {
  struct Succ {
    int link;
    uint16_t adj[kMaxVcs];
  };
  std::vector<std::vector<Succ>> succ;
  explicit Cdg(int links) : succ(links) {}
  void add(int l, uint16_t m, int l2, uint16_t m2) {
    auto& v = succ[l];
    Succ* s = nullptr;
    for (auto& e : v) if (e.link == l2) { s = &e; break; }
    if (!s) {
      v.push_back({l2, {}});
      s = &v.back();
    }
    for (int k = 0; k < kMaxVcs; ++k) if (m >> k & 1) s->adj[k] |= m2;
  }
};

// Finds a cycle in the VC-level graph; returns it as channel ids (link * 16 + vc), or {}.
std::vector<int> find_cycle(const Cdg& g, int vcs) {
  const int n = (int)g.succ.size() * kMaxVcs;
  std::vector<uint8_t> color(n, 0);  // 0 new, 1 on stack, 2 done
  struct Frame {
    int node;
    size_t si;  // successor link index
    int vi;     // next VC bit to try within that successor
  };
  std::vector<Frame> stack;
  for (int l = 0; l < (int)g.succ.size(); ++l) {
    if (g.succ[l].empty()) continue;
    for (int v = 0; v < vcs; ++v) {
      const int root = l * kMaxVcs + v;
      if (color[root]) continue;
      stack.push_back({root, 0, 0});
      color[root] = 1;
      while (!stack.empty()) {
        Frame& f = stack.back();
        const int fl = f.node / kMaxVcs, fv = f.node % kMaxVcs;
        const auto& ss = g.succ[fl];
        int next = -1;
        while (f.si < ss.size() && next < 0) {
          const uint16_t m = ss[f.si].adj[fv];
          while (f.vi < kMaxVcs && !(m >> f.vi & 1)) ++f.vi;
          if (f.vi >= kMaxVcs) { ++f.si; f.vi = 0; continue; }
          next = ss[f.si].link * kMaxVcs + f.vi;
          ++f.vi;
        }
        if (next < 0) {
          color[f.node] = 2;
          stack.pop_back();
          continue;
        }
        if (color[next] == 1) {  // back edge: the cycle is the stack from `next` up
          std::vector<int> cyc;
          size_t k = 0;
          while (stack[k].node != next) ++k;
          for (; k < stack.size(); ++k) cyc.push_back(stack[k].node);
          return cyc;
        }
        if (color[next] == 0) {
          color[next] = 1;
          stack.push_back({next, 0, 0});
        }
      }
    }
  }
  return {};
}

}  // namespace

RouteCheck check_routes(const FaultSet& f, const std::vector<RouteTable>& tables, int vcs,
                        int top_links) {
  RouteCheck r;
  const Topology2D& t = f.topology();
  const int n = t.chips();
  std::vector<int> live;
  for (int c = 0; c < n; ++c) if (!f.chip_dead(c)) live.push_back(c);
  std::vector<uint32_t> live_ports(n, 0);  // per chip: bit p set when its link p is live
  for (int c = 0; c < n; ++c)
    for (int p = 0; p < kNumNetPorts; ++p)
      if (!f.link_dead(c, (Port)p)) live_ports[c] |= 1u << p;
  std::vector<double> load((size_t)n * kNumNetPorts, 0.0);
  uint16_t used = 0;
  Cdg cdg(n * kNumNetPorts);
  double sum_len = 0, sum_min = 0, sum_stretch = 0, sum_ff = 0;
  std::vector<int> len(n), mind(n), order;
  std::vector<long> count(n);
  r.connected = true;
  for (int d : live) {
    mind = f.distances_to(d);  // minimal over live links
    // Table path lengths from every live chip, with loop and dead-link detection.
    std::fill(len.begin(), len.end(), -1);
    len[d] = 0;
    for (int s : live) {
      std::vector<int> chain;
      int c = s;
      std::string bad;
      while (len[c] < 0) {
        if (len[c] == -2) { bad = "a routing loop through " + at(t, c); break; }
        const RouteEntry& e = tables[c].lookup(d);
        if (e.port == kNoRoute || e.port >= kNumNetPorts) {
          bad = "at " + at(t, c) + " the table has no route (port " + std::to_string(e.port) + ")";
          break;
        }
        // The routers' entry predicate, with the live ICI links of c as its ports.
        const RouteEntryFault fault = route_entry_fault(e, vcs, live_ports[c]);
        if (fault == RouteEntryFault::kPort) {
          bad = "at " + at(t, c) + " the table sends it " + port_name((Port)e.port) +
                " over a dead link";
          break;
        }
        if (fault == RouteEntryFault::kMask) {
          bad = "at " + at(t, c) + " the VC mask is empty or names VCs the router lacks";
          break;
        }
        len[c] = -2;
        chain.push_back(c);
        c = (int)t.neighbour(c, (Port)e.port);
      }
      if (!bad.empty()) {
        r.connected = false;
        r.problem = "route from " + at(t, s) + " to " + at(t, d) + " fails: " + bad;
        return r;
      }
      for (int i = (int)chain.size() - 1; i >= 0; --i) len[chain[i]] = len[c] + (int)chain.size() - i;
    }
    // Statistics, loads (sources counted down the destination's tree) and the CDG.
    order.assign(live.begin(), live.end());
    std::sort(order.begin(), order.end(), [&](int a, int b) { return len[a] > len[b]; });
    for (int c : live) count[c] = 1;
    for (int s : order) {
      if (s == d) continue;
      ++r.live_pairs;
      sum_len += len[s];
      sum_min += mind[s];
      sum_ff += t.distance(s, d);
      sum_stretch += (double)len[s] / mind[s];
      r.max_path_length = std::max(r.max_path_length, len[s]);
      r.max_min_length = std::max(r.max_min_length, mind[s]);
      const RouteEntry& e = tables[s].lookup(d);
      used |= e.vc_mask;
      const int nx = (int)t.neighbour(s, (Port)e.port);
      load[s * kNumNetPorts + e.port] += count[s];
      count[nx] += count[s];
      if (nx != d) {
        const RouteEntry& e2 = tables[nx].lookup(d);
        cdg.add(s * kNumNetPorts + e.port, e.vc_mask, nx * kNumNetPorts + e2.port, e2.vc_mask);
      }
    }
  }
  if (r.live_pairs) {
    r.avg_path_length = sum_len / r.live_pairs;
    r.avg_min_length = sum_min / r.live_pairs;
    r.avg_faultfree_length = sum_ff / r.live_pairs;
    r.avg_path_stretch = sum_stretch / r.live_pairs;
  }
  r.vcs_used = __builtin_popcount(used);
  const double per_pair = live.size() > 1 ? 1.0 / (live.size() - 1) : 0;
  std::vector<LinkLoad> all;
  for (int c = 0; c < n; ++c)
    for (int p = 0; p < kNumNetPorts; ++p)
      if (load[c * kNumNetPorts + p] > 0)
        all.push_back({t.x(c), t.y(c), (Port)p, load[c * kNumNetPorts + p] * per_pair});
  std::stable_sort(all.begin(), all.end(), [](const LinkLoad& a, const LinkLoad& b) { return a.load > b.load; });
  if (!all.empty()) r.max_link_load = all[0].load;
  all.resize(std::min<size_t>(all.size(), (size_t)top_links));
  r.top_links = all;

  const std::vector<int> cyc = find_cycle(cdg, vcs);
  r.deadlock_free = cyc.empty();
  if (!cyc.empty()) {
    std::ostringstream m;
    m << "channel dependency cycle (router, port, VC):";
    for (int ch : cyc) {
      const int l = ch / kMaxVcs, v = ch % kMaxVcs;
      m << " " << at(t, l / kNumNetPorts) << " " << port_name((Port)(l % kNumNetPorts)) << " vc" << v << " ->";
    }
    const int l0 = cyc[0] / kMaxVcs;
    m << " " << at(t, l0 / kNumNetPorts) << " " << port_name((Port)(l0 % kNumNetPorts)) << " vc" << cyc[0] % kMaxVcs;
    r.problem = m.str();
  }
  return r;
}

}  // namespace fm
