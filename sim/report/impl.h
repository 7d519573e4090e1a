// The parts of `faultmesh report paper` (sim/report/paper_report.h) that its files share: the
// options, the machines, cases and points, the fitted series, and the Report whose stages
// cmd_report runs in order (each stage is defined in the file of sim/report/ named beside
// it). Private to sim/report/.
#pragma once
#include <cstdint>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/config.h"
#include "sim/report/availability.h"
#include "sim/report/gradient_buckets.h"
#include "sim/report/paper_report.h"
#include "sim/report/run_store.h"
#include "sim/slurm.h"
#include "tb/result_keys.h"

namespace fm::paper_report {

// Where the report's runs go: child processes here, or Slurm job arrays.
enum class Backend { Local, Slurm };
// The networks whose training the report models, and their gradients' element types.
enum class Net { ResNet50, BertLarge };
enum class DType { FP32, BF16 };
// The report's fault cases (plan.cpp, cases_for): their names make the runs' names.
enum class CaseId { FaultFree, BoardCentre, BoardEdge, BoardCorner, TwoBoards, OneLink, BoardMid };

}  // namespace fm::paper_report

namespace fm {
template <>
struct EnumNames<paper_report::Backend> {
  static constexpr EnumName<paper_report::Backend> table[] = {{paper_report::Backend::Local, "local"},
                                                              {paper_report::Backend::Slurm, "slurm"}};
};
// The option names (--avail-model); Gradient::model is the display name.
template <>
struct EnumNames<paper_report::Net> {
  static constexpr EnumName<paper_report::Net> table[] = {{paper_report::Net::ResNet50, "resnet"},
                                                          {paper_report::Net::BertLarge, "bert"}};
};
template <>
struct EnumNames<paper_report::CaseId> {
  static constexpr EnumName<paper_report::CaseId> table[] = {
      {paper_report::CaseId::FaultFree, "faultfree"},   {paper_report::CaseId::BoardCentre, "board_centre"},
      {paper_report::CaseId::BoardEdge, "board_edge"},  {paper_report::CaseId::BoardCorner, "board_corner"},
      {paper_report::CaseId::TwoBoards, "two_boards"},  {paper_report::CaseId::OneLink, "one_link"},
      {paper_report::CaseId::BoardMid, "board_mid"}};
};
template <>
struct EnumNames<paper_report::DType> {
  static constexpr EnumName<paper_report::DType> table[] = {{paper_report::DType::FP32, "fp32"},
                                                            {paper_report::DType::BF16, "bf16"}};
};
}  // namespace fm

