// faultmesh report paper: the page's tables of fits, extrapolation checks, training
// steps and physics checks, and the observations drawn from them (results.md and
// paper_data.json).
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "models/config.h"
#include "sim/io.h"
#include "sim/report/impl.h"
#include "sim/plot.h"

namespace fm::paper_report {

void Report::write_fits() {
  md << "## Fits: time_us = a + b * bytes\n\n"
     << "Least squares over the simulated sizes. `rms` is the root mean square residual, `max rel` the largest "
     << "residual relative to the simulated time. With two sizes the line passes through both points and the "
     << "residual says nothing; the default uses three.\n\n"
     << "`bound` is the link-load bound per MiB (the busiest link direction's data and header flits, one per cycle; "
     << "the lowest of the simulated sizes): a fit whose time at a gradient size falls below it is physically "
     << "impossible and is listed under \"Physics checks\" below.\n\n"
     << "| machine | case | algo | a (us) | b (us per MiB) | bound (us per MiB) | sizes | residuals (us) | rms (us) | max rel |\n"
     << "|---|---|---|---|---|---|---|---|---|---|\n";
  Json jfits = Json::array();
  for (const Machine& m : machines)
    for (const Case& c : cases[m.name()])
      for (const char* a : kAlgos) {
        const Series& s = series[skey(m, c.id, a)];
        if (!s.fit.ok) {
          md << "| " << m.name() << " | " << c.name() << " | " << a << " | "
             << (s.pending ? "pending" : std::string("not fitted") + (s.error.empty() ? "" : ": a run failed"))
             << " | | | | | | |\n";
          continue;
        }
        std::string res;
        Json jres = Json::array();
        for (const auto& [x, y] : s.xy) {
          res += (res.empty() ? "" : ", ") + fmt(y - s.fit.at(x), 4);
          jres.push_back(y - s.fit.at(x));
        }
        md << "| " << m.name() << " | " << c.name() << " | " << a << " | " << fmt(s.fit.a, 3) << " | "
           << fmt(s.fit.b * (1 << 20), 3) << " | " << fmt(s.bound_us_per_byte * (1 << 20), 3) << " | " << s.fit.n
           << " | " << res << " | " << fmt(s.fit.rms, 4) << " | " << fmt(100 * s.fit.max_rel, 2) << " % |\n";
        jfits.push_back({{"machine", m.name()}, {"case", c.name()}, {"algo", a}, {"a_us", s.fit.a},
                         {"b_us_per_byte", s.fit.b}, {"bound_us_per_byte", s.bound_us_per_byte}, {"n", s.fit.n},
                         {"residuals_us", jres}, {"rms_us", s.fit.rms}, {"max_rel", s.fit.max_rel}});
        check_fit(s, m.name() + " " + c.name() + " " + a);
      }
  data["fits"] = jfits;
  md << "\n";
}

void Report::check_fit(const Series& s, const std::string& what) {
  if (!s.fit.ok || s.bound_us_per_byte <= 0) return;
  std::vector<double> sizes;
  // Only where the page uses the fit: not at a size simulated whole, nor beyond the
  // regime whole runs have checked (shown as pending there).
  for (const Gradient& g : grads) {
    const Estimate e = estimate(s, g.bytes());
    if (e.ok && !e.simulated) sizes.push_back(g.bytes());
  }
  const double at = fit_below_bound(s.fit, s.bound_us_per_byte, sizes);
  if (at > 0)
    unphysical.push_back(what + ": the fit gives " + fmt(s.fit.at(at), 1) + " us at " + fmt(at / 1e6, 1) +
                         " MB, below the link-load bound of " + fmt(s.bound_us_per_byte * at, 1) + " us");
}

// Each fit against the runs it was not fitted to: the extrapolation check's larger run
// (--check-factor) and the gradients simulated whole (--whole).
void Report::write_checks() {
  // Each run with what it is: the check's larger size, or the gradient it simulates whole.
  std::vector<std::pair<const Point*, std::string>> pts;
  for (const Point& p : checks) pts.push_back({&p, std::to_string(o.check_factor) + "x the largest size"});
  for (const auto* v : {&wholepts, &midwhole})
    for (const Point& p : *v)
      for (const Gradient& g : grads)
        if ((double)p.bytes == g.bytes()) {
          pts.push_back({&p, g.model + " " + g.dtype() + " whole"});
          break;
        }
  if (pts.empty()) return;
  md << "## Extrapolation check: fits against larger runs\n\n"
     << "The fits are used far beyond the simulated sizes. Each run here was simulated and left out of its "
     << "series' fit, and is compared with what the fit (from the simulated sizes only) predicts at its size: ";
  if (!checks.empty())
    md << "the extrapolation check (ft2d at " << o.check_factor << "x the largest size on the smallest machine)"
       << (o.whole ? ", and " : ".");
  if (o.whole) md << "the gradients simulated whole (set-up above); the tables use these runs, not the fit, at their sizes.";
  md << "\n\n| machine | case | algo | bytes | run | simulated time_us | fitted time_us | fit error |\n"
     << "|---|---|---|---|---|---|---|---|\n";
  Json jc = Json::array();
  for (const auto& [pp, what] : pts) {
    const Point& p = *pp;
    const Outcome& oc = res[p.name];
    const Series& s = series[skey(p.m, p.c.id, p.algo)];
    md << "| " << p.m.name() << " | " << p.c.name() << " | " << p.algo << " | " << p.bytes << " | " << what << " | ";
    if (!oc.ok || !s.fit.ok) {
      md << (oc.ok ? "" : oc.pending ? "pending" : "failed: " + oc.error) << " | "
         << (s.fit.ok ? "" : s.pending ? "pending" : "not fitted") << " | |\n";
      continue;
    }
    const double sim = oc.j.value(rk::kTimeUs, 0.0), fit = s.fit.at((double)p.bytes);
    md << fmt(sim, 3) << " (sim) | " << fmt(fit, 3) << " (fit) | " << fmt(100 * (fit - sim) / sim, 2) << " % |\n";
    jc.push_back({{"run", p.name}, {"machine", p.m.name()}, {"case", p.c.name()}, {"algo", p.algo}, {"bytes", p.bytes},
                  {"what", what}, {"time_us", sim}, {"fitted_us", fit}});
  }
  data["checks"] = jc;
  std::string off;
  double worst = 0;
  for (const auto& c : jc) {
    const double e = std::fabs(c["fitted_us"].get<double>() - c["time_us"].get<double>()) / c["time_us"].get<double>();
    worst = std::max(worst, e);
    if (e > 0.1)
      off += (off.empty() ? "" : ", ") + c["machine"].get<std::string>() + " " + c["case"].get<std::string>() + " " +
             c["algo"].get<std::string>() + " at " + size_str(c["bytes"].get<uint64_t>()) + " (" + fmt(100 * e, 0) + " %)";
  }
  if (!jc.empty()) md << "\nThe largest fit error here is " << fmt(100 * worst, 2) << " %.\n";
  if (!off.empty())
    md << "\n**Warning:** the fit misses the larger run by more than 10 % for " << off << ". Its time is not linear "
       << "in the bytes between the simulated sizes and that one (see the fit residuals), so the fitted "
       << "gradient-size numbers of such series are indicative only; simulating larger sizes would settle them.\n";
  md << "\n";
}

void Report::write_training() {
  md << "## Training step per machine\n\n"
     << "Allreduce time (ms) of each gradient, the slowdown of ft2d against fault-free ft2d, each baseline "
     << "against ft2d in the same case, the step time with ft2d (compute + (1 - overlap) x allreduce), and the "
     << "training throughput relative to the fault-free machine, which counts both the slower step and the chips "
     << "that do no work (the failed ones; for shrink also the idle live chips outside its rectangle: `workers`). "
     << "Each allreduce time is marked sim or fit, or bound where it is cut (the link-load bound: the time is at "
     << "least, the throughput at most, the figure). A board failing during the allreduce is not a row here: it "
     << "happens once, not every step, and is charged per event (\"A board failing mid-allreduce\" below).\n\n";
  Json jtrain = Json::array();
  for (const Machine& m : machines) {
    md << "### " << m.mesh() << " " << m.topo_name() << " (" << m.chips() << " chips)\n\n"
       << "| gradient | case | ft2d ms | shrink ms | snake ms | ft2d slowdown | shrink / ft2d | snake / ft2d | step ms (ft2d) | step slowdown | workers ft2d / shrink / snake | throughput ft2d | shrink | snake |\n"
       << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const Gradient& g : grads) {
      const Train ff = train(series[skey(m, CaseId::FaultFree, "ft2d")], g, o.overlap);
      for (const Case& c : cases[m.name()]) {
        if (c.mid) continue;
        Train t[3];
        for (int i = 0; i < 3; ++i) t[i] = train(series[skey(m, c.id, kAlgos[i])], g, o.overlap);
        // A derived number is pending while any allreduce it could come from is.
        const std::string na = ff.pending || t[0].pending || t[1].pending || t[2].pending ? "pending" : "n/a";
        md << "| " << g.model << " " << g.dtype() << " | " << c.title;
        // A cut allreduce (Train::cut) shows its link-load bound: its time and ratio to
        // ft2d are at least, its throughput at most, the figures given.
        auto lo = [&](int i) { return t[i].cut ? std::string("≥ ") : std::string(); };
        auto hi = [&](int i) { return t[i].cut ? std::string("≤ ") : std::string(); };
        auto has = [&](int i) { return t[i].ok || t[i].cut; };
        for (int i = 0; i < 3; ++i)
          md << " | "
             << (t[i].ok ? fmt(t[i].ar_ms, 4) + " " + tag(t[i].simulated)
                         : t[i].cut ? lo(i) + fmt(t[i].ar_ms, 4) + " bound" : missing(t[i]));
        const bool base = t[0].ok && ff.ok;
        md << " | " << (base ? fmt(t[0].ar_ms / ff.ar_ms, 3) : na)
           << " | " << (t[0].ok && has(1) ? lo(1) + fmt(t[1].ar_ms / t[0].ar_ms, 3) : na)
           << " | " << (t[0].ok && has(2) ? lo(2) + fmt(t[2].ar_ms / t[0].ar_ms, 3) : na)
           << " | " << (t[0].ok ? fmt(t[0].step_ms, 3) : na)
           << " | " << (base ? fmt(t[0].step_ms / ff.step_ms, 4) : na) << " | ";
        for (int i = 0; i < 3; ++i) md << (i ? " / " : "") << (has(i) ? std::to_string(t[i].workers) : na);
        for (int i = 0; i < 3; ++i)
          md << " | " << (has(i) && ff.ok ? hi(i) + fmt(rel_throughput(t[i], ff, m.chips()), 4) : na);
        md << " |\n";
        // More throughput with fewer working chips is physically suspect unless both
        // allreduces were simulated at this size.
        for (int i = 0; i < 3; ++i)
          if (t[i].ok && ff.ok && t[i].workers < m.chips() && rel_throughput(t[i], ff, m.chips()) > 1 &&
              !(t[i].simulated && ff.simulated))
            unphysical.push_back(m.name() + " " + g.model + " " + g.dtype() + " " + c.name() + " " + kAlgos[i] +
                                 ": throughput " + fmt(rel_throughput(t[i], ff, m.chips()), 4) + " with " +
                                 std::to_string(t[i].workers) + " of " + std::to_string(m.chips()) +
                                 " chips working, from a fit");
        Json jt = {{"machine", m.name()}, {"model", g.model}, {"dtype", g.dtype()}, {"bytes", g.bytes()}, {"case", c.name()}};
        for (int i = 0; i < 3; ++i)
          if (t[i].ok)
            jt[kAlgos[i]] = {{"allreduce_ms", t[i].ar_ms}, {"source", tag(t[i].simulated)}, {"step_ms", t[i].step_ms},
                             {"workers", t[i].workers}, {"throughput", ff.ok ? rel_throughput(t[i], ff, m.chips()) : NAN}};
          else if (t[i].cut)
            jt[kAlgos[i]] = {{"allreduce_ms_at_least", t[i].ar_ms}, {"source", "bound"},
                             {"step_ms_at_least", t[i].step_ms}, {"workers", t[i].workers},
                             {"throughput_at_most", ff.ok ? rel_throughput(t[i], ff, m.chips()) : NAN}};
        jtrain.push_back(jt);
      }
    }
    md << "\n";
  }
  data["training"] = jtrain;
}

