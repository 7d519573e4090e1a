// Monte Carlo of a training job under board failures (sim/availability.h): an event
// loop over board failures, checkpoints and the ends of down times.
#include "sim/availability.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

namespace fm {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Exponential lifetime with the given mean from a 53-bit uniform in [0, 1): our own
// inverse transform, so the numbers do not depend on the standard library's
// distributions.
double exp_draw(std::mt19937_64& rng, double mean) {
  const double u = (double)(rng() >> 11) * 0x1.0p-53;
  return -mean * std::log1p(-u);
}

void check(const AvailParams& p, AvailPolicy pol) {
  auto bad = [](const std::string& m) { throw std::invalid_argument(m); };
  if (p.boards < 1) bad("boards must be >= 1");
  if (!(p.mtbf_h > 0)) bad("MTBF must be > 0 hours");
  if (!(p.reschedule_h >= 0) || !(p.restart_h >= 0) || !(p.reconfig_h >= 0) || !(p.repair_h >= 0))
    bad("reschedule, restart, reconfiguration and repair times must be >= 0");
  if (!(p.ckpt_h > 0)) bad("checkpoint interval must be > 0 hours");
  if (!(p.horizon_h > 0) || !std::isfinite(p.horizon_h)) bad("job length must be a finite number > 0 hours");
  if (p.rate.empty() || p.rate[0] != 1.0) bad("rate[0] must be 1 (the full machine)");
  if (pol == AvailPolicy::RouteAround) {
    if (p.max_holes < 0 || p.max_holes > p.boards) bad("max holes must be 0..boards");
    if ((int)p.rate.size() < p.max_holes + 1) bad("need a relative rate for every hole count up to max holes");
    for (double r : p.rate)
      if (!(r >= 0 && r <= 1)) bad("relative rates must be in [0, 1]");
  }
}

}  // namespace

AvailRun simulate_availability(const AvailParams& p, AvailPolicy pol, uint64_t seed,
                               const HolesUsable& usable) {
  check(p, pol);
  std::mt19937_64 rng(seed);
  const int B = p.boards;
  const double H = p.horizon_h;
  std::vector<double> life(B), repaired_at(B, kInf);  // absolute failure / repair times
  std::vector<int> holes;                              // failed boards the job runs without
  for (int b = 0; b < B; ++b) life[b] = exp_draw(rng, p.mtbf_h);

  AvailRun r;
  double t = 0, work = 0, saved = 0, run_time = 0;
  double ckpt_left = p.ckpt_h;   // running time until the next checkpoint
  bool running = true;
  double down_until = 0;
  bool fresh_slice = false;      // the down time ends on a new, fully healthy slice

  auto next_failure = [&](int* who) {
    double tf = kInf;
    for (int b = 0; b < B; ++b)
      if (life[b] < tf) tf = life[b], *who = b;
    return tf;
  };
  // Policy (a), or (b)'s fallback: roll back to the checkpoint and wait for a healthy slice.
  auto stop = [&](double at) {
    ++r.stops;
    work = saved;
    running = false;
    down_until = at + p.reschedule_h + p.restart_h;
    fresh_slice = true;
  };
  // Board b fails at time `at` (running, or during a (b) down time).
  auto fail = [&](int b, double at) {
    ++r.failures;
    life[b] = kInf;
    if (pol == AvailPolicy::StopAndRepair || (int)holes.size() + 1 > p.max_holes) return stop(at);
    std::vector<int> next = holes;
    next.push_back(b);
    if (usable && !usable(next)) return stop(at);
    holes = next;
    repaired_at[b] = at + p.repair_h;
    running = false;
    down_until = std::max(down_until, at + p.reconfig_h);
  };

  while (t < H) {
    int who = -1;
    const double tf = next_failure(&who);
    if (running) {
      const double tc = t + ckpt_left;
      const double tn = std::min({tf, tc, H});
      work += p.rate[holes.size()] * (tn - t);
      run_time += tn - t;
      ckpt_left -= tn - t;
      t = tn;
      if (t >= H) break;
      if (tf <= tc) {
        down_until = t;  // a fresh (b) down time starts now
        fail(who, t);
      } else {
        saved = work;
        ckpt_left = p.ckpt_h;
        // (b): take repaired boards back with a restart from the checkpoint just written.
        bool any = false;
        for (int b : holes) any |= repaired_at[b] <= t;
        if (any) {
          std::vector<int> keep;
          for (int b : holes) {
            if (repaired_at[b] <= t) {
              repaired_at[b] = kInf;
              life[b] = t + p.restart_h + exp_draw(rng, p.mtbf_h);
            } else {
              keep.push_back(b);
            }
          }
          holes = keep;
          ++r.restarts;
          running = false;
          down_until = t + p.restart_h;
        }
      }
    } else if (fresh_slice) {
      // Failures on the abandoned slice do not matter; the new slice starts healthy.
      t = std::min(down_until, H);
      if (t >= H) break;
      holes.clear();
      for (int b = 0; b < B; ++b) {
        life[b] = t + exp_draw(rng, p.mtbf_h);
        repaired_at[b] = kInf;
      }
      fresh_slice = false;
      running = true;
      ckpt_left = p.ckpt_h;
    } else if (tf < down_until) {
      t = tf;
      if (t >= H) break;
      fail(who, t);  // (b): another hole during the down time, or the fallback
    } else {
      t = std::min(down_until, H);
      running = true;
    }
  }
  r.goodput = work / H;
  r.availability = run_time / H;
  return r;
}

MeanCI mean_ci(const std::vector<double>& v) {
  MeanCI m;
  if (v.empty()) return m;
  double s = 0;
  for (double x : v) s += x;
  m.mean = s / v.size();
  if (v.size() < 2) return m;
  double q = 0;
  for (double x : v) q += (x - m.mean) * (x - m.mean);
  m.half = 1.96 * std::sqrt(q / (v.size() - 1) / v.size());
  return m;
}

AvailSummary availability_monte_carlo(const AvailParams& p, AvailPolicy pol, int seeds,
                                      uint64_t first_seed, const HolesUsable& usable) {
  if (seeds < 1) throw std::invalid_argument("seeds must be >= 1");
  std::vector<double> g, a, f, s;
  for (int i = 0; i < seeds; ++i) {
    const AvailRun r = simulate_availability(p, pol, first_seed + (uint64_t)i, usable);
    g.push_back(r.goodput);
    a.push_back(r.availability);
    f.push_back(r.failures);
    s.push_back(r.stops);
  }
  AvailSummary sum;
  sum.goodput = mean_ci(g);
  sum.availability = mean_ci(a);
  sum.failures = mean_ci(f);
  sum.stops = mean_ci(s);
  sum.seeds = seeds;
  return sum;
}

}  // namespace fm
