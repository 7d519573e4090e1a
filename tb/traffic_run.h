// The synthetic-traffic testbench: builds the network, loads routing tables, runs the
// warm-up, measurement and drain phases (BookSim's methodology: packets created in the
// measurement window are tracked to delivery; after the window injection stops and
// the network drains), watches for stalls, and gathers every statistic.
//
// SystemC elaborates once per process: call run_traffic() at most once per process
// (tb/isolated.h runs several in child processes).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/config.h"
#include "models/noc/network.h"
#include "models/routing/checker.h"
#include "models/routing/routes.h"
#include "tb/tracer.h"

namespace fm {

struct LinkUtil {
  int x, y;
  Port port;
  double utilization;  // flits sent per cycle in the measurement window
};

struct TrafficResult {
  Config config;
  RouteSet routes_info;        // scheme and groups (tables not kept)
  RouteCheck route_check;      // what the checker found before the run
  bool ok = false;             // drained, no violation, no guard fired
  std::string stop_reason;     // "drained", "watchdog", "max-drain", "violation"
  std::string message;         // what went wrong, with where flits are stuck
  Cycle warmup_cycles = 0, measure_cycles = 0, drain_cycles = 0, total_cycles = 0;
  NetCounters totals;
  uint64_t packets_created = 0, packets_delivered = 0, measured_packets = 0;
  double offered_flit_rate = 0, accepted_flit_rate = 0;  // flits/node/cycle in the window
  double accepted_flit_rate_min = 0, accepted_flit_rate_max = 0;  // over nodes (fairness)
  double avg_packet_latency = 0, avg_network_latency = 0;
  uint32_t p50_packet_latency = 0, p99_packet_latency = 0, max_packet_latency = 0;
  uint32_t p50_network_latency = 0, p99_network_latency = 0, max_network_latency = 0;
  double avg_hops = 0;                     // flits switched per ejected flit, minus one
  std::vector<LinkUtil> links;             // ICI links only
  double link_util_mean = 0, link_util_max = 0;
  std::vector<double> vc_occupancy_mean;   // per VC index, flits, over ICI input ports
  std::vector<double> vc_occupancy_max;    // per VC index, the busiest input VC's mean
  double setup_seconds = 0, wall_seconds = 0;
  double router_cycles_per_second = 0, flit_hops_per_second = 0;
  int threads = 1;               // threads that evaluated the cycles (models/noc/clock.h)
  uint64_t parallel_cycles = 0;  // cycles evaluated on more than one thread
  uint64_t rebalances = 0;       // times the thread groups' bands moved (Clock::rebalance)
  double router_activity = 0;              // share of router-cycles actually evaluated
  long peak_rss_kb = 0;
  std::string wave_note;                   // the tracer's note for the user ("" if none)
  // For the run's HTML page (tb/view_data.h): link flits per window, the dead chips,
  // boards and links (all dead from cycle 0).
  nlohmann::ordered_json view;
};

struct RunOptions {
  bool progress = false;  // progress line on stderr (callers decide: only on a terminal)
  // Route tables to load instead of the configured scheme's (tests).
  const std::vector<RouteTable>* tables = nullptr;
  // The route checker runs before every simulation and refuses a route set that is not
  // connected or not deadlock-free. Only a test that wants to see a real deadlock at run
  // time (the watchdog test) turns it off.
  bool check_routes = true;
  // Waveforms (tb/tracer.h): nullptr or disabled = none. They never change a result.
  const WaveOptions* wave = nullptr;
  // Routers of the network (nullptr: the SystemC model Router; tb/rtl_mesh_router.h
  // makes RTL routers). Waveforms need model routers.
  RouterFactory router_factory = nullptr;
  // Every NI appends each flit it ejects here (nullptr: no log).
  std::vector<EjectRecord>* eject_log = nullptr;
};

TrafficResult run_traffic(const Config& cfg, const RunOptions& opt = {});

// The two steps every simulating command (traffic, allreduce) builds its network with.
// The route set: opt's tables or the configured scheme's around `faults`, proven
// connected and deadlock-free by the checker (its findings in *check) unless
// opt.check_routes is off; throws when the checker refuses it.
RouteSet checked_routes(const Config& cfg, const FaultSet& faults, const RunOptions& opt, RouteCheck* check);
// The network with those tables loaded and the faults applied, opt's eject log and
// router factory, and its worker threads (one with an eject log: it is one list in
// ejection order). Throws when waveforms are asked of RTL routers.
std::unique_ptr<Network> build_network(const Config& cfg, const FaultSet& faults, const RouteSet& routes,
                                       const RunOptions& opt);

// Scheme, connectivity, deadlock freedom and path statistics of a route set.
nlohmann::ordered_json routes_json(const RouteSet& rs, const RouteCheck& chk);
// Every statistic plus the configuration.
nlohmann::ordered_json result_json(const TrafficResult& r);

// Nearest-rank percentile (p in (0, 100]) of sorted values; 0 when empty.
uint32_t percentile(const std::vector<uint32_t>& sorted, double p);

long peak_rss_kb();

// The host's CPU model (/proc/cpuinfo "model name"; "unknown" when not found): where a
// run's wall time was measured (the results' "simulator" block).
std::string host_cpu();

}  // namespace fm
