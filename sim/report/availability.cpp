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

namespace {

// One job's event loop. While running, the next event is the earliest of a board
// failure, a checkpoint, the end of the work and the horizon; while down, of a failure
// and the end of the down time. What a down time is decides what a failure in it does.
class JobSim {
 public:
  JobSim(const AvailParams& p, AvailPolicy pol, const LifetimeDraw& draw, const HolesUsable& usable)
      : p_(p), pol_(pol), draw_(draw), usable_(usable), B(p.boards), life_(B), repaired_at_(B, kInf) {
    for (int b = 0; b < B; ++b) life_[b] = draw_(b, 0);
  }

  AvailRun run() {
    const double H = p_.horizon_h;
    while (t_ < H) {
      int who = -1;
      const double tf = next_failure(&who);
      if (down_ == Down::None) {
        if (!run_until_event(tf, who)) break;
      } else if (down_ == Down::Spare) {
        t_ = std::min(down_until_, H);
        if (t_ >= H) break;
        move_to_spare();
      } else if (tf < down_until_) {
        t_ = tf;
        if (t_ >= H) break;
        fail(who, t_);
      } else {
        t_ = std::min(down_until_, H);
        if (t_ >= H) break;
        end_down_time();
      }
    }
    r_.finished = p_.work_h == 0 || done_;
    r_.time_h = done_ ? t_ : H;
    r_.goodput = work_ / r_.time_h;
    r_.availability = run_time_ / r_.time_h;
    return r_;
  }

 private:
  // Pause: (b) reconfigures, or restarts to take boards back; a failure in it is handled
  // as one while running. Repair: (a) waits for `waiting_`; a failure adds a board to
  // it. Spare: (a) moves to a healthy spare slice; failures on the old slice do not
  // matter.
  enum class Down { None, Pause, Repair, Spare };

  const AvailParams& p_;
  const AvailPolicy pol_;
  const LifetimeDraw& draw_;
  const HolesUsable& usable_;
  const int B;
  std::vector<double> life_, repaired_at_;  // absolute failure / repair times
  std::vector<int> holes_;    // (b): failed boards the job runs without
  std::vector<int> waiting_;  // (a) without a spare slice: failed boards the job waits for
  Down down_ = Down::None;
  AvailRun r_;
  double t_ = 0, work_ = 0, saved_ = 0, run_time_ = 0;
  double ckpt_left_ = p_.ckpt_h;  // running time until the next checkpoint
  double down_until_ = 0;
  bool done_ = false;
  // The earliest failure among the boards, recomputed only after a lifetime changed.
  bool lives_changed_ = true;
  double tf_min_ = kInf;
  int tf_who_ = -1;

  double next_failure(int* who) {
    if (lives_changed_) {
      tf_min_ = kInf;
      for (int b = 0; b < B; ++b)
        if (life_[b] < tf_min_) tf_min_ = life_[b], tf_who_ = b;
      lives_changed_ = false;
    }
    *who = tf_who_;
    return tf_min_;
  }
  void set_life(int b, double v) {
    life_[b] = v;
    lives_changed_ = true;
  }

  // Running: to the next event (the earliest failure tf of board who, a checkpoint, the
  // end of the work or the horizon). False when the loop ends (the work is done or the
  // horizon reached).
  bool run_until_event(double tf, int who) {
    const double H = p_.horizon_h;
    const double rate = p_.rate[holes_.size()];
    const double tc = t_ + ckpt_left_;
    const double tw = p_.work_h > 0 && rate > 0 ? t_ + (p_.work_h - work_) / rate : kInf;
    const double tn = std::min({tf, tc, tw, H});
    work_ += rate * (tn - t_);
    run_time_ += tn - t_;
    ckpt_left_ -= tn - t_;
    t_ = tn;
    if (tw <= std::min({tf, tc, H})) {  // the work is done
      work_ = p_.work_h;
      done_ = true;
      return false;
    }
    if (t_ >= H) return false;
    if (tf <= tc) fail(who, t_);
    else checkpoint();
    return true;
  }

  // A checkpoint is written; (b) takes repaired boards back with a restart from it.
  void checkpoint() {
    saved_ = work_;
    ckpt_left_ = p_.ckpt_h;
    bool any = false;
    for (int b : holes_) any |= repaired_at_[b] <= t_;
    if (!any) return;
    std::vector<int> keep;
    for (int b : holes_) {
      if (repaired_at_[b] <= t_) {
        repaired_at_[b] = kInf;
        set_life(b, draw_(b, t_ + p_.restart_h));
      } else {
        keep.push_back(b);
      }
    }
    holes_ = keep;
    ++r_.restarts;
    down_ = Down::Pause;
    down_until_ = t_ + p_.restart_h;
  }

  // (a) has moved to a healthy spare slice: all its boards new.
  void move_to_spare() {
    holes_.clear();
    for (int b = 0; b < B; ++b) {
      set_life(b, draw_(b, t_));
      repaired_at_[b] = kInf;
    }
    down_ = Down::None;
    ckpt_left_ = p_.ckpt_h;
  }

  // A pause or a repair wait is over; after a repair every board is back and the job
  // restarts from the checkpoint.
  void end_down_time() {
    if (down_ == Down::Repair) {
      for (int w : waiting_) {
        repaired_at_[w] = kInf;
        set_life(w, draw_(w, t_));
      }
      waiting_.clear();
      ckpt_left_ = p_.ckpt_h;
    }
    down_ = Down::None;
  }

  // Policy (a), or (b)'s fallback, after board b failed at `at`: roll back to the
  // checkpoint, then wait for a spare slice or for every failed board's repair.
  void stop(double at, int b) {
    ++r_.stops;
    work_ = saved_;
    if (p_.spare_slice_h) {
      down_ = Down::Spare;
      down_until_ = at + *p_.spare_slice_h + p_.restart_h;
      return;
    }
    down_ = Down::Repair;
    waiting_.insert(waiting_.end(), holes_.begin(), holes_.end());  // already being repaired
    holes_.clear();
    repaired_at_[b] = at + p_.repair_h;
    waiting_.push_back(b);
    down_until_ = 0;
    for (int w : waiting_) down_until_ = std::max(down_until_, repaired_at_[w] + p_.restart_h);
  }

  // Board b fails at `at` (running, or during a down time on this slice).
  void fail(int b, double at) {
    ++r_.failures;
    set_life(b, kInf);
    if (down_ == Down::Repair) {  // one more board to wait for
      repaired_at_[b] = at + p_.repair_h;
      waiting_.push_back(b);
      down_until_ = std::max(down_until_, repaired_at_[b] + p_.restart_h);
      return;
    }
    if (pol_ == AvailPolicy::StopAndRepair || (int)holes_.size() + 1 > p_.max_holes) return stop(at, b);
    std::vector<int> next = holes_;
    next.push_back(b);
    if (usable_ && !usable_(next)) return stop(at, b);
    holes_ = next;
    repaired_at_[b] = at + p_.repair_h;
    if (down_ == Down::None) down_until_ = at;
    down_ = Down::Pause;
    down_until_ = std::max(down_until_, at + p_.reconfig_h);
  }
};

}  // namespace

AvailRun simulate_availability(const AvailParams& p, AvailPolicy pol, const LifetimeDraw& draw,
                               const HolesUsable& usable) {
  check(p, pol);
  return JobSim(p, pol, draw, usable).run();
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
