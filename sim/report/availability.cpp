// Monte Carlo of a training job under board failures (sim/report/availability.h): an event
// loop over board failures, checkpoints and the ends of down times.
#include "sim/report/availability.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

#include <boost/math/distributions/students_t.hpp>

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
  if (!(p.restart_h >= 0) || !(p.reconfig_h >= 0) || !(p.repair_h >= 0))
    bad("restart, reconfiguration and repair times must be >= 0");
  if (p.spare_slice_h && !(*p.spare_slice_h >= 0 && std::isfinite(*p.spare_slice_h)))
    bad("the spare-slice time must be a finite number >= 0 hours");
  if (!(p.ckpt_h > 0)) bad("checkpoint interval must be > 0 hours");
  if (!(p.horizon_h > 0) || !std::isfinite(p.horizon_h)) bad("job length must be a finite number > 0 hours");
  if (!(p.work_h >= 0) || !std::isfinite(p.work_h)) bad("the job's work must be a finite number >= 0 hours");
  if (p.work_h > p.horizon_h) bad("the job's cap must be at least its work (the never-failing machine's time)");
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
  return simulate_availability(
      p, pol, [&](int, double from) { return from + exp_draw(rng, p.mtbf_h); }, usable);
}

// The event loop. While running, the next event is the earliest of a board failure, a
// checkpoint, the end of the work and the horizon; while down, of a failure and the end
// of the down time. What a down time is decides what a failure in it does.
AvailRun simulate_availability(const AvailParams& p, AvailPolicy pol, const LifetimeDraw& draw,
                               const HolesUsable& usable) {
  check(p, pol);
  const int B = p.boards;
  const double H = p.horizon_h;
  std::vector<double> life(B), repaired_at(B, kInf);  // absolute failure / repair times
  std::vector<int> holes;    // (b): failed boards the job runs without
  std::vector<int> waiting;  // (a) without a spare slice: failed boards the job waits for
  for (int b = 0; b < B; ++b) life[b] = draw(b, 0);

  // Pause: (b) reconfigures, or restarts to take boards back; a failure in it is handled
  // as one while running. Repair: (a) waits for `waiting`; a failure adds a board to it.
  // Spare: (a) moves to a healthy spare slice; failures on the old slice do not matter.
  enum class Down { None, Pause, Repair, Spare };
  Down down = Down::None;
  AvailRun r;
  double t = 0, work = 0, saved = 0, run_time = 0;
  double ckpt_left = p.ckpt_h;  // running time until the next checkpoint
  double down_until = 0;
  bool done = false;

  // The earliest failure among the boards, recomputed only after a lifetime changed.
  bool lives_changed = true;
  double tf_min = kInf;
  int tf_who = -1;
  auto next_failure = [&](int* who) {
    if (lives_changed) {
      tf_min = kInf;
      for (int b = 0; b < B; ++b)
        if (life[b] < tf_min) tf_min = life[b], tf_who = b;
      lives_changed = false;
    }
    *who = tf_who;
    return tf_min;
  };
  auto set_life = [&](int b, double v) {
    life[b] = v;
    lives_changed = true;
  };
  // Policy (a), or (b)'s fallback, after board b failed at `at`: roll back to the
  // checkpoint, then wait for a spare slice or for every failed board's repair.
  auto stop = [&](double at, int b) {
    ++r.stops;
    work = saved;
    if (p.spare_slice_h) {
      down = Down::Spare;
      down_until = at + *p.spare_slice_h + p.restart_h;
      return;
    }
    down = Down::Repair;
    waiting.insert(waiting.end(), holes.begin(), holes.end());  // already being repaired
    holes.clear();
    repaired_at[b] = at + p.repair_h;
    waiting.push_back(b);
    down_until = 0;
    for (int w : waiting) down_until = std::max(down_until, repaired_at[w] + p.restart_h);
  };
  // Board b fails at `at` (running, or during a down time on this slice).
  auto fail = [&](int b, double at) {
    ++r.failures;
    set_life(b, kInf);
    if (down == Down::Repair) {  // one more board to wait for
      repaired_at[b] = at + p.repair_h;
      waiting.push_back(b);
      down_until = std::max(down_until, repaired_at[b] + p.restart_h);
      return;
    }
    if (pol == AvailPolicy::StopAndRepair || (int)holes.size() + 1 > p.max_holes) return stop(at, b);
    std::vector<int> next = holes;
    next.push_back(b);
    if (usable && !usable(next)) return stop(at, b);
    holes = next;
    repaired_at[b] = at + p.repair_h;
    if (down == Down::None) down_until = at;
    down = Down::Pause;
    down_until = std::max(down_until, at + p.reconfig_h);
  };

  while (t < H) {
    int who = -1;
    const double tf = next_failure(&who);
    if (down == Down::None) {
      const double rate = p.rate[holes.size()];
      const double tc = t + ckpt_left;
      const double tw = p.work_h > 0 && rate > 0 ? t + (p.work_h - work) / rate : kInf;
      const double tn = std::min({tf, tc, tw, H});
      work += rate * (tn - t);
      run_time += tn - t;
      ckpt_left -= tn - t;
      t = tn;
      if (tw <= std::min({tf, tc, H})) {  // the work is done
        work = p.work_h;
        done = true;
        break;
      }
      if (t >= H) break;
      if (tf <= tc) {
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
              set_life(b, draw(b, t + p.restart_h));
            } else {
              keep.push_back(b);
            }
          }
          holes = keep;
          ++r.restarts;
          down = Down::Pause;
          down_until = t + p.restart_h;
        }
      }
    } else if (down == Down::Spare) {
      t = std::min(down_until, H);
      if (t >= H) break;
      holes.clear();
      for (int b = 0; b < B; ++b) {
        set_life(b, draw(b, t));
        repaired_at[b] = kInf;
      }
      down = Down::None;
      ckpt_left = p.ckpt_h;
    } else if (tf < down_until) {
      t = tf;
      if (t >= H) break;
      fail(who, t);
    } else {
      t = std::min(down_until, H);
      if (t >= H) break;
      if (down == Down::Repair) {  // every board is back: restart from the checkpoint
        for (int w : waiting) {
          repaired_at[w] = kInf;
          set_life(w, draw(w, t));
        }
        waiting.clear();
        ckpt_left = p.ckpt_h;
      }
      down = Down::None;
    }
  }
  r.finished = p.work_h == 0 || done;
  r.time_h = done ? t : H;
  r.goodput = work / r.time_h;
  r.availability = run_time / r.time_h;
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
  const boost::math::students_t t((double)(v.size() - 1));
  m.half = boost::math::quantile(t, 0.975) * std::sqrt(q / (v.size() - 1) / v.size());
  return m;
}

AvailSummary availability_monte_carlo(const AvailParams& p, AvailPolicy pol, int seeds,
                                      uint64_t first_seed, const HolesUsable& usable) {
  if (seeds < 1) throw std::invalid_argument("seeds must be >= 1");
  std::vector<double> g, a, f, s, t;
  AvailSummary sum;
  for (int i = 0; i < seeds; ++i) {
    const AvailRun r = simulate_availability(p, pol, first_seed + (uint64_t)i, usable);
    g.push_back(r.goodput);
    a.push_back(r.availability);
    f.push_back(r.failures);
    s.push_back(r.stops);
    t.push_back(r.time_h);
    sum.unfinished += !r.finished;
  }
  sum.goodput = mean_ci(g);
  sum.availability = mean_ci(a);
  sum.failures = mean_ci(f);
  sum.stops = mean_ci(s);
  sum.time_h = mean_ci(t);
  sum.seeds = seeds;
  return sum;
}

}  // namespace fm
