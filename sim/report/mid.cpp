// faultmesh report paper: the section on a board failing during the allreduce (the
// board_mid runs: their timelines split into work lost, detection, recovery and rerun,
// and the cost per failure event).
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

namespace {

// The interrupted allreduce's time split along its timeline (cycles from the run's JSON):
// the work before the fault (start to fault), detection, recovery (drain, flush, table
// writes) and the rerun (restart to complete). Not ok when an event is missing.
struct MidSplit {
  bool ok = false;
  double lost = 0, detect = 0, recover = 0, rerun = 0;  // us
};
MidSplit mid_split(const Json& j) {
  MidSplit m;
  const double cycles = j.value(rk::kCycles, 0.0), us = j.value(rk::kTimeUs, 0.0);
  if (!(cycles > 0) || !j.contains(rk::kTimeline)) return m;
  const double per = us / cycles;
  double fault = -1, det = -1, reconf = -1, restart = -1, done = -1;
  for (const Json& e : j[rk::kTimeline]) {
    const std::string ev = e.value("event", "");
    const double c = e.value("cycle", 0.0);
    auto is = [&](const char* k) { return ev.rfind(k, 0) == 0; };
    if (is("fault:") && fault < 0) fault = c;
    if (is("detected:") && det < 0) det = c;
    if (is("reconfigured:")) reconf = c;
    if (is("restart:")) restart = c;
    if (is("complete")) done = c;
  }
  if (fault < 0 || det < fault || reconf < det || restart < reconf || done < restart) return m;
  const double start = j.value(rk::kStartCycle, 0.0);
  m = {true, (fault - start) * per, (det - fault) * per, (reconf - det) * per, (done - restart) * per};
  return m;
}

}  // namespace

double Report::mid_extra_ms(const Machine& m, const Gradient& g, const std::string& algo, bool* simulated) {
  const Train t = train(series[skey(m, CaseId::BoardMid, algo)], g, o.overlap);
  const Train ff = train(series[skey(m, CaseId::FaultFree, algo)], g, o.overlap);
  if (!t.ok || !ff.ok) return NAN;
  if (simulated) *simulated = t.simulated && ff.simulated;
  return t.ar_ms - ff.ar_ms;
}

