// Availability of a long data-parallel training job on a machine of boards that fail
// (the point of Kumar & Jouppi's title), by Monte Carlo: every board fails after an
// exponential lifetime; two policies react. A failed board takes repair_h to be
// replaced, whichever policy runs: both wait for the same repair.
//   StopAndRepair (a): every failure stops the job. The work since the last checkpoint
//     is lost. With no spare slice (the default: a job on a whole pod has none) the job
//     waits on its slice until every failed board is repaired - a board failing during
//     the wait extends it - then restarts from the checkpoint (restart_h). With a spare
//     slice (spare_slice_h) it moves to a healthy one after spare_slice_h instead.
//   RouteAround (b): the job reconfigures around the failed board (reconfig_h, the
//     in-memory weights are replicated on every chip, so nothing is rolled back) and
//     continues with h holes at a relative speed rate[h]. A failure that would leave more
//     than max_holes holes, or a fault set `usable` rejects (live chips cut off, the
//     collective refusing it), falls back to (a). Failed boards are repaired in the
//     background; at the first checkpoint after a repair the job restarts (restart_h,
//     nothing lost: the checkpoint was just written) with those boards back.
// Two ways to end a job: after a fixed wall-clock horizon (work_h = 0), or when its useful
// work reaches work_h hours of the full machine (time-to-train; horizon_h is then a cap).
// goodput = useful (never rolled back) work / what the full, never-failing machine would
// do in the job's wall time; availability = fraction of that time the job is running
// (degraded or not).
// Deterministic: a run depends only on its parameters and seed.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fm {

enum class AvailPolicy { StopAndRepair, RouteAround };

struct AvailParams {
  int boards = 256;             // boards (hosts) in the slice: 1024 chips / 4
  double mtbf_h = 8760;         // mean time between failures of one board, hours
  // (a) time to move the job onto a healthy spare slice; none: it waits for the repair.
  std::optional<double> spare_slice_h;
  double restart_h = 0.25;      // restore the checkpoint, re-initialise, recompile
  double reconfig_h = 5.0 / 60; // (b) rebuild routes and collective, redo the lost step
  double repair_h = 48;         // replacing a failed board (both policies)
  double ckpt_h = 1;            // checkpoint interval, hours of running time
  double horizon_h = 28 * 24;   // wall-clock length of the job (with work_h: its cap)
  double work_h = 0;            // > 0: the job ends when its useful work reaches this
  int max_holes = 2;            // (b) most holes the job runs with
  // rate[h]: throughput with h holes relative to the full machine (rate[0] = 1); must
  // have at least max_holes + 1 entries.
  std::vector<double> rate = {1.0};
};

struct AvailRun {
  double goodput = 0;       // useful work / (wall time x full-machine rate)
  double availability = 0;  // running time / wall time
  double time_h = 0;        // wall time of the job: the horizon, or when work_h was done
  bool finished = true;     // with work_h: the work was done before the horizon
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
// The absolute time (hours, >= from_h) at which `board`, installed at from_h, fails;
// infinity for never. simulate_availability draws exponential lifetimes of mean mtbf_h
// from its seed; a scripted draw gives hand-worked cases (tests).
using LifetimeDraw = std::function<double(int board, double from_h)>;
AvailRun simulate_availability(const AvailParams& p, AvailPolicy pol, const LifetimeDraw& draw,
                               const HolesUsable& usable = nullptr);

struct MeanCI {
  double mean = 0, half = 0;  // mean and the half-width of its 95 % confidence interval
};
// Mean and 95 % CI of a sample: Student's t quantile with n - 1 degrees of freedom
// times the standard error (12.7 at n = 2, 2.09 at 20, 1.96 for large n).
MeanCI mean_ci(const std::vector<double>& v);

struct AvailSummary {
  MeanCI goodput, availability, failures, stops, time_h;
  int seeds = 0;
  int unfinished = 0;  // with work_h: jobs the horizon cut off (their time_h is the cap)
};
// `seeds` jobs with seeds first_seed, first_seed + 1, ...
AvailSummary availability_monte_carlo(const AvailParams& p, AvailPolicy pol, int seeds,
                                      uint64_t first_seed = 1, const HolesUsable& usable = nullptr);

}  // namespace fm
