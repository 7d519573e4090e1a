// faultmesh report paper, step 4: the availability of the training job on the largest
// machine(s), by the Monte Carlo of sim/report/availability.h with the degraded speeds of the
// training model (ft2d, and the fastest algorithm per case), as a table and a figure, and
// a sensitivity table over the assumptions that move it most.
#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <tuple>

#include "models/noc/fault_set.h"
#include "sim/report/impl.h"
#include "sim/plot.h"

namespace fm::paper_report {

namespace {

// One parameter of the sensitivity table and the values it takes (the base value of the
// report's options is added where it is not among them).
struct Sweep {
  const char* name;  // as the table shows it
  const char* unit;
  double scale;      // the value in the unit, times this, is the AvailParams field (hours)
  std::vector<double> values;
  double AvailParams::*field;
};

std::vector<Sweep> sensitivity_sweeps() {
  return {{"board MTBF", "years", 8760, {0.5, 1, 2, 5}, &AvailParams::mtbf_h},
          {"board repair", "h", 1, {4, 12, 24, 48, 72}, &AvailParams::repair_h},
          {"checkpoint interval", "h", 1, {0.5, 1, 2, 4}, &AvailParams::ckpt_h},
          {"reconfiguration", "min", 1.0 / 60, {1.0 / 60, 1, 5, 30}, &AvailParams::reconfig_h}};
}

// A value of the table with its unit ("1 s" for a sixtieth of a minute, "1 year").
std::string value_str(double v, const std::string& unit) {
  if (unit == "min" && v == 1.0 / 60) return "1 s";
  return fmt(v, v == std::floor(v) ? 0 : 1) + " " + (v == 1 && unit == "years" ? "year" : unit);
}

// Whether a set of failed boards (ids bx + by * W/2) leaves every live chip of m able
// to reach every other; memoised in *memo, which must outlive the function returned.
HolesUsable holes_usable(const Machine& m, std::map<std::vector<int>, bool>* memo) {
  const int bw = m.w / 2;
  return [memo, &m, bw](const std::vector<int>& holes) {
    std::vector<int> k = holes;
    std::sort(k.begin(), k.end());
    const auto it = memo->find(k);
    if (it != memo->end()) return it->second;
    NetworkConfig n;
    n.width = m.w;
    n.height = m.h;
    n.topology = m.topo;
    for (int b : k) n.faults.boards.push_back({b % bw, b / bw});
    const bool u = FaultSet(n).connectivity().empty();
    (*memo)[k] = u;
    return u;
  };
}

// The mean and 95 % half-width of a Monte Carlo figure, as the table shows them.
std::string ci(const MeanCI& c, int p) { return fmt(c.mean, p) + " ± " + fmt(c.half, p); }
std::string days(const MeanCI& c) { return fmt(c.mean / 24, 1) + " ± " + fmt(c.half / 24, 1); }

}  // namespace

void Report::write_availability_intro() {
  const Machine& big = biggest();
  const std::string spare = o.avail.spare_slice_h ? "moves to a healthy spare slice after " + fmt(*o.avail.spare_slice_h, 2) + " h"
                                                  : "waits on its slice until every failed board is repaired (no spare slice)";
  md << "## Availability of a " << fmt(o.avail.work_h / 24, 0) << "-day job on " << big.chips() << " chips\n\n"
     << "Monte Carlo (sim/report/availability.cpp), " << o.seeds << " jobs per policy (seeds 1.." << o.seeds << "), "
     << "boards of 4 chips failing independently with exponential lifetimes, each replaced after "
     << fmt(o.avail.repair_h, 0) << " h. The job has " << fmt(o.avail.work_h / 24, 0) << " days of work on the "
     << "full, never-failing machine and runs until it is done. (a) stop-and-repair: every failure "
     << "stops the job, loses the work since the last checkpoint, " << spare << " and restarts. (b) route "
     << "around: the job reconfigures and continues with the degraded speed below; a failure beyond " << o.avail.max_holes
     << " holes, or one that cuts live chips off, falls back to (a); repaired boards rejoin at the next checkpoint. "
     << "Time-to-train = the job's wall time; goodput = its work / its wall time; "
     << "availability = fraction of the time the job runs. Mean and 95 % confidence interval (Student's t) over the jobs.\n\n"
     << "Degraded speed in (b), from the " << grad(o.avail_model, o.avail_dtype).model << " "
     << enum_name(o.avail_dtype) << " ft2d rows above: 1 hole = the mean of the centre, edge and corner cases, 2 holes = "
     << "the two-board case (relative throughput, including the lost chips); a random hole set is assumed to cost "
     << "what these placements cost. (b') uses, per case, the fastest of ft2d, shrink and snake instead. Rates above 1 "
     << "(an algorithm with holes beating fault-free ft2d, the reference) are capped at 1 in the simulation.\n\n"
     << "| machine | rate 1 hole | rate 2 holes | policy | goodput | time-to-train (days) | availability | failures | stops |\n"
     << "|---|---|---|---|---|---|---|---|---|\n";
}

bool Report::degraded_rates(const Machine& m, const Gradient& g, DegradedRates* r) {
  const Train ff = train(series[skey(m, CaseId::FaultFree, "ft2d")], g, o.overlap);
  int n1 = 0;
  r->one = 0;
  r->two = NAN;
  for (CaseId c : {CaseId::BoardCentre, CaseId::BoardEdge, CaseId::BoardCorner}) {
    const Train t = train(series[skey(m, c, "ft2d")], g, o.overlap);
    if (t.ok) r->one += rel_throughput(t, ff, m.chips()), ++n1;
  }
  const Train t2 = train(series[skey(m, CaseId::TwoBoards, "ft2d")], g, o.overlap);
  if (t2.ok && ff.ok) r->two = rel_throughput(t2, ff, m.chips());
  if (!ff.ok || n1 != 3 || !std::isfinite(r->two)) return false;
  r->one /= n1;
  // The same with the fastest of the three algorithms in each case (b'): what a job
  // that picks its collective after each failure would get.
  auto best_rate = [&](CaseId c) {
    double v = NAN;
    for (const char* a : kAlgos) {
      const Train t = train(series[skey(m, c, a)], g, o.overlap);
      if (t.ok) v = std::isfinite(v) ? std::max(v, rel_throughput(t, ff, m.chips())) : rel_throughput(t, ff, m.chips());
    }
    return v;
  };
  r->one_best = (best_rate(CaseId::BoardCentre) + best_rate(CaseId::BoardEdge) + best_rate(CaseId::BoardCorner)) / 3;
  r->two_best = best_rate(CaseId::TwoBoards);
  return true;
}

void Report::plot_availability(const std::string& rows, double gmin) {
  const Machine& big = biggest();
  std::ostringstream st;
  st << "set title 'Goodput of a " << fmt(o.avail.work_h / 24, 0) << "-day job, " << big.chips()
     << " chips, board MTBF " << fmt(o.avail.mtbf_h, 0) << " h (95 % CI)'\nset ylabel 'goodput'\n"
     << "set style data histograms\nset style histogram errorbars gap 2 lw 1.5\n"
     << "set style fill solid 0.85 border -1\nset grid ytics\nset yrange [" << fmt(std::max(0.0, std::floor(gmin * 20 - 1) / 20), 2)
     << ":1]\nset key below\n";
  const std::string d = plot_block("d");
  plot_script(o.out + "/img", "availability", {{"d", rows}}, st.str(),
              "plot " + d + " using 2:3:xtic(1) title '(a) stop-and-repair' lc 2, " + d +
                  " using 4:5 title '(b) route around (ft2d)' lc 1, " + d + " using 6:7 title '(b) fastest algorithm' lc 3",
              800, 500);
  figs.push_back("availability");
}

void Report::write_availability() {
  const Machine& big = biggest();
  write_availability_intro();
  const Gradient& ag = grad(o.avail_model, o.avail_dtype);
  Json javail = Json::array();
  std::ostringstream ad;  // the figure's data rows
  bool avail_any = false;
  double gmin = 1;
  int cut_off = 0;  // jobs the cap stopped, over every Monte Carlo of the section
  std::string avail_note, event_note;
  std::vector<AvailCase> ctxs;  // what the sensitivity table needs per machine
  // One hole-set memo per machine; reserved so that the `usable` closures kept in ctxs
  // keep pointing at theirs.
  std::vector<std::map<std::vector<int>, bool>> memos;
  memos.reserve(machines.size());
  for (const Machine& m : machines) {
    if (m.chips() != big.chips()) continue;
    DegradedRates dr;
    if (!degraded_rates(m, ag, &dr)) {
      md << "| " << m.name() << " | n/a | n/a | - | not computed: an ft2d run it needs failed | | | | |\n";
      continue;
    }
    const double r1 = dr.one, r2 = dr.two, r1b = dr.one_best, r2b = dr.two_best;
    AvailParams ap = o.avail;
    ap.boards = m.chips() / 4;
    ap.rate = {1.0, std::min(1.0, r1), std::min(1.0, r2)};
    // (b)'s down time per failure: the reconfiguration plus the extra time of the
    // allreduce the failure interrupts (ft2d's board_mid run, when there is one).
    const double event_ms = mid ? mid_extra_ms(m, ag, "ft2d") : NAN;
    const double event_h = std::isfinite(event_ms) && event_ms > 0 ? event_ms / 3.6e6 : 0;
    if (std::isfinite(event_ms))
      event_note += "- " + m.name() + ": one interrupted ft2d allreduce costs " + fmt(event_ms, 4) + " ms.\n";
    ctxs.push_back({&m, ap, nullptr, event_h});  // the assumptions; usable below
    ap.reconfig_h += event_h;
    AvailParams apb = ap;
    apb.rate = {1.0, std::min(1.0, r1b), std::min(1.0, r2b)};
    const HolesUsable usable = holes_usable(m, &memos.emplace_back());
    const AvailSummary a = availability_monte_carlo(ap, AvailPolicy::StopAndRepair, o.seeds, 1);
    const AvailSummary b = availability_monte_carlo(ap, AvailPolicy::RouteAround, o.seeds, 1, usable);
    const AvailSummary bb = availability_monte_carlo(apb, AvailPolicy::RouteAround, o.seeds, 1, usable);
    ctxs.back().usable = usable;
    cut_off += a.unfinished + b.unfinished + bb.unfinished;
    md << "| " << m.name() << " | " << fmt(r1, 4) << " | " << fmt(r2, 4) << " | (a) stop-and-repair | "
       << ci(a.goodput, 4) << " | " << days(a.time_h) << " | " << ci(a.availability, 4) << " | " << ci(a.failures, 2)
       << " | " << ci(a.stops, 2) << " |\n"
       << "| " << m.name() << " | | | (b) route around | " << ci(b.goodput, 4) << " | " << days(b.time_h) << " | "
       << ci(b.availability, 4) << " | " << ci(b.failures, 2) << " | " << ci(b.stops, 2) << " |\n"
       << "| " << m.name() << " | " << fmt(r1b, 4) << " | " << fmt(r2b, 4) << " | (b') route around, fastest algorithm per case | "
       << ci(bb.goodput, 4) << " | " << days(bb.time_h) << " | " << ci(bb.availability, 4) << " | " << ci(bb.failures, 2)
       << " | " << ci(bb.stops, 2) << " |\n";
    for (const auto& [pol, s, rate] : {std::tuple<std::string, AvailSummary, std::vector<double>>{"stop", a, ap.rate},
                                       {"route_around", b, ap.rate}, {"route_around_best", bb, apb.rate}})
      javail.push_back({{"machine", m.name()}, {"policy", pol}, {"rate", rate}, {"seeds", s.seeds},
                        {"goodput", s.goodput.mean}, {"goodput_ci95", s.goodput.half},
                        {"time_to_train_h", s.time_h.mean}, {"time_to_train_h_ci95", s.time_h.half},
                        {"unfinished", s.unfinished},
                        {"availability", s.availability.mean}, {"availability_ci95", s.availability.half},
                        {"failures", s.failures.mean}, {"stops", s.stops.mean}});
    ad << "\"" << m.name() << "\" " << a.goodput.mean << " " << a.goodput.half << " " << b.goodput.mean << " "
       << b.goodput.half << " " << bb.goodput.mean << " " << bb.goodput.half << "\n";
    const double diff = b.goodput.mean - a.goodput.mean, err = a.goodput.half + b.goodput.half;
    avail_note += "- " + m.mesh() + " " + m.topo_name() + ": route-around goodput " + (diff >= 0 ? "exceeds" : "is below") +
                  " stop-and-repair by " + fmt(std::fabs(diff), 4) + (std::fabs(diff) > err ? "" : " (within the confidence intervals)") +
                  (diff < 0 ? ": with these step times a degraded machine running until the repair loses more than stopping does; "
                              "a faster fault-tolerant allreduce or a shorter repair time changes that" : "") + ".\n";
    gmin = std::min({gmin, a.goodput.mean - a.goodput.half, b.goodput.mean - b.goodput.half,
                     bb.goodput.mean - bb.goodput.half});
    avail_any = true;
  }
  data["availability"] = javail;
  if (!event_note.empty())
    md << "\n(b) charges every failure its reconfiguration plus the extra time of the allreduce it interrupts "
       << "(\"A board failing mid-allreduce\" above):\n" << event_note;
  if (avail_any) {
    plot_availability(ad.str(), gmin);
    md << "\n" << avail_note << "\n![goodput](img/availability.png)\n";
  }
  write_sensitivity(ctxs, &cut_off);
  if (cut_off)
    md << "\n" << cut_off << " simulated jobs of this section did not finish within " << fmt(kJobCap, 0)
       << "x their failure-free time; their time-to-train counts as that cap, so those means are lower bounds.\n";
}

void Report::write_sensitivity(const std::vector<AvailCase>& cs, int* cut_off) {
  if (cs.empty()) return;
  md << "\n### Sensitivity\n\n"
     << "One assumption at a time over its range, the others as above (the base row is marked), " << o.seeds
     << " jobs per cell, the same seeds in every cell: goodput and time-to-train in days, mean ± 95 % interval. "
     << "(b) uses the ft2d rates above.\n\n"
     << "| machine | assumption | value | (a) goodput | (a) days | (b) goodput | (b) days |\n"
     << "|---|---|---|---|---|---|---|\n";
  Json js = Json::array();
  for (const AvailCase& c : cs) {
    for (const Sweep& sw : sensitivity_sweeps()) {
      std::vector<double> vals = sw.values;
      const double base = c.ap.*sw.field / sw.scale;
      bool has_base = false;
      for (double v : vals) has_base |= std::fabs(v - base) <= 1e-9 * std::max(1.0, base);
      if (!has_base) vals.push_back(base);
      std::sort(vals.begin(), vals.end());
      for (double v : vals) {
        AvailParams p = c.ap;
        p.*sw.field = v * sw.scale;
        p.reconfig_h += c.event_h;  // the assumption moves, not the event
        const AvailSummary a = availability_monte_carlo(p, AvailPolicy::StopAndRepair, o.seeds, 1);
        const AvailSummary b = availability_monte_carlo(p, AvailPolicy::RouteAround, o.seeds, 1, c.usable);
        *cut_off += a.unfinished + b.unfinished;
        const bool is_base = std::fabs(v - base) <= 1e-9 * std::max(1.0, base);
        md << "| " << c.m->name() << " | " << sw.name << " | " << value_str(v, sw.unit) << (is_base ? " (base)" : "") << " | " << ci(a.goodput, 4) << " | " << fmt(a.time_h.mean / 24, 1) << " ± "
           << fmt(a.time_h.half / 24, 1) << " | " << ci(b.goodput, 4) << " | " << fmt(b.time_h.mean / 24, 1) << " ± "
           << fmt(b.time_h.half / 24, 1) << " |\n";
        js.push_back({{"machine", c.m->name()}, {"assumption", sw.name}, {"unit", sw.unit}, {"value", v},
                      {"base", is_base}, {"stop_goodput", a.goodput.mean}, {"stop_goodput_ci95", a.goodput.half},
                      {"stop_time_h", a.time_h.mean}, {"stop_time_h_ci95", a.time_h.half},
                      {"route_around_goodput", b.goodput.mean}, {"route_around_goodput_ci95", b.goodput.half},
                      {"route_around_time_h", b.time_h.mean}, {"route_around_time_h_ci95", b.time_h.half},
                      {"unfinished", a.unfinished + b.unfinished}});
      }
    }
  }
  data["availability_sensitivity"] = js;
}

}  // namespace fm::paper_report
