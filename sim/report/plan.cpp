// faultmesh report paper, step 1, the plan: the fault cases of each machine, the points
// (fitted sizes, whole gradients, bucket classes, sensitivities, checks) and the order
// --budget runs them in, and --plan's listing of them.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>

#include "models/config.h"
#include "models/model_version.h"
#include "sim/io.h"
#include "sim/options.h"
#include "sim/report/impl.h"
#include "sim/slurm.h"
#include "tb/traffic_run.h"
#include "tb/util/job_pool.h"
#include "tb/util/json_io.h"
#include "tb/util/subprocess.h"

namespace fm::paper_report {

namespace {

// The cases on a W x H machine (both multiples of 4, so the board grid is at least 2x2
// and the positions below are distinct boards).
std::vector<Case> cases_for(int W, int H, bool mid_available) {
  const int bw = W / 2, bh = H / 2;  // board grid
  std::vector<Case> c;
  c.push_back({CaseId::FaultFree, "fault-free", {}, 0});
  c.push_back({CaseId::BoardCentre, "1 board, centre (" + bstr(bw / 2, bh / 2) + ")", {"--fail-board", bstr(bw / 2, bh / 2)}, 1});
  c.push_back({CaseId::BoardEdge, "1 board, edge (" + bstr(bw / 2, 0) + ")", {"--fail-board", bstr(bw / 2, 0)}, 1});
  c.push_back({CaseId::BoardCorner, "1 board, corner (0,0)", {"--fail-board", "0,0"}, 1});
  const int ax = bw / 4, ay = bh / 4, bx = 3 * bw / 4, by = 3 * bh / 4;
  c.push_back({CaseId::TwoBoards, "2 boards (" + bstr(ax, ay) + ") (" + bstr(bx, by) + ")",
               {"--fail-board", bstr(ax, ay), "--fail-board", bstr(bx, by)}, 2});
  const std::string link = bstr(W / 2, H / 2) + ":E";
  c.push_back({CaseId::OneLink, "1 link (" + link + ")", {"--fail-link", link}, 0});
  if (mid_available) {
    Case m{CaseId::BoardMid, "1 board (" + bstr(bw / 2, bh / 2) + ") fails mid-allreduce", {}, 1, true, bw / 2, bh / 2};
    c.push_back(m);
  }
  return c;
}

// Whether `faultmesh allreduce` has the mid-run fault controller's --fail-at option.
bool fail_at_available() {
  try {
    const Captured c = run_capture({self_exe(), "allreduce", "--help"});
    return c.exit_code == 0 && c.out.find("--fail-at") != std::string::npos;
  } catch (const std::runtime_error&) {
    return false;
  }
}

}  // namespace

int buf_for_latency(int lat) {
  NetworkConfig n;
  n.link_latency = n.credit_latency = lat;
  return n.round_trip_buf();
}

std::vector<const Machine*> Report::latency_machines() const {
  // A full report's sensitivity runs on the machines with the fewest chips (both
  // topologies): the latency's effect on a ring step does not grow with the machine,
  // and those runs cost a third of the larger machines' chip-GB.
  std::vector<const Machine*> v;
  const int least = std::min_element(machines.begin(), machines.end(), [](const Machine& a, const Machine& b) {
                      return a.chips() < b.chips();
                    })->chips();
  for (const Machine& m : machines)
    if (o.quick ? &m == &biggest() : m.chips() == least) v.push_back(&m);
  return v;
}

void Report::plan_points() {
  mid = fail_at_available();
  for (const auto& [w, h] : o.meshes)
    for (const Topology t : o.topos) machines.push_back({w, h, t});
  // The headline's series: fault-free ft2d (the reference) and the centre board with each
  // algorithm.
  auto headline = [](CaseId c, const std::string& a) {
    return (c == CaseId::FaultFree && a == "ft2d") || c == CaseId::BoardCentre;
  };
  const int least = std::min_element(machines.begin(), machines.end(), [](const Machine& a, const Machine& b) {
                      return a.chips() < b.chips();
                    })->chips();
  for (const Machine& m : machines) {
    cases[m.name()] = cases_for(m.w, m.h, mid);
    for (const Case& c : cases[m.name()])
      for (const char* a : kAlgos)
        for (uint64_t b : o.sizes_of(m.mesh())) {
          Point p{m, c, a, b, m.name() + "_" + c.name() + "_" + a + "_" + size_str(b)};
          p.prio = headline(c.id, a) ? kPrioBert : kPrioCases;
          (c.mid ? midpts : stat).push_back(p);
        }
  }
  // The headline's series at each other link latency of the sensitivity, at the fitted
  // sizes, on the latency machines.
  for (const Machine* m : latency_machines())
    for (int lat : o.lat_sens) {
      if (lat == o.link_latency) continue;  // the report's own runs
      for (const Case& c : cases[m->name()])
        for (const char* a : kAlgos)
          if (headline(c.id, a))
            for (uint64_t b : o.sizes_of(m->mesh())) {
              Point p{*m, c, a, b, m->name() + "_" + c.name() + "_" + a + "_" + size_str(b) + "_lat" + std::to_string(lat), lat};
              p.prio = kPrioLatency;
              latpts.push_back(p);
            }
    }
  // The bucket classes of ft2d (the headline's bucket column) fault-free and with the
  // centre board, on the smallest machines; unless a fitted size is one. The other
  // machines' and algorithms' bucket times come from their fits, inside the regime the
  // whole-size runs check (the classes lie between the fitted sizes and the largest
  // whole-size run).
  if (o.bucket_runs)
    for (const Machine& m : machines) {
      if (m.chips() != least) continue;
      for (CaseId c : {CaseId::FaultFree, CaseId::BoardCentre})
        for (uint64_t b : bucket_classes()) {
          const auto& fitted = o.sizes_of(m.mesh());
          if (std::find(fitted.begin(), fitted.end(), b) != fitted.end()) continue;
          const Case& cs = *std::find_if(cases[m.name()].begin(), cases[m.name()].end(),
                                         [&](const Case& x) { return x.id == c; });
          Point p{m, cs, "ft2d", b, m.name() + "_" + cs.name() + "_ft2d_" + size_str(b)};
          p.prio = kPrioBuckets;
          bucketpts.push_back(p);
        }
    }
  if (o.whole) plan_whole();
  // Extrapolation check: bigger runs on the smallest machine (per topology), not fitted.
  if (o.check_factor) {
    for (const Machine& m : machines)
      if (m.chips() == least)
        for (const Case& c : cases[m.name()])
          if (c.id == CaseId::FaultFree || c.id == CaseId::BoardCentre) {
            const uint64_t b = o.sizes_of(m.mesh()).back() * (uint64_t)o.check_factor;
            Point p{m, c, "ft2d", b, m.name() + "_" + c.name() + "_ft2d_" + size_str(b) + "_check"};
            p.prio = kPrioChecks;
            checks.push_back(p);
          }
  }
  // The heatmaps: ft2d on the largest machine before and after the centre board fails,
  // at ResNet-50 bf16 whole with --whole (headline runs), else the largest fitted size.
  const Machine& big = biggest();
  const std::string sz = size_str(o.whole ? (uint64_t)grad(Net::ResNet50, DType::BF16).bytes() : o.sizes_of(big.mesh()).back());
  heatmap_before = big.name() + "_faultfree_ft2d_" + sz;
  heatmap_after = big.name() + "_board_centre_ft2d_" + sz;
}

// The whole-size runs (--whole): ResNet-50 bf16 on every machine, case and algorithm;
// ResNet-50 fp32 fault-free and centre board with ft2d, and the centre board with the
// snake (which checks the snake's fits up to that size: Report::fit_series); BERT-large
// bf16 fault-free with
// ft2d on the smallest machines (each topology); BERT-large fp32 fault-free with ft2d on
// the first smallest torus, or the first smallest machine. A size already run as a
// fitted size or a bucket class is not run twice (its series has it simulated either
// way).
void Report::plan_whole() {
  std::set<std::string> have;
  for (const auto* v : {&stat, &midpts, &bucketpts})
    for (const Point& p : *v) have.insert(p.name);
  auto add = [&](const Machine& m, const Case& c, const char* a, double bytes, int prio) {
    const uint64_t b = (uint64_t)bytes;
    Point p{m, c, a, b, m.name() + "_" + c.name() + "_" + a + "_" + size_str(b)};
    p.prio = prio;
    if (have.insert(p.name).second) (c.mid ? midwhole : wholepts).push_back(p);
  };
  const Gradient& resnet_bf16 = grad(Net::ResNet50, DType::BF16);
  const Gradient& resnet_fp32 = grad(Net::ResNet50, DType::FP32);
  const Gradient& bert_fp32 = grad(Net::BertLarge, DType::FP32);
  const Gradient& bert_bf16 = grad(Net::BertLarge, DType::BF16);
  const int least = std::min_element(machines.begin(), machines.end(), [](const Machine& a, const Machine& b) {
                      return a.chips() < b.chips();
                    })->chips();
  const Machine* bert_fp32_on = nullptr;
  for (const Machine& m : machines)
    if (m.chips() == least && (!bert_fp32_on || (bert_fp32_on->topo != Topology::Torus && m.topo == Topology::Torus))) bert_fp32_on = &m;
  for (const Machine& m : machines)
    for (const Case& c : cases[m.name()]) {
      const bool head = c.id == CaseId::BoardCentre || c.id == CaseId::FaultFree;
      for (const char* a : kAlgos)
        add(m, c, a, resnet_bf16.bytes(), head && (c.id == CaseId::BoardCentre || std::string(a) == "ft2d") ? kPrioHeadline : kPrioCases);
      if (head) add(m, c, "ft2d", resnet_fp32.bytes(), kPrioChecks);
      if (c.id == CaseId::BoardCentre) add(m, c, "snake", resnet_fp32.bytes(), kPrioChecks);
      if (c.id == CaseId::FaultFree && m.chips() == least) add(m, c, "ft2d", bert_bf16.bytes(), kPrioBert);
      if (c.id == CaseId::FaultFree && &m == bert_fp32_on) add(m, c, "ft2d", bert_fp32.bytes(), kPrioBert);
    }
}

// Every point of the report in the order --budget runs them: by priority, then the
// fitted sizes (short runs a fit needs) before the whole-size runs that check them, each
// as planned (machines in --meshes x --topologies order), a mid-run failure after the
// fault-free run it times its failure from.
std::vector<const Point*> Report::ordered_points() const {
  std::vector<const Point*> v;
  for (const auto* g : {&stat, &wholepts, &bucketpts, &latpts, &checks, &midpts, &midwhole})
    for (const Point& p : *g) v.push_back(&p);
  std::stable_sort(v.begin(), v.end(), [](const Point* a, const Point* b) {
    return std::make_pair(a->prio, a->c.mid) < std::make_pair(b->prio, b->c.mid);
  });
  return v;
}

// --plan: every run the report needs in the order it runs them, one line each (name,
// priority class, chips, bytes per chip, whether the run store has it), then per class
// and in all the runs and chip-GB left and the hours they take at this host's measured
// rate (docs/sweeps.md, "The paper report's run store").
void Report::print_plan(std::ostream& out) const {
  int n = 0, done = 0;
  double left = 0, all = 0, secs_left = 0;
  struct Class {
    int runs = 0, done = 0;
    double gb = 0, gb_left = 0, secs_left = 0;
  };
  std::map<int, Class> per;
  for (const Point* pp : ordered_points()) {
    const Point& p = *pp;
    const bool d = stored_point(*this, p) != nullptr;
    const double gb = p.chip_gb(), secs = d ? 0 : expected_seconds(*this, p);
    out << p.name << "\t" << kPrioNames[p.prio] << "\t" << p.m.chips() << " chips\t" << p.bytes << " B\t"
        << fmt(gb, 3) << " chip-GB\t" << (d ? "done" : "to run") << "\n";
    ++n, done += d, all += gb, left += d ? 0 : gb, secs_left += secs;
    Class& c = per[p.prio];
    ++c.runs, c.done += d, c.gb += gb, c.gb_left += d ? 0 : gb, c.secs_left += secs;
  }
  const double rate = store->rate(host_cpu(), o.threads);
  for (const auto& [prio, c] : per)
    out << "class " << prio + 1 << " " << kPrioNames[prio] << ": " << c.runs << " runs, " << c.done << " done, "
        << fmt(c.gb_left, 1) << " of " << fmt(c.gb, 1) << " chip-GB left, " << fmt(c.secs_left / 3600 / o.jobs, 2)
        << " h\n";
  out << "report plan: " << n << " runs, " << done << " already done in " << o.store << ", " << n - done
      << " to run; " << fmt(left, 1) << " of " << fmt(all, 1) << " chip-GB left to simulate, about "
      << fmt(secs_left / 3600 / o.jobs, 1) << " h here (" << o.jobs << " at a time, " << o.threads << " thread"
      << (o.threads > 1 ? "s" : "") << " each, " << (rate > 0 ? "the store's rate on this CPU" : "the default rate")
      << ")\n";
}

}  // namespace fm::paper_report