void Report::write_physics() {
  md << "## Physics checks\n\n"
     << "Every fitted allreduce time at a gradient size must be at least its schedule's link-load bound (fits "
     << "table), and no case with fewer working chips may show more training throughput than the fault-free "
     << "machine unless both were simulated. "
     << (o.quick ? "In quick mode the sizes are latency-bound, so failures here are expected and listed only; a full "
                   "report with any of them exits with an error."
                 : "A report with any failure here exits with an error.")
     << "\n\n";
  if (unphysical.empty()) md << "All pass.\n\n";
  for (const std::string& u : unphysical) md << "- **fails**: " << u << "\n";
  if (!unphysical.empty()) md << "\n";
  data["physics_failures"] = unphysical;
}

// Generated from the numbers above (BERT-large fp32).
void Report::write_observations() {
  md << "## Observations\n\n"
     << "Generated from the tables above for BERT-large fp32 (fit): the range of ft2d's allreduce slowdown over "
     << "the fault cases, and per case the algorithm with the highest training throughput.\n\n";
  for (const Machine& m : machines) {
    const Gradient& g = grad(Net::BertLarge, DType::FP32);
    const Train ff = train(series[skey(m, CaseId::FaultFree, "ft2d")], g, o.overlap);
    if (!ff.ok) {
      md << "- " << m.mesh() << " " << m.topo_name() << ": the fault-free ft2d runs failed; nothing to compare.\n";
      continue;
    }
    double lo = INFINITY, hi = 0;
    std::string best;
    for (const Case& c : cases[m.name()]) {
      if (c.id == CaseId::FaultFree || c.mid) continue;  // the mid-run failure is a one-off cost
      const Train t0 = train(series[skey(m, c.id, "ft2d")], g, o.overlap);
      if (t0.ok) lo = std::min(lo, t0.ar_ms / ff.ar_ms), hi = std::max(hi, t0.ar_ms / ff.ar_ms);
      double bt = -1;
      std::string ba = "none";
      for (const char* a : kAlgos) {
        const Train t = train(series[skey(m, c.id, a)], g, o.overlap);
        if (t.ok && rel_throughput(t, ff, m.chips()) > bt) bt = rel_throughput(t, ff, m.chips()), ba = a;
      }
      best += std::string(best.empty() ? "" : "; ") + c.name() + " " + ba + (bt >= 0 ? " (" + fmt(bt, 3) + ")" : "");
    }
    md << "- " << m.mesh() << " " << m.topo_name() << ": the failed chips alone cost " << fmt(100.0 * 4 / m.chips(), 2)
       << " % of the throughput for one board (" << m.chips() - 4 << " of " << m.chips() << " chips work) and "
       << fmt(100.0 * 8 / m.chips(), 2) << " % for two; ft2d allreduce " << (hi > 0 ? fmt(lo, 2) + "x to " + fmt(hi, 2) + "x" : "n/a")
       << " the fault-free time; best throughput: " << best << ".\n";
  }
  md << "\n";
}

}  // namespace fm::paper_report
