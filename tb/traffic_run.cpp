#include "tb/traffic_run.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <cstdio>
#include <functional>
#include <memory>

#include "models/route_table.h"
#include "tb/config_schema.h"
#include "tb/driver.h"
#include "tb/result_keys.h"
#include "tb/traffic_pattern.h"
#include "tb/view_data.h"

namespace fm {

long peak_rss_kb() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

std::string host_cpu() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) {
      const auto c = line.find(':');
      if (c != std::string::npos) {
        const std::string v = line.substr(c + 1);
        const auto a = v.find_first_not_of(" \t");
        if (a != std::string::npos) return v.substr(a);
      }
    }
  return "unknown";
}

uint32_t percentile(const std::vector<uint32_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t rank = (size_t)std::ceil(p / 100.0 * (double)sorted.size());
  if (rank < 1) rank = 1;
  return sorted[std::min(rank, sorted.size()) - 1];
}

namespace {

using Clk = std::chrono::steady_clock;
double since(Clk::time_point t) { return std::chrono::duration<double>(Clk::now() - t).count(); }

// The traffic run's progress line: injection phase, then draining.
std::function<void(const NetCounters&, Cycle, double)> traffic_progress(const Config& cfg) {
  return [&cfg](const NetCounters& c, Cycle done, double el) {
    const Cycle goal = cfg.run.warmup + cfg.run.cycles;
    if (done < goal) {
      const double frac = (double)done / goal;
      std::fprintf(stderr, "\rcycle %llu  %5.1f%%  flits delivered %llu  ETA %.0fs   ",
                   (unsigned long long)done, 100 * frac, (unsigned long long)c.flits_ejected,
                   el / frac * (1 - frac));
    } else {
      std::fprintf(stderr, "\rcycle %llu  draining: %llu flit(s) in flight   ",
                   (unsigned long long)done,
                   (unsigned long long)(c.flits_injected - c.flits_ejected));
    }
  };
}

// "chip 2,3; board 0,1; link 1,1:E" (the configured faults, for the waveform's marker).
std::string fault_list(const FaultConfig& f) {
  std::string s;
  auto add = [&](const std::string& item) { s += (s.empty() ? "" : "; ") + item; };
  for (const Coord& c : f.chips) add("chip " + std::to_string(c.x) + "," + std::to_string(c.y));
  for (const Coord& b : f.boards) add("board " + std::to_string(b.x) + "," + std::to_string(b.y));
  for (const LinkFault& l : f.links) add("link " + to_string(l));
  return s;
}

struct Snapshot {
  std::vector<uint64_t> link_sent;  // per ICI link slot
  std::vector<uint64_t> occ;        // per router, ICI port, VC
};

Snapshot snapshot(Network& net, Cycle now) {
  Snapshot s;
  const int V = net.config().vcs;
  for (int c = 0; c < net.chips(); ++c) {
    for (int p = 0; p < kNumNetPorts; ++p) {
      Link* l = net.link(c, (Port)p);
      s.link_sent.push_back(l ? l->flits_sent() : 0);
      for (int v = 0; v < V; ++v) s.occ.push_back(net.router_unit(c).occupancy_integral((Port)p, v, now));
    }
  }
  return s;
}

}  // namespace

RouteSet checked_routes(const Config& cfg, const FaultSet& faults, const RunOptions& opt, RouteCheck* check) {
  RouteSet rs = opt.tables ? RouteSet{*opt.tables, "given"} : build_routes(cfg.net, faults);
  if (opt.check_routes) {
    *check = check_routes(faults, rs.tables, cfg.net.vcs);
    if (!check->ok())
      throw std::runtime_error("route set '" + rs.scheme + "' failed the checker: " + check->problem);
  }
  return rs;
}