namespace fm::paper_report {

using Json = nlohmann::ordered_json;
// The result keys the report reads from a run and its record (tb/result_keys.h).
namespace rk = result_key;

inline constexpr const char* kAlgos[] = {"ft2d", "shrink", "snake"};  // the algorithm, then the baselines
// The fitted sizes of a full report: bandwidth-bound (a line's 64 KiB chunks pipeline
// over tens of steps) and with the chunk the whole-size runs use (chunk auto is
// bytes/256 capped at 64 KiB, reached from 16 MiB on), so the fits hold in the regime
// they are used in; every fit is checked against the whole-size runs (ResNet-50 at
// 51.2 and 102.4 MB, BERT-large at 680 MB and 1.36 GB), which is what makes two sizes
// enough (docs/training-model.md: at 16-64 MiB the fit predicts the whole ResNet-50
// runs within 0.32 %).
inline constexpr const char* kFullSizes = "16MiB,32MiB";
// Every algorithm of the report runs at the best set-up measured in docs/collectives.md
// ("ft2d against the best fault-free 2d"): both orders at once on half the data each,
// and per line the lower link load (a ring where it closes, a chain where it cannot).
inline constexpr const char* kReportOrder = "both";
inline constexpr const char* kReportLine = "auto";
// The report's runs in the order they are worth running (--budget runs them in this
// order, and --plan lists them so): the answer first.
enum Priority : int {
  kPrioHeadline = 0,  // ResNet-50 bf16 whole: fault-free ft2d and the centre board, each algorithm
  kPrioBert = 1,      // what BERT-large's headline needs: those series' fitted sizes and the whole
                      // bf16 and fp32 runs that check the fits up to its sizes
  kPrioCases = 2,     // the other cases (edge, corner, two boards, one link, mid-run)
  kPrioChecks = 3,    // ResNet-50 fp32 whole, fault-free and centre board (the snake: centre board):
                      // the fits' check at that size
  kPrioBuckets = 4,   // the bucket size classes (a sensitivity of the overlap model)
  kPrioLatency = 5,   // the link-latency sensitivity
};
inline constexpr const char* kPrioNames[] = {"headline ResNet-50", "headline BERT-large", "other cases",
                                             "fp32 checks", "bucket classes", "latency sensitivity"};
// The host's simulation rate before the store has a run made on it, chip-GB per second
// of one run at 1 and 2 threads: a 16x32 torus ft2d allreduce of 51.2 MB per chip with
// the centre board failed, 200-cycle links, took 99 s at 2 threads on a 2-core
// x86-64 host (26.2 chip-GB); 1 thread taken as 55 % of that rate. `faultmesh bench
// --case report --threads 1,2` measures the report's mix on any host.
inline constexpr double kDefaultRate2 = 0.26, kDefaultRate1 = 0.145;
// The availability Monte Carlo cuts a job off at this multiple of its failure-free time
// (the report counts such jobs): the slowest case of its sensitivity table, (a) with a
// 6-month board MTBF, takes about 16x.
inline constexpr double kJobCap = 50;

struct Machine {
  int w = 0, h = 0;
  Topology topo = Topology::Mesh;
  const char* topo_name() const { return enum_name(topo); }
  std::string mesh() const { return std::to_string(w) + "x" + std::to_string(h); }
  std::string name() const { return mesh() + "_" + topo_name(); }
  int chips() const { return w * h; }
};

// One fault scenario. Boards are 2x2 chips (the TPU-v3 board; --board default).
struct Case {
  CaseId id = CaseId::FaultFree;
  std::string title;
  const char* name() const { return enum_name(id); }  // in run names, tables and the page data
  std::vector<std::string> args;  // allreduce fault options
  int holes = 0;                  // failed boards
  bool mid = false;               // the board fails during the allreduce (--fail-at)
  int mid_bx = 0, mid_by = 0;
};

// One `faultmesh allreduce` run of the report.
struct Point {
  Machine m;
  Case c;
  std::string algo;
  uint64_t bytes = 0;
  std::string name;  // file stem in the runs directory
  int lat = 0;       // a latency-sensitivity run's link latency (0: the report's --link-latency)
  int prio = kPrioCases;
  double chip_gb() const { return (double)m.chips() * (double)bytes / 1e9; }
};

// How a point's run ended.
struct Outcome {
  bool ok = false;
  bool pending = false;  // not in the run store yet (not run within --budget, or --render-only)
  Json j;                // the run's record (its result's fields the page reads) when ok
  std::string error;     // why not
};

// A gradient: parameters x element size.
struct Gradient {
  Net net = Net::ResNet50;
  DType type = DType::FP32;
  std::string model;  // its display name: ResNet-50, BERT-large
  const char* dtype() const { return enum_name(type); }
  double params = 0;
  int elem = 4;
  double bytes() const { return params * elem; }
  double compute_ms = 0;
  const std::vector<Layer>* layers = nullptr;  // its per-layer table (gradient buckets)
};

// The report's options (parse_opts).
struct Opts {
  bool quick = false;
  std::string out, runs;
  std::string store;         // the run store (sim/report/run_store.h), default OUT/paper/runs.jsonl
  double budget_s = 0;       // --budget: start no run its estimate says ends later (0: no limit)
  bool render_only = false;  // --render-only: the page from the store, nothing run
  Backend backend = Backend::Local;  // local: child processes here; slurm: one job array per batch
  SlurmOptions slurm;             // --partition, --account, --time, --sbatch-arg, --jobs, --threads
  int jobs = 1;     // local: runs at once; slurm: the array throttle (0 = none)
  int threads = 1;  // each run's --threads (a host resource: not part of a run's identity)
  std::vector<std::pair<int, int>> meshes;
  std::vector<Topology> topos;
  std::vector<uint64_t> sizes;
  double resnet_params = 25.6e6, bert_params = 340e6;
  double resnet_ms = 16, bert_ms = 170, overlap = 0;
  double bucket_mib = 25;   // gradient bucket cap, MiB (DDP's bucket_cap_mb)
  bool bucket_runs = true;  // simulate every bucket class (default: not in quick mode)
  int link_latency = 200;   // ICI link and credit latency, cycles (--link-latency)
  std::vector<int> lat_sens = {1, 10, 100, 500};  // --latency-sensitivity (empty: off)
  double fail_at_frac = 0.5;
  int check_factor = 4;
  bool whole = true;         // --whole: the gradients simulated whole (wholepts)
  bool plan = false;         // --plan: list the runs and exit
  bool sizes_given = false;  // --sizes or --mesh-sizes override the mode's default sizes
  std::map<std::string, std::vector<uint64_t>> mesh_sizes;  // per machine WxH, else `sizes`
  const std::vector<uint64_t>& sizes_of(const std::string& mesh) const {
    const auto it = mesh_sizes.find(mesh);
    return it == mesh_sizes.end() ? sizes : it->second;
  }
  AvailParams avail;  // work_h: --job-days; horizon_h: kJobCap x work_h
  int seeds = 1000;
  Net avail_model = Net::BertLarge;  // the gradient whose step times drive the availability model
  DType avail_dtype = DType::FP32;
  std::vector<std::string> argv;  // as given, for the report's header
};

// --- shared helpers (sim/report/paper_report.cpp) ---------------------------------------------

// A number with `prec` decimals, "n/a" when not finite.
std::string fmt(double v, int prec = 3);
// How a number was obtained: "sim" (simulated at that size) or "fit".
std::string tag(bool simulated);
// Bytes as the report names them: 1MiB, 64KiB, else the plain number.
std::string size_str(uint64_t b);

// --- options (sim/report/opts.cpp) -------------------------------------------------

// The report's options from its arguments (after "paper"); prints the help and sets
// *help instead when asked. Throws UsageError on bad input.
Opts parse_opts(const std::vector<std::string>& args, bool* help);

// --- analysis (sim/report/fit.cpp) -------------------------------------------------

struct Series {  // one (machine, case, algorithm): its simulated sizes and their fit
  std::vector<std::pair<double, double>> xy;  // (bytes, time_us)
  LinearFit fit;
  std::vector<std::pair<double, double>> unfitted;  // simulated, not in the fit: the bucket classes
  int participants = 0, live = 0;
  std::string error;  // the first failed point's reason
  bool pending = false;  // a point of it is not in the run store yet
  // The largest size at which a whole-size run checked a fit (with --whole; infinite
  // without): a fitted number beyond it is outside the checked regime, shown as pending
  // while the plan has a larger whole run of the same family to check it
  // (planned_upto), else cut: only its link-load bound is given (Estimate::cut).
  double checked_upto = INFINITY;
  double planned_upto = INFINITY;
  // The lowest link-load bound per byte of its simulated points (us/byte; 0 unknown):
  // no fitted time may fall below it (fit_below_bound).
  double bound_us_per_byte = 0;
};

// The key of a series in Report::series: machine, case id and algorithm, and the link
// latency of a latency-sensitivity series (0: the report's own).
std::string skey(const Machine& m, CaseId c, const std::string& a, int lat = 0);

// The VC buffer depth the report's runs use at link latency `lat` (credit latency the
// same): one VC's credit round trip (pipeline + link + credit + 1 cycles, as the
// simulator's cycle guard counts it) rounded up to 8 flits, so one VC alone keeps a link
// busy and a long link costs latency, not bandwidth.
int buf_for_latency(int lat);

// A coordinate as the options write it: "x,y".
inline std::string bstr(int x, int y) { return std::to_string(x) + "," + std::to_string(y); }

// A number for `bytes` from a series: simulated when that exact size was run (fitted or
// not), else from the fit; not ok when neither.
struct Estimate {
  bool ok = false;
  bool simulated = false;
  bool pending = false;  // not ok because runs are pending or the size is beyond the checked regime
  // Not ok because the size is beyond every whole run the plan makes of the series'
  // family (Series::planned_upto): no time is given, only bound_us, the link-load bound
  // at that size, which the allreduce cannot beat.
  bool cut = false;
  double us = 0;
  double bound_us = 0;
};
Estimate estimate(const Series& s, double bytes);

// A fitted (not simulated) time of `us` for `bytes` below the series' link-load bound:
// impossible, so a physics-check failure wherever it is shown.
bool fitted_below_bound(const Series& s, bool simulated, double us, double bytes);

// Training numbers of one (machine, gradient, case, algorithm).
struct Train {
  bool ok = false;
  bool simulated = false;
  bool pending = false;  // no number yet: its runs are not in the run store (Estimate::pending)
  // Not ok, cut (Estimate::cut): ar_ms and step_ms are lower bounds (the link-load
  // bound), so a throughput from them is an upper bound.
  bool cut = false;
  double ar_ms = 0, step_ms = 0;
  int workers = 0;  // chips whose gradients are summed (do useful work)
};

// The allreduce and step time of gradient `g` from series `s` (simulated at that exact
// size, else fitted); not ok when the series has neither.
Train train(const Series& s, const Gradient& g, double overlap);

// Relative training throughput (samples/s vs the fault-free machine with ft2d): per-chip
// batch fixed, so samples per step scale with the working chips.
double rel_throughput(const Train& t, const Train& ff, int chips);

// What the page shows for a missing number: "pending" while its runs are not in the run
// store, else "n/a" (a run failed or the series has no fit).
inline const char* missing(const Train& t) { return t.pending ? "pending" : t.cut ? "cut" : "n/a"; }

// --- the report's stages -----------------------------------------------------------------

// One run of the report: what its stages share, filled in the order cmd_report calls them.
struct Report {
  Opts o;
  bool mid = false;                                // `faultmesh allreduce` has --fail-at
  std::vector<Machine> machines;                   // every mesh size x topology
  std::map<std::string, std::vector<Case>> cases;  // per Machine::name()
  std::vector<Point> stat, midpts;                 // points without / with a mid-run failure
  std::vector<Point> all;                          // stat then midpts: the fitted points
  std::vector<Point> checks;                       // the extrapolation check (not fitted)
  std::vector<Point> bucketpts;                    // the bucket classes' runs (not fitted)
  // The gradients simulated whole (--whole; not fitted: they check the fits), without and
  // with a mid-run failure (the latter time their failure from the former).
  std::vector<Point> wholepts, midwhole;
  std::vector<Point> latpts;                       // the latency-sensitivity runs (their own series)
  std::map<std::string, Outcome> res;              // per Point::name
  std::map<std::string, Series> series;            // per skey()
  std::vector<Gradient> grads;                     // ResNet-50 and BERT-large, fp32 and bf16
  const Gradient& grad(Net n, DType t) const {
    for (const Gradient& g : grads)
      if (g.net == n && g.type == t) return g;
    throw std::logic_error("no such gradient");
  }
  Json data;                                       // becomes OUT/paper_data.json
  std::ostringstream md;                           // becomes OUT/results.md
  std::vector<std::string> figs;                   // the figures written to OUT/img/
  std::vector<std::string> unphysical;             // the physics checks' failures (write_physics)
  // How this report's runs went (the page's "This report" line): runs reused from the
  // runs directory, runs started now, their wall time, and the Slurm jobs they ran in.
  int reused = 0, ran_now = 0, pending = 0;
  double run_seconds = 0;
  std::unique_ptr<RunStore> store;  // opened by cmd_report
  std::unique_ptr<FingerprintCache> fingerprints;  // the store's keys' fingerprints (cmd_report)
  std::string commit;               // the source the runs are made from (source_commit)
  double deadline_s = 0;            // seconds since the report started after which no run may end (0: none)
  // The largest gradient size at which a whole-size run has checked a fit (0: none):
  // a fitted number beyond it is outside the checked regime and shown as pending.
  double checked_upto = 0;
  double snake_checked_upto = 0;  // the same for the snake's fits, by whole-size snake runs
  double snake_planned_upto = 0;  // the largest whole-size snake run in the plan
  std::vector<std::string> slurm_jobs;