void Report::write_mid() {
  md << "## A board failing mid-allreduce\n\n";
  if (!mid) {
    md << "**Not yet available.** This case needs the mid-run fault controller (`faultmesh allreduce --fail-at "
          "CYCLE:board:bx,by`), which this build's `faultmesh allreduce --help` does not list. When it does, "
          "this command runs the case `board_mid` (the centre board failing at " << fmt(o.fail_at_frac, 2)
       << " of the fault-free ft2d time, `--fail-at-fraction`) for every algorithm and size, and it appears in "
          "the tables above. No number is given for it here.\n\n";
    return;
  }
  md << "Run with `--fail-at` at " << fmt(o.fail_at_frac, 2) << " of the fault-free time of the same "
     << "algorithm and size, the centre board failing. A failure happens once, in one step: it is a cost per "
     << "event, not a slowdown of every step (the steps after it run with the hole, the `board_centre` rows). "
     << "The interrupted allreduce's time, split along its timeline: the work before the fault (start to the "
     << "fault), detection, recovery (drain, flush, route tables) and the rerun on the live chips (`--recovery "
     << "resume`: what of the earlier work the new collective repeats on the same data is kept, the "
     << "contaminated ranges are restored and the rest runs, unless its busiest link would then carry more "
     << "than a restart's, when it restarts from the inputs; docs/faults.md \"Resume\"); extra = its time minus "
     << "the fault-free time of the same algorithm and size.\n\n"
     << "| machine | algo | bytes | lost us | detection us | recovery us | rerun us | total us | fault-free us | extra us |\n"
     << "|---|---|---|---|---|---|---|---|---|---|\n";
  Json jm = Json::array();
  std::vector<Point> mids = midpts;
  mids.insert(mids.end(), midwhole.begin(), midwhole.end());
  for (const Point& p : mids) {
    const Outcome& oc = res[p.name];
    const Estimate ffe = estimate(series[skey(p.m, CaseId::FaultFree, p.algo)], (double)p.bytes);
    const double ff_us = ffe.ok && ffe.simulated ? ffe.us : NAN;
    md << "| " << p.m.name() << " | " << p.algo << " | " << size_str(p.bytes) << " | ";
    const MidSplit sp = oc.ok ? mid_split(oc.j) : MidSplit{};
    if (!sp.ok) {
      md << (oc.ok ? "no restart in the timeline" : oc.pending ? "pending" : "failed: " + oc.error) << " | | | | | | |\n";
      continue;
    }
    const double total = oc.j.value(rk::kTimeUs, 0.0);
    md << fmt(sp.lost, 3) << " | " << fmt(sp.detect, 3) << " | " << fmt(sp.recover, 3) << " | " << fmt(sp.rerun, 3)
       << " | " << fmt(total, 3) << " | " << fmt(ff_us, 3) << " | " << fmt(total - ff_us, 3) << " |\n";
    jm.push_back({{"run", p.name}, {"machine", p.m.name()}, {"algo", p.algo}, {"bytes", p.bytes},
                  {"lost_us", sp.lost}, {"detection_us", sp.detect}, {"recovery_us", sp.recover},
                  {"rerun_us", sp.rerun}, {"time_us", total}, {"faultfree_us", ff_us}, {"extra_us", total - ff_us}});
  }
  data["mid_events"] = jm;
  // Per gradient: the extra time of one event and what it costs amortised over the
  // board failure rate of the availability study.
  md << "\nPer gradient, the extra time of one event (sim or fit, from the `board_mid` and `faultfree` series) and "
     << "amortised: with " << fmt(o.avail.mtbf_h, 0) << " h board MTBF a machine of B boards sees B x 24 / MTBF "
     << "failures a day, and the interrupted allreduces take that many times the extra (share of the day, in "
     << "parts per million, ft2d). The job's own reconfiguration per failure (" << fmt(o.avail.reconfig_h * 60, 1)
     << " min, `--reconfig-min`) costs far more; the availability study below charges both.\n\n"
     << "| machine | gradient | extra ms ft2d | shrink | snake | failures per day | ft2d ppm of the day |\n"
     << "|---|---|---|---|---|---|---|\n";
  Json ja = Json::array();
  std::string reconf;
  for (const Machine& m : machines) {
    const double per_day = m.chips() / 4.0 * 24 / o.avail.mtbf_h;
    for (const Gradient& g : grads) {
      md << "| " << m.name() << " | " << g.model << " " << g.dtype();
      Json jg = {{"machine", m.name()}, {"model", g.model}, {"dtype", g.dtype()}, {"failures_per_day", per_day}};
      double ft2d_ms = NAN;
      for (int i = 0; i < 3; ++i) {
        const char* a = kAlgos[i];
        bool sim = false;
        const double x = mid_extra_ms(m, g, a, &sim);
        if (i == 0) ft2d_ms = x;
        md << " | " << (std::isfinite(x) ? fmt(x, 4) + " " + tag(sim) : "n/a");
        if (std::isfinite(x)) jg[a] = {{"extra_ms", x}, {"source", tag(sim)}};
      }
      md << " | " << fmt(per_day, 3) << " | "
         << (std::isfinite(ft2d_ms) ? fmt(1e6 * per_day * ft2d_ms / 86.4e6, 4) : "n/a") << " |\n";
      ja.push_back(jg);
    }
    reconf += "- " + m.name() + ": " + fmt(per_day, 3) + " failures a day x " + fmt(o.avail.reconfig_h * 60, 1) +
              " min of reconfiguration = " + fmt(per_day * o.avail.reconfig_h * 3600, 1) + " s a day (" +
              fmt(100 * per_day * o.avail.reconfig_h / 24, 3) + " % of the time).\n";
  }
  md << "\n" << reconf;
  data["mid_amortised"] = ja;
  md << "\n";
}

}  // namespace fm::paper_report
