// The allreduce testbench: a machine of chips (models/chip/) on the network, a host
// that drives every live chip through TLM-2.0 (descriptor registers, START, wait for
// the completion events), and the measurements: allreduce time, algorithm and bus
// bandwidth, per-phase times, link utilization, the two bounds (docs/collectives.md),
// flit accounting and, in verify mode, the exact sums on every participant.
//
// SystemC elaborates once per process: call run_allreduce() at most once per process.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/config.h"
#include "models/fault/fault_controller.h"
#include "models/routing/checker.h"
#include "models/routing/routes.h"
#include "tb/traffic_run.h"

namespace fm {

struct PhaseTime {
  std::string name;
  Cycle start = 0, end = 0;  // first chunk read for sending .. last chunk applied
};

struct AllreduceResult {
  Config config;
  RouteSet routes_info;
  RouteCheck route_check;
  bool ok = false;               // completed, no violation, sums right when verified
  std::string stop_reason;       // "done", "watchdog", "max-cycles", "violation", "refused", "partitioned", "accounting", "wrong-sum"
  std::string message;
  std::optional<bool> verified;  // nullopt: not verifying
  int live_chips = 0, participants = 0;
  uint64_t words = 0;            // flits of data per chip
  size_t transfers = 0;
  Cycle start_cycle = 0, end_cycle = 0, cycles = 0;  // the allreduce alone
  Cycle max_cycles = 0;          // the max-cycles guard in force (RunConfig::max_cycles or auto)
  double time_us = 0, step_time_us = 0;              // step = compute + allreduce
  double algbw_GBps = 0, busbw_GBps = 0;
  double bound_cycles = 0, topo_bound_cycles = 0, bound_ratio = 0, topo_bound_ratio = 0;
  uint64_t max_link_words = 0;                       // the schedule's busiest link
  std::vector<PhaseTime> phases;
  std::vector<LinkUtil> links;                       // ICI links, utilization over the allreduce
  double link_util_mean = 0, link_util_max = 0;
  NetCounters totals;
  uint64_t hbm_bytes = 0, words_reduced = 0;
  double setup_seconds = 0, wall_seconds = 0, router_cycles_per_second = 0;
  double planning_seconds = 0;   // host time in the resume planner (Host::planning_seconds)
  int threads = 1;               // threads that evaluated the cycles (models/noc/clock.h)
  uint64_t parallel_cycles = 0;  // cycles evaluated on more than one thread
  uint64_t rebalances = 0;       // times the thread groups' bands moved (Clock::rebalance)
  long peak_rss_kb = 0;
  std::string wave_note;         // what the waveform tracer had to say ("" = nothing)
  // Failures during the run (docs/faults.md).
  std::vector<TimelineEvent> timeline;
  std::vector<std::string> untriggered;  // --fail-at values whose trigger never came
  Drops drops;                   // lost in the network, by reason
  uint64_t discarded_abort = 0;  // ejected but belonging to an aborted run
  uint64_t flits_delivered = 0;  // ejected and used
  uint64_t flits_in_network = 0; // still buffered or on a link at the end (0 unless stopped)
  bool conservation_ok = false;  // injected == ejected + dropped + still in the network
  int restarts = 0;
  std::string schedule_fingerprint;  // schedule_fingerprint(config)
  std::vector<std::pair<Cycle, double>> util_series;  // (window end, mean link utilization)
  // For the run's HTML page (tb/view_data.h): link flits per window, the dead chips,
  // boards and links with their cycles, drops per link and chip, the chips' roles.
  nlohmann::ordered_json view;
};

// Throws ConfigError for a configuration the model cannot build (bad fault set, an
// algorithm refusing the fault set, verify needing too much memory).
// The max-cycles guard's automatic limit: far above any legitimate run, so it only stops
// a run that would never end (a livelock, restarts without end), yet finite. Per run
// (the first and one per failure): 16x the chip's own flits at the slowest of its link,
// HBM and reduction rates (a run is never 16x slower than its busiest chip's injection,
// docs/errors.md), scaled up when the credit loop cannot keep a link busy (buf*vcs below
// the round trip), plus 4 credit round trips per transfer the busiest chip sends
// (`sends_per_chip`: the latency of a chain of dependent transfers on long links), plus
// 100,000 cycles; plus the compute time and each failure's detection and drain.
Cycle allreduce_cycle_limit(const Config& c, uint64_t flits_per_chip, uint64_t sends_per_chip, Cycle compute_cycles);

AllreduceResult run_allreduce(const Config& cfg, const RunOptions& opt = {});

// What a run's configuration makes the chips execute, as hex: the fingerprint
// (coll::fingerprint) of the collective's schedule as it starts, and with failures
// during the run (--fail-at) a second one, "+"-joined: --restart-algo's schedule on the
// machine with every failure applied, the collective it recovers with (with --recovery
// resume the continuation is planned from it at run time; a change to that planner
// bumps kModelVersion). Builds the schedules, simulates nothing; throws ConfigError as
// the run would for an algorithm that refuses the machine.
std::string schedule_fingerprint(const Config& cfg);

// The recovery model's version a run of `cfg` depends on: kRecoveryVersion with
// failures during the run, else 0 (models/model_version.h).
int recovery_version(const Config& cfg);

nlohmann::ordered_json allreduce_json(const AllreduceResult& r);


}  // namespace fm
