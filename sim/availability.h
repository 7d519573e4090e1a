// Availability of a long data-parallel training job on a machine of boards that fail
// (the point of Kumar & Jouppi's title), by Monte Carlo: every board fails after an
// exponential lifetime; two policies react.
//   StopAndRepair (a): every failure stops the job. The work since the last checkpoint
//     is lost; the job waits until the slice is repaired or rescheduled onto healthy
//     boards (reschedule_h), restarts from the checkpoint (restart_h), and runs on a full
//     slice again.
//   RouteAround (b): the job reconfigures around the failed board (reconfig_h, the
//     in-memory weights are replicated on every chip, so nothing is rolled back) and
//     continues with h holes at a relative speed rate[h]. A failure that would leave more
//     than max_holes holes, or a fault set `usable` rejects (live chips cut off, the
//     collective refusing it), falls back to (a). Failed boards are repaired in the
//     background (repair_h); at the first checkpoint after a repair the job restarts
//     (restart_h, nothing lost: the checkpoint was just written) with those boards back.
// The job runs for a fixed wall-clock horizon; goodput = useful (never rolled back) work
// divided by what the full, never-failing machine would do in that time; availability =
// fraction of the horizon the job is running (degraded or not).
// Deterministic: a run depends only on its parameters and seed.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace fm {

enum class AvailPolicy { StopAndRepair, RouteAround };

struct AvailParams {
  int boards = 256;             // boards (hosts) in the slice: 1024 chips / 4
  double mtbf_h = 8760;         // mean time between failures of one board, hours
  double reschedule_h = 2;      // (a) wait for repair or a healthy replacement slice
  double restart_h = 0.25;      // restore the checkpoint, re-initialise, recompile
  double reconfig_h = 5.0 / 60; // (b) rebuild routes and collective, redo the lost step
  double repair_h = 48;         // (b) background repair of a failed board
  double ckpt_h = 1;            // checkpoint interval, hours of running time
  double horizon_h = 28 * 24;   // wall-clock length of the job
  int max_holes = 2;            // (b) most holes the job runs with
  // rate[h]: throughput with h holes relative to the full machine (rate[0] = 1); must
  // have at least max_holes + 1 entries.
  std::vector<double> rate = {1.0};
};

struct AvailRun {
  double goodput = 0;       // useful work / (horizon x full-machine rate)
  double availability = 0;  // running time / horizon
  int failures = 0;         // board failures while the slice was in use
  int stops = 0;            // failures handled by stop-and-repair (all of them in (a))
  int restarts = 0;         // (b) restarts at a checkpoint to take repaired boards back
};

// Decides whether the job can run with these failed boards (board indices); nullptr
// accepts any set.
using HolesUsable = std::function<bool(const std::vector<int>& holes)>;

// One job. Throws std::invalid_argument for parameters out of range.
AvailRun simulate_availability(const AvailParams& p, AvailPolicy pol, uint64_t seed,
                               const HolesUsable& usable = nullptr);

struct MeanCI {
  double mean = 0, half = 0;  // mean and the half-width of its 95 % confidence interval
};
// Mean and normal-approximation 95 % CI (1.96 standard errors) of a sample.
MeanCI mean_ci(const std::vector<double>& v);

struct AvailSummary {
  MeanCI goodput, availability, failures, stops;
  int seeds = 0;
};
// `seeds` jobs with seeds first_seed, first_seed + 1, ...
AvailSummary availability_monte_carlo(const AvailParams& p, AvailPolicy pol, int seeds,
                                      uint64_t first_seed = 1, const HolesUsable& usable = nullptr);

}  // namespace fm