std::unique_ptr<Network> build_network(const Config& cfg, const FaultSet& faults, const RouteSet& routes,
                                       const RunOptions& opt) {
  if (opt.router_factory && opt.wave && opt.wave->enabled())
    throw ConfigError("waveforms need the SystemC model routers");
  auto net = std::make_unique<Network>("net", cfg.net, opt.router_factory);
  const std::string terr = net->load_tables(routes.tables);
  if (!terr.empty()) throw std::runtime_error(terr);
  net->apply_faults(faults);
  if (opt.eject_log)
    for (int c = 0; c < net->chips(); ++c) net->ni(c).set_eject_log(opt.eject_log);
  net->clock().set_threads(opt.eject_log ? 1 : Clock::threads_for(cfg.run.threads));
  net->set_kernel_options(cfg.run.kernel);
  return net;
}

namespace {

// The machine a traffic run simulates: the network, its tracer, the pattern and one
// source per NI (destroyed in the reverse order).
struct TrafficMachine {
  std::unique_ptr<FaultSet> faults;
  std::unique_ptr<Network> net;
  std::unique_ptr<Tracer> tracer;
  std::unique_ptr<TrafficPattern> pattern;
  std::vector<std::unique_ptr<TrafficSource>> sources;
};

// What the run leaves for the measurement: counters at the window's edges.
struct Windows {
  Snapshot s0, s1;
};

// Build: faults, routes and their proof, the network, the tracer and the sources, each
// NI set to inject within the measurement window's bounds.
std::unique_ptr<TrafficMachine> build_traffic(const Config& cfg, const RunOptions& opt, TrafficResult& r) {
  // Faults, routes and their proof come before anything is simulated.
  auto m = std::make_unique<TrafficMachine>();
  m->faults = std::make_unique<FaultSet>(cfg.net);
  const FaultSet& faults = *m->faults;
  RouteSet rs = checked_routes(cfg, faults, opt, &r.route_check);
  m->net = build_network(cfg, faults, rs, opt);
  Network* net = m->net.get();
  if (opt.wave) m->tracer = Tracer::attach(*net, *opt.wave);
  if (m->tracer && !faults.empty())
    m->tracer->fault_event(0, "faults applied before the run: " + fault_list(cfg.net.faults));
  rs.tables.clear();
  r.routes_info = rs;
  const int n = net->chips();
  m->pattern = std::make_unique<TrafficPattern>(cfg.net, cfg.traffic, faults);
  const Cycle w0 = cfg.run.warmup, w1 = cfg.run.warmup + cfg.run.cycles;
  for (int c = 0; c < n; ++c) {
    m->sources.push_back(std::make_unique<TrafficSource>(*m->pattern, cfg.traffic, c, cfg.run.seed));
    NetworkInterface& ni = net->ni(c);
    ni.set_window(w0, w1);
    ni.set_source(m->sources.back().get());
    ni.set_injection(true);
  }
  return m;
}

// Run: warm-up, measurement window and drain, sampling the link windows; the cycles
// simulated. Stops early when a guard fires (r.stop_reason says which).
Cycle simulate_traffic(const Config& cfg, const RunOptions& opt, TrafficMachine& m, LinkWindows& link_windows,
                       Windows* w, TrafficResult& r) {
  Network* net = m.net.get();
  const int n = net->chips();
  const Cycle w0 = cfg.run.warmup, w1 = cfg.run.warmup + cfg.run.cycles;
  Driver drv(*net, cfg.run.watchdog, opt.progress ? traffic_progress(cfg) : nullptr,
             &r.stop_reason, &r.message);
  // Link flits per window for the run's HTML page (tb/view_data.h): windows of
  // util_window cycles within warm-up, measurement and drain. Running to each window's
  // end in turn takes the same chunks as one run_until (chunks of at most 1024 cycles),
  // so the guards fire at the same cycles as without windows.
  const Cycle window = cfg.run.util_window;
  auto run_windows = [&](Cycle target) {
    while (drv.done() < target) {
      const bool more = drv.run_until(std::min(target, drv.done() + std::min<Cycle>(window, 1024)));
      if (drv.done() % window == 0 || drv.done() == target || !more) link_windows.sample(*net, drv.done());
      if (!more) return false;
    }
    return true;
  };
  bool ok = run_windows(w0);
  w->s0 = snapshot(*net, w0);
  ok = ok && run_windows(w1);
  w->s1 = snapshot(*net, w1);
  if (ok) {
    // Drain: no new packets; run until every created packet is delivered.
    for (int c = 0; c < n; ++c) net->ni(c).set_injection(false);
    const Cycle limit = w1 + cfg.run.max_drain;
    while (true) {
      const NetCounters c = net->counters();
      if (!c.queued_packets && !c.buffered_flits && c.flits_injected == c.flits_ejected) {
        r.stop_reason = "drained";
        break;
      }
      if (drv.done() >= limit) {
        r.stop_reason = "max-drain";
        r.message = "drain did not finish within --max-drain " +
                    std::to_string(cfg.run.max_drain) + " cycles; " +
                    std::to_string(c.flits_injected - c.flits_ejected) +
                    " flit(s) still in the network";
        break;
      }
      if (!drv.run_until(std::min(limit, drv.done() + 64), 64)) break;
      if ((drv.done() - w1) % window == 0) link_windows.sample(*net, drv.done());
    }
  }
  link_windows.sample(*net, drv.done());  // the last (partial) window
  return drv.done();
}

// Measure: latency and throughput from the NIs, link utilisation and VC occupancy over
// the measurement window, simulation speed.
void measure_traffic(const Config& cfg, TrafficMachine& m, const Windows& w, Cycle done, double sim_seconds,
                     TrafficResult& r) {
  Network* net = m.net.get();
  const int n = net->chips();
  const Cycle w0 = cfg.run.warmup, w1 = cfg.run.warmup + cfg.run.cycles;

  r.ok = r.stop_reason == "drained";
  r.warmup_cycles = w0;
  r.measure_cycles = cfg.run.cycles;
  r.total_cycles = done;
  r.drain_cycles = r.total_cycles > w1 ? r.total_cycles - w1 : 0;
  r.totals = net->counters();

  // Latency and throughput from the NIs, merged in chip order.
  std::vector<uint32_t> lat, netlat;
  uint64_t lat_sum = 0, net_sum = 0, win_created = 0, win_ejected = 0;
  uint64_t node_min = ~0ULL, node_max = 0;
  for (int c = 0; c < n; ++c) {
    const NiStats& st = net->ni(c).stats();
    node_min = std::min(node_min, st.window_flits_ejected);
    node_max = std::max(node_max, st.window_flits_ejected);
    r.packets_created += st.packets_created;
    r.packets_delivered += st.packets_delivered;
    r.measured_packets += st.measured_packets;
    lat_sum += st.latency_sum;
    net_sum += st.network_latency_sum;
    win_created += st.window_flits_created;
    win_ejected += st.window_flits_ejected;
    lat.insert(lat.end(), st.latencies.begin(), st.latencies.end());
    netlat.insert(netlat.end(), st.network_latencies.begin(), st.network_latencies.end());
  }
  std::sort(lat.begin(), lat.end());
  std::sort(netlat.begin(), netlat.end());
  const double node_cycles = (double)n * cfg.run.cycles;
  r.offered_flit_rate = win_created / node_cycles;
  r.accepted_flit_rate = win_ejected / node_cycles;
  r.accepted_flit_rate_min = (double)node_min / cfg.run.cycles;
  r.accepted_flit_rate_max = (double)node_max / cfg.run.cycles;
  if (!lat.empty()) {
    r.avg_packet_latency = (double)lat_sum / lat.size();
    r.avg_network_latency = (double)net_sum / netlat.size();
    r.p50_packet_latency = percentile(lat, 50);
    r.p99_packet_latency = percentile(lat, 99);
    r.max_packet_latency = lat.back();
    r.p50_network_latency = percentile(netlat, 50);
    r.p99_network_latency = percentile(netlat, 99);
    r.max_network_latency = netlat.back();
  }
  if (r.totals.flits_ejected)
    r.avg_hops = (double)r.totals.flits_switched / r.totals.flits_ejected - 1.0;

  // Link utilisation and VC occupancy over the measurement window.
  const Topology2D& topo = net->topology();
  const int V = cfg.net.vcs;
  double util_sum = 0;
  int nlinks = 0;
  std::vector<double> occ_sum(V, 0.0), occ_max(V, 0.0);
  std::vector<int> occ_n(V, 0);
  for (int c = 0; c < n; ++c) {
    for (int p = 0; p < kNumNetPorts; ++p) {
      const size_t li = (size_t)c * kNumNetPorts + p;
      if (net->link(c, (Port)p)) {
        const double u = (double)(w.s1.link_sent[li] - w.s0.link_sent[li]) / cfg.run.cycles;
        r.links.push_back({topo.x(c), topo.y(c), (Port)p, u});
        util_sum += u;
        ++nlinks;
        r.link_util_max = std::max(r.link_util_max, u);
      }
      // Occupancy of the input VCs of port p (only ports with a link feeding them).
      const long nb = topo.neighbour(c, (Port)p);
      if (nb < 0) continue;
      for (int v = 0; v < V; ++v) {
        const size_t oi = li * V + v;
        const double occ = (double)(w.s1.occ[oi] - w.s0.occ[oi]) / cfg.run.cycles;
        occ_sum[v] += occ;
        ++occ_n[v];
        occ_max[v] = std::max(occ_max[v], occ);
      }
    }
  }
  r.link_util_mean = nlinks ? util_sum / nlinks : 0;
  for (int v = 0; v < V; ++v) {
    r.vc_occupancy_mean.push_back(occ_n[v] ? occ_sum[v] / occ_n[v] : 0);
    r.vc_occupancy_max.push_back(occ_max[v]);
  }
  const double router_cycles = (double)n * r.total_cycles;
  r.router_cycles_per_second = sim_seconds > 0 ? router_cycles / sim_seconds : 0;
  r.flit_hops_per_second = sim_seconds > 0 ? r.totals.flits_switched / sim_seconds : 0;
  r.router_activity = router_cycles > 0 ? r.totals.router_cycles_evaluated / router_cycles : 0;
  r.peak_rss_kb = peak_rss_kb();
  r.threads = net->clock().threads();
  r.parallel_cycles = net->clock().parallel_cycles();
  r.rebalances = net->clock().rebalances();
}

}  // namespace

