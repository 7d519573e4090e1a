// faultmesh report paper, steps 2 and 3: the linear fits time = a + b * bytes, and a
// gradient's allreduce and training step time from a series.
#include <algorithm>
#include <cmath>
#include <set>

#include "sim/report/impl.h"

namespace fm {

// Least squares (sim/report/paper_report.h): not ok when the points have fewer than two distinct x.
LinearFit fit_linear(const std::vector<std::pair<double, double>>& xy) {
  LinearFit f;
  f.n = (int)xy.size();
  std::set<double> xs;
  double sx = 0, sy = 0;
  for (const auto& [x, y] : xy) xs.insert(x), sx += x, sy += y;
  if (xs.size() < 2) return f;
  const double mx = sx / f.n, my = sy / f.n;
  double sxx = 0, sxy = 0;
  for (const auto& [x, y] : xy) sxx += (x - mx) * (x - mx), sxy += (x - mx) * (y - my);
  f.b = sxy / sxx;
  f.a = my - f.b * mx;
  double ss = 0;
  for (const auto& [x, y] : xy) {
    const double r = y - f.at(x);
    ss += r * r;
    if (y != 0) f.max_rel = std::max(f.max_rel, std::fabs(r / y));
  }
  f.rms = std::sqrt(ss / f.n);
  f.ok = true;
  return f;
}

double fit_below_bound(const LinearFit& f, double bound_us_per_byte, const std::vector<double>& bytes) {
  for (double x : bytes)
    if (f.at(x) < bound_us_per_byte * x) return x;
  return 0;
}

namespace paper_report {

std::string skey(const Machine& m, CaseId c, const std::string& a, int lat) {
  return m.name() + "|" + enum_name(c) + "|" + a + (lat ? "|lat" + std::to_string(lat) : "");
}

Estimate estimate(const Series& s, double bytes) {
  for (const auto* pts : {&s.xy, &s.unfitted})
    for (const auto& [x, y] : *pts)
      if (x == bytes) return {true, true, false, false, y, 0};
  Estimate none;
  const bool beyond = s.fit.ok && bytes > s.checked_upto * (1 + 1e-9);
  const bool to_check = bytes <= s.planned_upto * (1 + 1e-9);
  none.pending = s.pending || (beyond && to_check);
  if (!none.pending && beyond) {
    none.cut = true;
    none.bound_us = s.bound_us_per_byte * bytes;
    return none;
  }
  if (!s.fit.ok || none.pending) return none;
  return {true, false, false, false, s.fit.at(bytes), 0};
}

bool fitted_below_bound(const Series& s, bool simulated, double us, double bytes) {
  return !simulated && s.bound_us_per_byte > 0 && us < s.bound_us_per_byte * bytes;
}

// From the exact simulated size if there is one, else from the fit (Estimate).
Train train(const Series& s, const Gradient& g, double overlap) {
  Train t;
  const Estimate e = estimate(s, g.bytes());
  t.pending = e.pending;
  t.cut = e.cut && s.participants > 0 && e.bound_us > 0;
  if ((!e.ok && !t.cut) || s.participants <= 0) return t;
  t.ok = e.ok;
  t.simulated = e.simulated;
  t.ar_ms = (e.ok ? e.us : e.bound_us) / 1000.0;
  t.step_ms = g.compute_ms + (1 - overlap) * t.ar_ms;
  t.workers = s.participants;
  return t;
}

// Relative training throughput (samples/s vs the fault-free machine with ft2d): per-chip
// batch fixed, so samples per step scale with the working chips.
double rel_throughput(const Train& t, const Train& ff, int chips) {
  return ((double)t.workers / chips) * (ff.step_ms / t.step_ms);
}

void Report::fit_series() {
  std::vector<const Point*> fitted;
  for (const auto* v : {&all, &latpts})
    for (const Point& p : *v) fitted.push_back(&p);
  // What every simulated point of a series tells about it, fitted or not: its
  // link-load bound per byte (the busiest link direction's data flits plus one header
  // per packet_words of them, one flit per cycle; the series keeps the lowest), its
  // participants and live chips.
  auto take = [&](const Point& p, const Outcome& oc) {
    Series& s = series[skey(p.m, p.c.id, p.algo, p.lat)];
    const double cycles = oc.j.value(rk::kCycles, 0.0);
    const double pw = oc.j.value(rk::kConfig, Json::object()).value("packet-words", 32.0);
    if (cycles > 0 && p.bytes > 0) {
      const double b =
          oc.j.value(rk::kMaxLinkWords, 0.0) * (1 + 1 / pw) * (oc.j.value(rk::kTimeUs, 0.0) / cycles) / p.bytes;
      s.bound_us_per_byte = s.bound_us_per_byte > 0 ? std::min(s.bound_us_per_byte, b) : b;
    }
    s.participants = oc.j.value(rk::kParticipants, 0);
    s.live = oc.j.value(rk::kLiveChips, 0);
  };
  for (const Point* pp : fitted) {
    const Point& p = *pp;
    Series& s = series[skey(p.m, p.c.id, p.algo, p.lat)];
    const Outcome& oc = res[p.name];
    if (!oc.ok) {
      if (s.error.empty()) s.error = oc.error;
      s.pending |= oc.pending;
      continue;
    }
    s.xy.push_back({(double)p.bytes, oc.j.value(rk::kTimeUs, 0.0)});
    take(p, oc);
  }
  for (auto& [k, s] : series)
    if (s.error.empty()) s.fit = fit_linear(s.xy);  // a series with a failed size is not fitted
  // Simulated but not fitted: the bucket classes (a failed class run leaves its buckets
  // to the fit) and the whole-size runs (a failed one leaves its gradient to the fit,
  // and its check row says why).
  for (const auto* v : {&bucketpts, &wholepts, &midwhole})
    for (const Point& p : *v)
      if (res[p.name].ok) {
        series[skey(p.m, p.c.id, p.algo)].unfitted.push_back(
            {(double)p.bytes, res[p.name].j.value(rk::kTimeUs, 0.0)});
        take(p, res[p.name]);
      }
  // The regime the fits are checked in: up to the largest whole-size run (or
  // extrapolation check) compared with a fit of the same family of schedules. With
  // --whole a fitted number beyond it waits for the run that checks it (pending), rather
  // than being extrapolated unchecked; beyond the largest such run the plan makes at
  // all, it is cut to its link-load bound. The families: the 2-D ones (ft2d, shrink:
  // rings and chains of a few dozen chips, every shard many chunks at the fitted sizes)
  // and the snake (one ring of every chip, whose shard is under one chunk at 16 MiB on
  // 512 chips, so its fit's slope is another regime's: through 16 and 32 MiB on the
  // 16x32 mesh it falls below the link-load bound by 680 MB).
  if (o.whole) {
    auto family = [](const std::string& algo) { return algo == "snake" ? 1 : 0; };
    double upto[2] = {0, 0}, planned[2] = {0, 0};
    for (const auto* v : {&wholepts, &midwhole, &checks})
      for (const Point& p : *v) {
        planned[family(p.algo)] = std::max(planned[family(p.algo)], (double)p.bytes);
        if (res[p.name].ok && series[skey(p.m, p.c.id, p.algo)].fit.ok)
          upto[family(p.algo)] = std::max(upto[family(p.algo)], (double)p.bytes);
      }
    checked_upto = std::max(upto[0], upto[1]);
    snake_checked_upto = upto[1];
    snake_planned_upto = planned[1];
    for (const Point* pp : fitted) {
      Series& s = series[skey(pp->m, pp->c.id, pp->algo, pp->lat)];
      s.checked_upto = upto[family(pp->algo)];
      s.planned_upto = planned[family(pp->algo)];
    }
  }
}

void Report::make_gradients() {
  const std::vector<Layer>* resnet = &resnet50_layers();
  const std::vector<Layer>* bert = &bert_large_layers();
  grads = {{Net::ResNet50, DType::FP32, "ResNet-50", o.resnet_params, 4, o.resnet_ms, resnet},
           {Net::ResNet50, DType::BF16, "ResNet-50", o.resnet_params, 2, o.resnet_ms, resnet},
           {Net::BertLarge, DType::FP32, "BERT-large", o.bert_params, 4, o.bert_ms, bert},
           {Net::BertLarge, DType::BF16, "BERT-large", o.bert_params, 2, o.bert_ms, bert}};
}

}  // namespace paper_report

}  // namespace fm
