// faultmesh report paper (sim/report/paper_report.h): the paper's experiment as one command.
//
//  1. Points: for every machine (mesh size x topology), case (fault-free, one board at
//     the centre, edge and corner, two boards, one link; a board failing mid-allreduce
//     when `faultmesh allreduce` has --fail-at), algorithm (ft2d and the two baselines,
//     shrink and snake) and simulated size, one `faultmesh allreduce --verify off --json`
//     child process, --jobs at a time, in priority order (the headline's runs first,
//     Priority), within --budget. Each finished run is a record of the run store
//     (sim/report/run_store.h) and is not run again while its configuration, schedule
//     fingerprint and model version match, so a rerun resumes and the store accumulates.
//     With --whole on (the default outside quick mode) also the gradients themselves:
//     ResNet-50 bf16 everywhere, ResNet-50 fp32 and BERT-large on a few cases
//     (Report::plan_whole), run but not fitted.
//  2. Fits: time_us = a + b * bytes per (machine, case, algorithm) over the sizes, each
//     checked against the whole-size runs of its series.
//  3. Training: the allreduce time of each gradient (simulated whole where it was, else
//     fitted; ResNet-50, BERT-large; fp32,
//     bf16), the step time = compute + (1 - overlap) * allreduce, slowdowns, throughput
//     with the chips that are gone or idle; and the step with gradient buckets
//     (sim/report/gradient_buckets.h) overlapping the backward pass, each bucket size class
//     simulated (not in quick mode).
//  4. Availability: the Monte Carlo of sim/report/availability.h on the largest machine, with
//     the degraded speeds of step 3 (ft2d).
//  5. OUT/results.md, OUT/img/*.png (+ svg, gp), OUT/paper_data.json (every number).
//
// The steps are Report's stages (sim/report/impl.h), in sim/report/: the options in
// opts.cpp, the points in plan.cpp and their runs in runs.cpp, the fits and the training
// model in fit.cpp, the page's sections in page.cpp, the availability section in
// avail.cpp, the bucket section in buckets.cpp, the latency sensitivity in latency.cpp.
#include "sim/report/paper_report.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

#include "sim/cli.h"
#include "sim/io.h"
#include "sim/report/impl.h"
#include "sim/sweep.h"

namespace fm {

namespace paper_report {

std::string fmt(double v, int prec) {
  if (!std::isfinite(v)) return "n/a";
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", prec, v);
  return b;
}

std::string size_str(uint64_t b) {
  if (b % (1 << 20) == 0) return std::to_string(b >> 20) + "MiB";
  if (b % (1 << 10) == 0) return std::to_string(b >> 10) + "KiB";
  return std::to_string(b);
}

std::string tag(bool simulated) { return simulated ? "sim" : "fit"; }

const Machine& Report::biggest() const {
  return *std::max_element(machines.begin(), machines.end(), [](const Machine& a, const Machine& b) {
    return a.chips() < b.chips();
  });
}

}  // namespace paper_report

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

int cmd_report(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << "usage: faultmesh report paper [--quick] [--out DIR] [--jobs N] [options]\n"
                 "reports: paper   the Kumar & Jouppi experiment (faultmesh report paper --help)\n";
    return args.empty() ? kExitBadInput : kExitOk;
  }
  if (args[0] != "paper") throw UsageError("report '" + args[0] + "': allowed paper");
  bool help = false;
  paper_report::Report r;
  r.o = paper_report::parse_opts(std::vector<std::string>(args.begin() + 1, args.end()), &help);
  if (help) return kExitOk;
  const paper_report::Opts& o = r.o;
  r.store = std::make_unique<paper_report::RunStore>(o.store);  // throws on a malformed store
  r.fingerprints = std::make_unique<paper_report::FingerprintCache>(o.runs, !o.plan);
  if (o.plan) {  // nothing is run or written
    r.make_gradients();
    r.plan_points();
    r.print_plan(std::cout);
    return kExitOk;
  }
  make_dirs(o.out, "--out");
  make_dirs(o.out + "/img", "--out");
  if (!o.render_only) make_dirs(o.runs, "--runs");
  const std::string store_dir = o.store.find('/') == std::string::npos ? "." : o.store.substr(0, o.store.rfind('/'));
  make_dirs(store_dir, "--store");
  const auto t0 = Clock::now();

  r.make_gradients();  // 0. The gradients (their buckets set sizes to simulate).
  r.plan_points();     // 1. The points.
  r.run_all_points();
  r.fit_series();      // 2. Series and fits.
                       // 3. Training (the page's tables).
  r.write_intro();  // the title, the headline (write_headline), the set-up
  r.write_assumptions();
  r.write_runs();
  r.write_fits();
  r.write_checks();
  r.write_training();
  r.write_buckets();
  r.write_latency();
  r.write_physics();
  r.write_observations();
  r.write_mid();
  r.write_figures();
  r.write_availability();  // 4. Availability on the largest machine(s).
  r.write_files();         // 5. results.md, paper_data.json, the figures' list.
  std::cerr << "report: done in " << paper_report::fmt(std::chrono::duration<double>(Clock::now() - t0).count(), 1) << " s\n";
  // A run that failed leaves a hole in the page's numbers (its series is not fitted, its
  // rows say why): the page is written, but the report did not succeed.
  int failed = 0;
  for (const auto& [name, oc] : r.res) failed += !oc.ok && !oc.pending;
  if (failed) {
    std::cerr << "report: " << failed << " of " << r.res.size() << " runs failed (the page lists why); "
              << "rerun the same command to retry them\n";
    return kExitRunFailed;
  }
  if (!r.unphysical.empty()) {
    // The page is written (it lists them under "Physics checks"); a full report that
    // breaks a physical bound must not pass for a result.
    std::cerr << "report: " << r.unphysical.size() << " physics check" << (r.unphysical.size() > 1 ? "s" : "")
              << " failed, e.g. " << r.unphysical.front() << (r.o.quick ? " (quick mode: listed only)" : "") << "\n";
    if (!r.o.quick) return kExitRunFailed;
  }
  if (r.pending) {
    std::cerr << "report: " << r.pending << " of " << r.res.size() << " runs pending (not in the run store "
              << o.store << "); the page shows their numbers as pending; rerun, with --budget, to add them\n";
    return kExitIncomplete;
  }
  return kExitOk;
}

}  // namespace fm
