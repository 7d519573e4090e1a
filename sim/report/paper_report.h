// faultmesh report paper: the Kumar & Jouppi experiment as one command (docs/results.md).
// Runs the allreduce cases as child processes into the run store (sim/report/run_store.h),
// simulates the gradients whole where the page needs them and fits time = a + b * bytes
// per case for the rest (checked against the whole runs), models the training step, runs
// the availability Monte Carlo (sim/report/availability.h) and writes results.md with its figures.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace fm {

// Least-squares line y = a + b x through the points, with how well it fits.
struct LinearFit {
  bool ok = false;      // at least two distinct x
  double a = 0, b = 0;
  int n = 0;
  double rms = 0;       // root mean square of the residuals (y units)
  double max_rel = 0;   // largest |residual| / y
  double at(double x) const { return a + b * x; }
};
LinearFit fit_linear(const std::vector<std::pair<double, double>>& xy);

// The physics check of a fit (docs/results.md, "Physics checks"): no fitted time may be
// below the link-load bound of its schedule, the busiest link direction's flits (data
// and headers) at one flit per cycle, which grows linearly with the bytes. Returns the
// first of `bytes` at which f.at(x) < bound_us_per_byte * x, or 0 when none is.
double fit_below_bound(const LinearFit& f, double bound_us_per_byte, const std::vector<double>& bytes);

}  // namespace fm