TrafficResult run_traffic(const Config& cfg, const RunOptions& opt) {
  TrafficResult r;
  r.config = cfg;
  const auto t0 = Clk::now();
  std::unique_ptr<TrafficMachine> m = build_traffic(cfg, opt, r);
  r.setup_seconds = since(t0);
  const auto t1 = Clk::now();
  LinkWindows link_windows(*m->net);
  Windows w;
  const Cycle done = simulate_traffic(cfg, opt, *m, link_windows, &w, r);
  if (m->tracer) r.wave_note = m->tracer->finish();
  r.wall_seconds = since(t0);
  r.view[result_key::kLinkWindows] = link_windows.json(m->net->topology());
  add_dead_elements(cfg.net, {}, {}, &r.view);
  const double sim_seconds = since(t1);
  measure_traffic(cfg, *m, w, done, sim_seconds, r);
  return r;
}

nlohmann::ordered_json routes_json(const RouteSet& rs, const RouteCheck& c) {
  nlohmann::ordered_json j;
  j["scheme"] = rs.scheme;
  j["connected"] = c.connected;
  j["deadlock_free"] = c.deadlock_free;
  if (!c.problem.empty()) j["problem"] = c.problem;
  j["vcs_used"] = c.vcs_used;
  j["vc_groups"] = rs.groups;
  j["fallback_destinations"] = rs.fallback_dests;
  j["live_pairs"] = c.live_pairs;
  j["avg_path_length"] = c.avg_path_length;
  j["avg_min_path_length"] = c.avg_min_length;
  j["avg_faultfree_path_length"] = c.avg_faultfree_length;
  j["avg_path_stretch"] = c.avg_path_stretch;
  j["max_path_length"] = c.max_path_length;
  j["max_min_path_length"] = c.max_min_length;
  j["max_link_load_uniform"] = c.max_link_load;
  nlohmann::ordered_json top = nlohmann::ordered_json::array();
  for (const LinkLoad& l : c.top_links)
    top.push_back({{"x", l.x}, {"y", l.y}, {"port", port_name(l.port)}, {"load", l.load}});
  j["most_loaded_links_uniform"] = top;
  return j;
}