  // The runs the heatmaps are drawn from (plan_points): ft2d on the largest machine,
  // fault-free and with the centre board failed; their records keep the per-link map.
  std::string heatmap_before, heatmap_after;

  // The machine with the most chips (the first of them): heatmaps and availability.
  const Machine& biggest() const;

  // 1. (plan.cpp) The machines, their cases and one point per case, algorithm and size.
  void plan_points();
  void plan_whole();  // the whole-size runs (--whole), called by plan_points()
  // (plan.cpp) --plan: the runs plan_points() chose, which are done, and the work left.
  void print_plan(std::ostream& out) const;
  // (plan.cpp) Every point in the order the report runs them (Priority).
  std::vector<const Point*> ordered_points() const;
  // 1. (runs.cpp) Runs the points not in the run store, in priority order (a mid-run
  // failure once the fault-free run it times its failure from has ended).
  void run_all_points();
  // 2. (fit.cpp) Groups the outcomes into series and fits each one without a failed run.
  void fit_series();
  // 0. (fit.cpp) The gradients the training model uses, from the options (before the
  // points: their buckets set the bucket classes' sizes).
  void make_gradients();
  // (buckets.cpp) A gradient's buckets at --bucket-mb, in allreduce order.
  std::vector<Bucket> buckets_of(const Gradient& g) const;
  // (buckets.cpp) The size classes every gradient's buckets are simulated at, ascending.
  std::vector<uint64_t> bucket_classes() const;
  // (page.cpp) The page's title, the headline, the set-up, and the data's command, sizes and mode.
  void write_intro();
  // (page.cpp) The paper's question answered first: per machine and gradient, the
  // training-throughput change with one failed board (centre) under ft2d, shrink and
  // snake, the part of it that is the lost chips, and the step-time change, each marked
  // sim or fit; the same numbers as the training table's rows.
  void write_headline();
  // (page.cpp) The assumptions table: every modelled value, its option and its source.
  void write_assumptions();
  // (page.cpp) Every simulated run and its slowdown, then the failed runs' reasons.
  void write_runs();
  // (tables.cpp) The fitted a and b of every series with their residuals.
  void write_fits();
  // (page.cpp) The set-up's line on what is simulated whole (--whole) and what is fitted.
  std::string whole_text() const;
  // (tables.cpp) "Extrapolation check: fits against larger runs": the check's larger runs
  // and the whole-size runs against their fits' predictions, with the largest error.
  void write_checks();
  // (tables.cpp) Per machine, the training step of every gradient, case and algorithm.
  void write_training();
  // (buckets.cpp) The step of gradient g with buckets on (m, case c, algorithm a); sim
  // only when every bucket's class was simulated; not ok when a class has no number.
  // A fitted class time below its link-load bound goes to `unphysical` (once per
  // series and class: flagged_classes).
  struct Bucketed {
    bool ok = true, simulated = true;
    bool pending = false;  // a class's number waits for runs (Estimate::pending)
    BucketStep st;
  };
  Bucketed bucketed(const Machine& m, CaseId c, const std::string& a, const Gradient& g);
  std::set<std::string> flagged_classes;
  // (buckets.cpp) The step with gradient buckets overlapping the backward pass, beside
  // the no-overlap step, for the fault-free and centre-board cases; adds fitted bucket
  // times below their link-load bound to `unphysical`.
  void write_buckets();
  // The machines of the latency sensitivity: those with the fewest chips in a full
  // report, the first of the largest in quick mode.
  std::vector<const Machine*> latency_machines() const;
  // (latency.cpp) The headline's rows at each link latency of --latency-sensitivity.
  void write_latency();
  // (tables.cpp) Adds to `unphysical` the first gradient size at which series s's fit is
  // below its link-load bound, named `what` (write_fits, write_latency).
  void check_fit(const Series& s, const std::string& what);
  // (tables.cpp) The physics checks' failures found by write_fits and write_training.
  void write_physics();
  // (tables.cpp) Sentences generated from the BERT-large fp32 numbers.
  void write_observations();
  // (mid.cpp) The mid-allreduce failure case as a cost per event: its timeline split per
  // simulated run, the extra time per gradient and its amortised cost; or why it did not run.
  void write_mid();
  // The extra time (ms) one mid-allreduce failure adds to the step with `algo` and
  // gradient g on m (the board_mid series against the fault-free one; *simulated when
  // both are simulated at that size); NaN when either series has no number.
  double mid_extra_ms(const Machine& m, const Gradient& g, const std::string& algo, bool* simulated = nullptr);
  // (page.cpp) The heatmaps before and after a failure and the slowdown bars.
  void write_figures();
  // 4. (avail.cpp) The availability Monte Carlo on the largest machine(s), its table and figure.
  void write_availability();
  // Its parts: the section's assumptions; the degraded relative throughputs of ft2d
  // with 1 hole (the mean of centre, edge and corner) and 2 holes, and of the fastest
  // algorithm per case (false when an ft2d run they need failed); the goodput figure
  // from its data rows.
  struct DegradedRates {
    double one = 0, two = NAN, one_best = NAN, two_best = NAN;
  };
  void write_availability_intro();
  bool degraded_rates(const Machine& m, const Gradient& g, DegradedRates* r);
  void plot_availability(const std::string& rows, double gmin);
  // A machine of the availability study: its route-around parameters (degraded rates)
  // and the test of whether a hole set leaves it usable.
  struct AvailCase {
    const Machine* m;
    AvailParams ap;  // the assumptions (reconfig_h without event_h) and (b)'s rates
    HolesUsable usable;
    double event_h = 0;  // the interrupted allreduce's extra time, hours
  };
  // 4. (avail.cpp) Goodput and time-to-train of (a) and (b) per machine as one assumption
  // at a time moves over its range; adds the jobs the cap cut off to *cut_off.
  void write_sensitivity(const std::vector<AvailCase>& cs, int* cut_off);
  // 5. (page.cpp) The page's last section; writes results.md and paper_data.json and
  // prints the files written.
  void write_files();
};

// (runs.cpp) Whether the run store has a valid record for p (a mid-run point's only
// when its fault-free run is stored too: its failure cycle comes from that run).
const Json* stored_point(const Report& r, const Point& p);
// (runs.cpp) The seconds a point's run is expected to take here: its chip-GB at the rate
// the store measured on this host's CPU with this many threads (the default rate before
// it has one).
double expected_seconds(const Report& r, const Point& p);

}  // namespace fm::paper_report