nlohmann::ordered_json result_json(const TrafficResult& r) {
  namespace rk = result_key;
  nlohmann::ordered_json j = result_header(ResultKind::Traffic);
  j[rk::kOk] = r.ok;
  j[rk::kStopReason] = r.stop_reason;
  if (!r.message.empty()) j[rk::kMessage] = r.message;
  j[rk::kCycles] = r.total_cycles;
  j[rk::kWarmupCycles] = r.warmup_cycles;
  j[rk::kMeasureCycles] = r.measure_cycles;
  j[rk::kDrainCycles] = r.drain_cycles;
  j[rk::kOfferedFlitRate] = r.offered_flit_rate;
  j[rk::kAcceptedFlitRate] = r.accepted_flit_rate;
  j["accepted_flit_rate_min"] = r.accepted_flit_rate_min;
  j["accepted_flit_rate_max"] = r.accepted_flit_rate_max;
  j[rk::kAvgPacketLatency] = r.avg_packet_latency;
  j["p50_packet_latency"] = r.p50_packet_latency;
  j[rk::kP99PacketLatency] = r.p99_packet_latency;
  j[rk::kMaxPacketLatency] = r.max_packet_latency;
  j["avg_network_latency"] = r.avg_network_latency;
  j["p50_network_latency"] = r.p50_network_latency;
  j["p99_network_latency"] = r.p99_network_latency;
  j["max_network_latency"] = r.max_network_latency;
  j["avg_hops"] = r.avg_hops;
  j["packets_created"] = r.packets_created;
  j["packets_delivered"] = r.packets_delivered;
  j["measured_packets"] = r.measured_packets;
  j[rk::kFlitsInjected] = r.totals.flits_injected;
  j[rk::kFlitsEjected] = r.totals.flits_ejected;
  j[rk::kFlitsSwitched] = r.totals.flits_switched;
  j["violations"] = r.totals.violations;
  j[rk::kLinkUtilMean] = r.link_util_mean;
  j[rk::kLinkUtilMax] = r.link_util_max;
  j["vc_occupancy_mean"] = r.vc_occupancy_mean;
  j["vc_occupancy_max"] = r.vc_occupancy_max;
  // The simulator's own performance, not the model's: host timings differ from run to
  // run (the only fields that do), router_activity from one faultmesh version to another.
  j[rk::kWallSeconds] = r.wall_seconds;
  j[rk::kRouterCyclesPerSecond] = r.router_cycles_per_second;
  j[rk::kSimulator] = {{"setup_seconds", r.setup_seconds},
                       {"flit_hops_per_second", r.flit_hops_per_second},
                       {"peak_rss_kb", r.peak_rss_kb},
                       {"router_activity", r.router_activity},
                       {"threads", r.threads},
                       {"parallel_cycles", r.parallel_cycles},
                       {"rebalances", r.rebalances}};
  nlohmann::ordered_json links = nlohmann::ordered_json::array();
  for (const LinkUtil& l : r.links)
    links.push_back({{"x", l.x}, {"y", l.y}, {"port", port_name(l.port)}, {"utilization", l.utilization}});
  j[rk::kLinkUtilization] = links;
  for (auto it = r.view.begin(); it != r.view.end(); ++it) j[it.key()] = it.value();
  j["routing"] = routes_json(r.routes_info, r.route_check);
  j[rk::kConfig] = config_json(r.config, Command::Traffic);
  return j;
}

}  // namespace fm
