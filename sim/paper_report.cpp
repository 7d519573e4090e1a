// faultmesh report paper (sim/paper_report.h): the paper's experiment as one command.
//
//  1. Points: for every machine (mesh size x topology), case (fault-free, one board at
//     the centre, edge and corner, two boards, one link; a board failing mid-allreduce
//     when `faultmesh allreduce` has --fail-at), algorithm (ft2d and the two baselines,
//     shrink and snake) and simulated size, one `faultmesh allreduce --verify off --json`
//     child process, --jobs at a time. A point whose JSON exists with ok = true is not
//     run again, so a rerun resumes.
//  2. Fits: time_us = a + b * bytes per (machine, case, algorithm) over the sizes.
//  3. Training: the fitted allreduce time of each gradient (ResNet-50, BERT-large; fp32,
//     bf16), the step time = compute + (1 - overlap) * allreduce, slowdowns, throughput
//     with the chips that are gone or idle.
//  4. Availability: the Monte Carlo of sim/availability.h on the largest machine, with
//     the degraded speeds of step 3 (ft2d).
//  5. OUT/results.md, OUT/img/*.png (+ svg, gp), OUT/paper_data.json (every number).
#include "sim/paper_report.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "models/noc/fault_set.h"
#include "sim/availability.h"
#include "sim/cli.h"
#include "sim/plot.h"
#include "sim/po_error.h"
#include "sim/subprocess.h"
#include "sim/sweep.h"
#include "sim/util/job_pool.h"
#include "sim/util/json_io.h"
#include "sim/util/parse.h"

namespace fm {

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

namespace {

namespace po = boost::program_options;
using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

const char* const kAlgos[] = {"ft2d", "shrink", "snake"};  // the algorithm, then the baselines

struct Machine {
  int w = 0, h = 0;
  std::string topo;  // mesh | torus
  std::string mesh() const { return std::to_string(w) + "x" + std::to_string(h); }
  std::string name() const { return mesh() + "_" + topo; }
  int chips() const { return w * h; }
};

// One fault scenario. Boards are 2x2 chips (the TPU-v3 board; --board default).
struct Case {
  std::string id, title;
  std::vector<std::string> args;  // allreduce fault options
  int holes = 0;                  // failed boards
  bool mid = false;               // the board fails during the allreduce (--fail-at)
  int mid_bx = 0, mid_by = 0;
};

std::string bstr(int x, int y) { return std::to_string(x) + "," + std::to_string(y); }

// The cases on a W x H machine (both multiples of 4, so the board grid is at least 2x2
// and the positions below are distinct boards).
std::vector<Case> cases_for(int W, int H, bool mid_available) {
  const int bw = W / 2, bh = H / 2;  // board grid
  std::vector<Case> c;
  c.push_back({"faultfree", "fault-free", {}, 0});
  c.push_back({"board_centre", "1 board, centre (" + bstr(bw / 2, bh / 2) + ")", {"--fail-board", bstr(bw / 2, bh / 2)}, 1});
  c.push_back({"board_edge", "1 board, edge (" + bstr(bw / 2, 0) + ")", {"--fail-board", bstr(bw / 2, 0)}, 1});
  c.push_back({"board_corner", "1 board, corner (0,0)", {"--fail-board", "0,0"}, 1});
  const int ax = bw / 4, ay = bh / 4, bx = 3 * bw / 4, by = 3 * bh / 4;
  c.push_back({"two_boards", "2 boards (" + bstr(ax, ay) + ") (" + bstr(bx, by) + ")",
               {"--fail-board", bstr(ax, ay), "--fail-board", bstr(bx, by)}, 2});
  const std::string link = bstr(W / 2, H / 2) + ":E";
  c.push_back({"one_link", "1 link (" + link + ")", {"--fail-link", link}, 0});
  if (mid_available) {
    Case m{"board_mid", "1 board (" + bstr(bw / 2, bh / 2) + ") fails mid-allreduce", {}, 1, true, bw / 2, bh / 2};
    c.push_back(m);
  }
  return c;
}

struct Point {
  Machine m;
  Case c;
  std::string algo;
  uint64_t bytes = 0;
  std::string name;  // file stem in the runs directory
};

struct Outcome {
  bool ok = false;
  Json j;             // the run's JSON when ok
  std::string error;  // why not
};

// A gradient: parameters x element size.
struct Gradient {
  std::string model, dtype;
  double params = 0;
  int elem = 4;
  double bytes() const { return params * elem; }
  double compute_ms = 0;
};

struct Opts {
  bool quick = false;
  std::string out, runs;
  int jobs = 1;
  std::vector<std::pair<int, int>> meshes;
  std::vector<std::string> topos;
  std::vector<uint64_t> sizes;
  double resnet_params = 25.6e6, bert_params = 340e6;
  double resnet_ms = 16, bert_ms = 170, overlap = 0;
  double fail_at_frac = 0.5;
  int check_factor = 4;
  bool sizes_given = false;  // --sizes or --mesh-sizes override the mode's default sizes
  std::map<std::string, std::vector<uint64_t>> mesh_sizes;  // per machine WxH, else `sizes`
  const std::vector<uint64_t>& sizes_of(const std::string& mesh) const {
    const auto it = mesh_sizes.find(mesh);
    return it == mesh_sizes.end() ? sizes : it->second;
  }
  AvailParams avail;
  int seeds = 1000;
  std::string avail_model = "bert", avail_dtype = "fp32";
  std::vector<std::string> argv;  // as given, for the report's header
};

std::string fmt(double v, int prec = 3) {
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

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> v;
  std::stringstream in(s);
  std::string t;
  while (std::getline(in, t, sep))
    if (!t.empty()) v.push_back(t);
  return v;
}

Json read_json(const std::string& p) { return read_json_file<Json>(p); }

std::string last_line(const std::string& path) {
  std::ifstream f(path);
  std::string l, last;
  while (std::getline(f, l))
    if (!l.empty()) last = l;
  return last;
}


// The allreduce arguments of a point (the mid case's failure cycle comes from the
// fault-free run of the same machine, algorithm and size: `ff_cycles`).
std::vector<std::string> point_args(const Point& p, const std::string& json, uint64_t ff_cycles,
                                    double frac) {
  std::vector<std::string> a = {"allreduce", "--mesh", p.m.mesh(), "--topology", p.m.topo,
                                "--algo", p.algo, "--bytes", std::to_string(p.bytes),
                                "--verify", "off", "--json", json, "-q"};
  a.insert(a.end(), p.c.args.begin(), p.c.args.end());
  if (p.c.mid) {
    const uint64_t at = std::max<uint64_t>(1, (uint64_t)std::llround(frac * (double)ff_cycles));
    a.push_back("--fail-at");
    a.push_back(std::to_string(at) + ":board:" + bstr(p.c.mid_bx, p.c.mid_by));
    a.push_back("--restart-algo");  // each algorithm recovers with itself
    a.push_back(p.algo);
  }
  return a;
}

// Runs the points not yet done, `jobs` child processes at a time; fills `out`.
void run_points(const Opts& o, const std::vector<Point>& pts, std::map<std::string, Outcome>* out,
                const std::map<std::string, uint64_t>& ff_cycles) {
  const std::string exe = self_exe();
  std::vector<const Point*> todo;
  for (const Point& p : pts) {
    const std::string f = o.runs + "/" + p.name + ".json";
    const Json j = read_json(f);
    if (j.is_object() && j.value("ok", false)) {
      (*out)[p.name] = {true, j, ""};
    } else {
      todo.push_back(&p);
    }
  }
  std::cerr << "report: " << pts.size() << " runs, " << pts.size() - todo.size()
            << " already done, " << todo.size() << " to run, " << o.jobs << " at a time\n";
  int done = 0;
  auto finish = [&](const Point* p, int code, double secs) {
    const std::string f = o.runs + "/" + p->name;
    const Json j = read_json(f + ".json");
    Outcome oc;
    if (code == 0 && j.is_object() && j.value("ok", false)) {
      oc = {true, j, ""};
    } else {
      std::string why = last_line(f + ".err");
      oc.error = "exit " + std::to_string(code) + (why.empty() ? "" : ": " + why);
    }
    (*out)[p->name] = oc;
    ++done;
    std::cerr << "report: [" << done << "/" << todo.size() << "] " << p->name << " "
              << (oc.ok ? "ok" : "FAILED (" + oc.error + ")") << ", " << fmt(secs, 1) << " s\n";
  };
  run_pool(
      todo.size(), o.jobs,
      [&](size_t i, PoolChild* c) {
        const Point* p = todo[i];
        const std::string f = o.runs + "/" + p->name;
        uint64_t ffc = 0;
        if (p->c.mid) {
          const auto it = ff_cycles.find(p->m.name() + "_" + p->algo + "_" + std::to_string(p->bytes));
          if (it == ff_cycles.end() || it->second == 0) {
            (*out)[p->name] = {false, Json(), "the fault-free run it times the failure from did not complete"};
            return false;
          }
          ffc = it->second;
        }
        std::vector<std::string> argv = {exe};
        for (const std::string& a : point_args(*p, f + ".json", ffc, o.fail_at_frac)) argv.push_back(a);
        std::remove((f + ".err").c_str());
        std::remove((f + ".out").c_str());
        try {
          c->pid = spawn_redirected(argv, f + ".out", f + ".err", &c->fd);
          return true;
        } catch (const std::runtime_error& e) {
          (*out)[p->name] = {false, Json(), e.what()};
          return false;
        }
      },
      [&](size_t i, const PoolResult& r) { finish(todo[i], r.exit_code, r.seconds); });
}

// --- analysis --------------------------------------------------------------------------

struct Series {  // one (machine, case, algorithm): its simulated sizes and their fit
  std::vector<std::pair<double, double>> xy;  // (bytes, time_us)
  LinearFit fit;
  int participants = 0, live = 0;
  std::string error;  // the first failed point's reason
};

std::string skey(const Machine& m, const std::string& c, const std::string& a) {
  return m.name() + "|" + c + "|" + a;
}

// A number for a gradient of `bytes`: simulated when that exact size was run, else fitted.
struct Estimate {
  bool ok = false;
  bool simulated = false;
  double us = 0;
};
Estimate estimate(const Series& s, double bytes) {
  Estimate e;
  for (const auto& [x, y] : s.xy)
    if (x == bytes) return {true, true, y};
  if (!s.fit.ok) return e;
  return {true, false, s.fit.at(bytes)};
}

// Training numbers of one (machine, gradient, case, algorithm).
struct Train {
  bool ok = false;
  bool simulated = false;
  double ar_ms = 0, step_ms = 0;
  int workers = 0;  // chips whose gradients are summed (do useful work)
};

Train train(const Series& s, const Gradient& g, double overlap) {
  Train t;
  const Estimate e = estimate(s, g.bytes());
  if (!e.ok || s.participants <= 0) return t;
  t.ok = true;
  t.simulated = e.simulated;
  t.ar_ms = e.us / 1000.0;
  t.step_ms = g.compute_ms + (1 - overlap) * t.ar_ms;
  t.workers = s.participants;
  return t;
}

// Relative training throughput (samples/s vs the fault-free machine with ft2d): per-chip
// batch fixed, so samples per step scale with the working chips.
double rel_throughput(const Train& t, const Train& ff, int chips) {
  return ((double)t.workers / chips) * (ff.step_ms / t.step_ms);
}

std::string tag(bool simulated) { return simulated ? "sim" : "fit"; }

}  // namespace

// --- the command -----------------------------------------------------------------------

namespace {

Opts parse_opts(const std::vector<std::string>& args, bool* help) {
  po::options_description d("report paper");
  const AvailParams ad;
  d.add_options()
    ("quick", po::bool_switch(), "small machines (8x16, 16x16) and tiny sizes: about 1-2 minutes")
    ("out", po::value<std::string>()->default_value("docs"), "directory for results.md, img/ and paper_data.json")
    ("runs", po::value<std::string>(), "directory for the runs' JSON (default OUT/runs); reruns resume from it")
    ("jobs", po::value<int>(), "simulations at once, 1..64 (default: CPU cores)")
    ("meshes", po::value<std::string>(), "machines WxH, comma-separated, W and H multiples of 4 (default 16x32,32x32; quick 8x16,16x16)")
    ("topologies", po::value<std::string>()->default_value("mesh,torus"), "mesh and/or torus")
    ("sizes", po::value<std::string>(), "simulated bytes per chip, comma-separated, >= 2 distinct multiples of 64 (default 1MiB,2MiB,4MiB; quick 32KiB,64KiB,128KiB)")
    ("mesh-sizes", po::value<std::vector<std::string>>()->composing(), "WxH=SIZES: simulated sizes for one machine instead of --sizes (repeatable), e.g. 32x32=256KiB,512KiB,1MiB")
    ("check-factor", po::value<int>()->default_value(4), "extrapolation check: also simulate ft2d fault-free and centre-board at this multiple of the largest size on the smallest machine and compare with the fit, 0 (off) or 2..64")
    ("resnet-params", po::value<double>()->default_value(25.6e6, "25.6e6"), "ResNet-50 parameters")
    ("bert-params", po::value<double>()->default_value(340e6, "340e6"), "BERT-large parameters")
    ("resnet-compute-ms", po::value<double>()->default_value(16, "16"), "ResNet-50 compute per step per chip, ms (docs/results.md: assumptions)")
    ("bert-compute-ms", po::value<double>()->default_value(170, "170"), "BERT-large compute per step per chip, ms")
    ("overlap", po::value<double>()->default_value(0, "0"), "fraction of the allreduce hidden behind compute, 0..1")
    ("fail-at-fraction", po::value<double>()->default_value(0.5, "0.5"), "mid-allreduce case: the board fails at this fraction of the fault-free time, (0,1)")
    ("mtbf-h", po::value<double>()->default_value(ad.mtbf_h, "8760"), "mean time between failures of one board (4 chips + host), hours")
    ("reschedule-h", po::value<double>()->default_value(ad.reschedule_h, "2"), "(a) wait for repair or a replacement slice, hours")
    ("restart-h", po::value<double>()->default_value(ad.restart_h, "0.25"), "restart from a checkpoint, hours")
    ("reconfig-min", po::value<double>()->default_value(5, "5"), "(b) reconfigure around a hole, minutes")
    ("repair-h", po::value<double>()->default_value(ad.repair_h, "48"), "(b) background repair of a failed board, hours")
    ("ckpt-h", po::value<double>()->default_value(ad.ckpt_h, "1"), "checkpoint interval, hours")
    ("job-days", po::value<double>()->default_value(28, "28"), "wall-clock length of the training job, days")
    ("max-holes", po::value<int>()->default_value(2), "(b) most failed boards the job runs with, 0..2 (the hole counts simulated)")
    ("seeds", po::value<int>(), "Monte Carlo jobs per policy, 2..1000000 (default 1000; quick 200)")
    ("avail-model", po::value<std::string>()->default_value("bert"), "gradient whose step times drive the availability model: resnet | bert")
    ("avail-dtype", po::value<std::string>()->default_value("fp32"), "fp32 | bf16")
    ("help,h", "show this help");
  po::variables_map vm;
  try {
    po::parsed_options parsed = po::command_line_parser(args).options(d).run();
    take_arguments(&parsed, 0, "faultmesh report paper [options]");
    po::store(parsed, vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(po_error_text(e) + " (see faultmesh report paper --help)");
  }
  if (vm.count("help")) {
    std::cout << "usage: faultmesh report paper [--quick] [--out DIR] [--jobs N] [options]\n"
                 "Runs the paper's allreduce cases (512 and 1024 chips, mesh and torus, fault-free and\n"
                 "holes, ft2d vs the shrink and snake baselines), fits time = a + b * bytes, models\n"
                 "ResNet-50 and BERT-large training steps and the job's availability, and writes\n"
                 "DIR/results.md with figures in DIR/img/.\n\n"
              << d << "\n";
    *help = true;
    return {};
  }
  Opts o;
  o.quick = vm["quick"].as<bool>();
  o.out = vm["out"].as<std::string>();
  check_path_value(o.out, "--out", "a directory");
  o.runs = vm.count("runs") ? vm["runs"].as<std::string>() : o.out + "/runs";
  check_path_value(o.runs, "--runs", "a directory");
  const int cores = (int)std::max(1u, std::thread::hardware_concurrency());
  o.jobs = vm.count("jobs") ? vm["jobs"].as<int>() : cores;
  if (o.jobs < 1 || o.jobs > 64) throw UsageError("--jobs " + std::to_string(o.jobs) + ": allowed 1..64");
  const std::string meshes = vm.count("meshes") ? vm["meshes"].as<std::string>() : o.quick ? "8x16,16x16" : "16x32,32x32";
  for (const std::string& m : split(meshes, ',')) {
    int w, h;
    if (!parse_wxh(m, &w, &h) || w < 8 || h < 8 || w % 4 || h % 4 || w > 64 || h > 64)
      throw UsageError("--meshes " + meshes + ": expected WxH list with W and H multiples of 4 in 8..64, e.g. 16x32,32x32");
    o.meshes.push_back({w, h});
  }
  if (o.meshes.empty()) throw UsageError("--meshes: at least one machine");
  const std::string topos = vm["topologies"].as<std::string>();
  for (const std::string& t : split(topos, ',')) {
    if (t != "mesh" && t != "torus") throw UsageError("--topologies " + topos + ": allowed mesh, torus or both");
    o.topos.push_back(t);
  }
  if (o.topos.empty()) throw UsageError("--topologies: allowed mesh, torus or both");
  const std::string sizes = vm.count("sizes") ? vm["sizes"].as<std::string>() : o.quick ? "32KiB,64KiB,128KiB" : "1MiB,2MiB,4MiB";
  o.sizes_given = vm.count("sizes") > 0 || vm.count("mesh-sizes") > 0;
  // A size list: >= 2 distinct sizes, sorted.
  auto size_list = [](const std::string& text, const std::string& opt) {
    std::vector<uint64_t> v;
    std::set<uint64_t> distinct;
    for (const std::string& s : split(text, ',')) {
      uint64_t b;
      if (!parse_bytes(s, &b) || b % 64 || b > (4ULL << 30))
        throw UsageError(opt + " " + text + ": expected bytes (e.g. 1MiB, 256KiB, 4096), multiples of 64, at most 4GiB");
      if (distinct.insert(b).second) v.push_back(b);
    }
    if (distinct.size() < 2) throw UsageError(opt + " " + text + ": at least two distinct sizes (the fit needs them)");
    std::sort(v.begin(), v.end());
    return v;
  };
  o.sizes = size_list(sizes, "--sizes");
  if (vm.count("mesh-sizes"))
    for (const std::string& ms : vm["mesh-sizes"].as<std::vector<std::string>>()) {
      const auto eq = ms.find('=');
      const std::string mesh = ms.substr(0, eq);
      bool known = false;
      for (const auto& [w, h] : o.meshes) known |= mesh == std::to_string(w) + "x" + std::to_string(h);
      if (eq == std::string::npos || !known)
        throw UsageError("--mesh-sizes " + ms + ": expected WxH=SIZES with WxH one of --meshes, e.g. 32x32=64KiB,128KiB,256KiB");
      o.mesh_sizes[mesh] = size_list(ms.substr(eq + 1), "--mesh-sizes");
    }
  auto pos = [&](const char* n) {
    const double v = vm[n].as<double>();
    if (!(v > 0) || !std::isfinite(v)) throw UsageError(std::string("--") + n + ": must be a number > 0");
    return v;
  };
  auto nonneg = [&](const char* n) {
    const double v = vm[n].as<double>();
    if (!(v >= 0) || !std::isfinite(v)) throw UsageError(std::string("--") + n + ": must be a number >= 0");
    return v;
  };
  o.check_factor = vm["check-factor"].as<int>();
  if (o.check_factor != 0 && (o.check_factor < 2 || o.check_factor > 64))
    throw UsageError("--check-factor " + std::to_string(o.check_factor) + ": allowed 0 (off) or 2..64");
  if (o.check_factor && o.sizes.back() * o.check_factor > (4ULL << 30))  // checks run on the smallest machine
    throw UsageError("--check-factor " + std::to_string(o.check_factor) + ": the checked size would exceed 4GiB");
  o.resnet_params = pos("resnet-params");
  o.bert_params = pos("bert-params");
  o.resnet_ms = nonneg("resnet-compute-ms");
  o.bert_ms = nonneg("bert-compute-ms");
  o.overlap = vm["overlap"].as<double>();
  if (!(o.overlap >= 0 && o.overlap <= 1)) throw UsageError("--overlap: allowed 0..1");
  o.fail_at_frac = vm["fail-at-fraction"].as<double>();
  if (!(o.fail_at_frac > 0 && o.fail_at_frac < 1)) throw UsageError("--fail-at-fraction: allowed (0, 1)");
  o.avail.mtbf_h = pos("mtbf-h");
  o.avail.reschedule_h = nonneg("reschedule-h");
  o.avail.restart_h = nonneg("restart-h");
  o.avail.reconfig_h = nonneg("reconfig-min") / 60;
  o.avail.repair_h = nonneg("repair-h");
  o.avail.ckpt_h = pos("ckpt-h");
  o.avail.horizon_h = pos("job-days") * 24;
  o.avail.max_holes = vm["max-holes"].as<int>();
  if (o.avail.max_holes < 0 || o.avail.max_holes > 2)
    throw UsageError("--max-holes " + std::to_string(o.avail.max_holes) + ": allowed 0..2 (step times are simulated for 1 and 2 failed boards)");
  o.seeds = vm.count("seeds") ? vm["seeds"].as<int>() : o.quick ? 200 : 1000;
  if (o.seeds < 2 || o.seeds > 1000000) throw UsageError("--seeds " + std::to_string(o.seeds) + ": allowed 2..1000000");
  o.avail_model = vm["avail-model"].as<std::string>();
  if (o.avail_model != "resnet" && o.avail_model != "bert") throw UsageError("--avail-model " + o.avail_model + ": allowed resnet | bert");
  o.avail_dtype = vm["avail-dtype"].as<std::string>();
  if (o.avail_dtype != "fp32" && o.avail_dtype != "bf16") throw UsageError("--avail-dtype " + o.avail_dtype + ": allowed fp32 | bf16");
  o.argv = args;
  return o;
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

int cmd_report(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << "usage: faultmesh report paper [--quick] [--out DIR] [--jobs N] [options]\n"
                 "reports: paper   the Kumar & Jouppi experiment (faultmesh report paper --help)\n";
    return args.empty() ? kExitBadInput : kExitOk;
  }
  if (args[0] != "paper") throw UsageError("report '" + args[0] + "': allowed paper");
  bool help = false;
  Opts o = parse_opts(std::vector<std::string>(args.begin() + 1, args.end()), &help);
  if (help) return kExitOk;
  make_dirs(o.out, "--out");
  make_dirs(o.out + "/img", "--out");
  make_dirs(o.runs, "--runs");
  const auto t0 = Clock::now();

  // 1. The points.
  const bool mid = fail_at_available();
  std::vector<Machine> machines;
  for (const auto& [w, h] : o.meshes)
    for (const std::string& t : o.topos) machines.push_back({w, h, t});
  std::vector<Point> stat, midpts;
  std::map<std::string, std::vector<Case>> cases;
  for (const Machine& m : machines) {
    cases[m.name()] = cases_for(m.w, m.h, mid);
    for (const Case& c : cases[m.name()])
      for (const char* a : kAlgos)
        for (uint64_t b : o.sizes_of(m.mesh())) {
          Point p{m, c, a, b, m.name() + "_" + c.id + "_" + a + "_" + size_str(b)};
          (c.mid ? midpts : stat).push_back(p);
        }
  }
  std::map<std::string, Outcome> res;
  run_points(o, stat, &res, {});
  if (!midpts.empty()) {
    std::map<std::string, uint64_t> ffc;
    for (const Point& p : stat)
      if (p.c.id == "faultfree" && res[p.name].ok)
        ffc[p.m.name() + "_" + p.algo + "_" + std::to_string(p.bytes)] = res[p.name].j.value("cycles", (uint64_t)0);
    run_points(o, midpts, &res, ffc);
  }
  std::vector<Point> all = stat;
  all.insert(all.end(), midpts.begin(), midpts.end());
  // Extrapolation check: bigger runs on the smallest machine (per topology), not fitted.
  std::vector<Point> checks;
  if (o.check_factor) {
    const int least = std::min_element(machines.begin(), machines.end(), [](const Machine& a, const Machine& b) {
                        return a.chips() < b.chips();
                      })->chips();
    for (const Machine& m : machines)
      if (m.chips() == least)
        for (const Case& c : cases[m.name()])
          if (c.id == "faultfree" || c.id == "board_centre") {
            const uint64_t b = o.sizes_of(m.mesh()).back() * (uint64_t)o.check_factor;
            checks.push_back({m, c, "ft2d", b, m.name() + "_" + c.id + "_ft2d_" + size_str(b) + "_check"});
          }
    run_points(o, checks, &res, {});
  }

  // 2. Series and fits.
  std::map<std::string, Series> series;
  for (const Point& p : all) {
    Series& s = series[skey(p.m, p.c.id, p.algo)];
    const Outcome& oc = res[p.name];
    if (!oc.ok) {
      if (s.error.empty()) s.error = oc.error;
      continue;
    }
    s.xy.push_back({(double)p.bytes, oc.j.value("time_us", 0.0)});
    s.participants = oc.j.value("participants", 0);
    s.live = oc.j.value("live_chips", 0);
  }
  for (auto& [k, s] : series)
    if (s.error.empty()) s.fit = fit_linear(s.xy);  // a series with a failed size is not fitted

  // 3. Gradients and training.
  std::vector<Gradient> grads = {
      {"ResNet-50", "fp32", o.resnet_params, 4, o.resnet_ms}, {"ResNet-50", "bf16", o.resnet_params, 2, o.resnet_ms},
      {"BERT-large", "fp32", o.bert_params, 4, o.bert_ms}, {"BERT-large", "bf16", o.bert_params, 2, o.bert_ms}};

  Json data;
  data["command"] = o.argv;
  data["fail_at_available"] = mid;
  for (const Machine& m : machines) data["sizes"][m.mesh()] = o.sizes_of(m.mesh());
  std::ostringstream md;
  md << "# Results: allreduce around holes and the training job's availability\n\n"
     << "Written by `faultmesh report paper" ;
  for (const std::string& a : o.argv) md << " " << a;
  md << "` (sim/paper_report.cpp); rerun it to regenerate this page. "
     << (o.quick ? "**Quick mode**: small machines and tiny sizes, a smoke test of the pipeline, not the paper's numbers. " : "")
     << "Every number is labelled **sim** (simulated at flit level by `faultmesh allreduce`) or **fit** "
     << "(from the fit time = a + b * bytes over the simulated sizes of the same machine, case and algorithm).\n\n";

  md << "## Set-up\n\n"
     << "- Machines: ";
  for (size_t i = 0; i < machines.size(); ++i) md << (i ? ", " : "") << machines[i].mesh() << " " << machines[i].topo << " (" << machines[i].chips() << " chips)";
  md << ". TPU-v3-like defaults of `faultmesh allreduce` (100 GB/s per link direction, 64-byte flits, "
     << "4 VCs, 4 local lanes, chunk auto = bytes/256 within 4..64 KiB; docs/chip.md, docs/router-microarchitecture.md); boards of 2x2 chips.\n"
     << "- Simulated sizes per chip: ";
  for (const auto& [w, h] : o.meshes) {
    const std::string mesh = std::to_string(w) + "x" + std::to_string(h);
    md << (mesh == std::to_string(o.meshes[0].first) + "x" + std::to_string(o.meshes[0].second) ? "" : "; ") << mesh << ": ";
    const auto& v = o.sizes_of(mesh);
    for (size_t i = 0; i < v.size(); ++i) md << (i ? ", " : "") << size_str(v[i]);
  }
  md << " (`--verify off`: timing only; the allreduce tests check the sums)"
     << (o.sizes_given ? ". **Not this mode's default sizes** (" + std::string(o.quick ? "32KiB,64KiB,128KiB" : "1MiB,2MiB,4MiB") +
                             "): chosen with `--sizes`, e.g. to fit the time available; at small sizes the latency term a "
                             "is a larger part of the time, so read the residuals and the extrapolation check"
                       : std::string())
     << ".\n"
     << "- Algorithms: **ft2d** (2-D allreduce with rows and columns re-threaded around holes) against the "
     << "two baselines **shrink** (2-D allreduce on the largest fault-free rectangle; the other chips idle) and "
     << "**snake** (one ring through every live chip).\n"
     << "- Gradients: ResNet-50 " << fmt(o.resnet_params / 1e6, 1) << "M parameters, BERT-large "
     << fmt(o.bert_params / 1e6, 0) << "M; fp32 (4 bytes) and bf16 (2 bytes). The simulator's timing depends "
     << "on the bytes only (the element size is only checked), so bf16 is the same machine at half the bytes.\n"
     << "- Why fitted: the simulator runs about 1e6 router-cycles/s, so one 32x32 allreduce of a 100 MB gradient "
     << "takes about an hour and of BERT's 1.36 GB about half a day. The gradient sizes are therefore extrapolated "
     << "from the simulated sizes with the linear model, whose residuals are given with each fit.\n\n";

  md << "## Assumptions (all overridable)\n\n"
     << "| assumption | value | option | source or reasoning |\n|---|---|---|---|\n"
     << "| ResNet-50 compute per step | " << fmt(o.resnet_ms, 1) << " ms | `--resnet-compute-ms` | "
     << "forward pass ~4.1 G multiply-adds = 8.2 GFLOP, training ~3x = ~25 GFLOP per image; a TPU-v3 chip peaks at "
     << "123 TFLOP/s (bf16), taken at ~40 % utilisation = ~49 TFLOP/s, i.e. ~2,000 images/s per chip; per-chip "
     << "batch 32 (global 32,768 on 1024 chips, the large-batch regime of MLPerf ResNet-50 submissions) gives 16 ms. "
     << "An assumption, not a measurement. |\n"
     << "| BERT-large compute per step | " << fmt(o.bert_ms, 1) << " ms | `--bert-compute-ms` | "
     << "~6 FLOP per parameter per token (forward + backward), 340M parameters x 512 tokens = ~1.0 TFLOP per "
     << "sequence; at ~49 TFLOP/s per chip ~21 ms per sequence; per-chip batch 8 (global 8,192 on 1024 chips, "
     << "LAMB-style large batch) gives ~170 ms. An assumption. |\n"
     << "| overlap of allreduce with compute | " << fmt(o.overlap, 2) << " | `--overlap` | "
     << "exposed allreduce = (1 - overlap) x allreduce time. 0 (none) is the conservative default: the whole "
     << "allreduce follows the backward pass; real frameworks overlap part of it with the backward pass. |\n"
     << "| per-chip batch when chips are lost | fixed | - | weak scaling: the compute time per step does not "
     << "change, the step processes fewer samples (throughput = working chips / step time). |\n"
     << "| board MTBF | " << fmt(o.avail.mtbf_h, 0) << " h | `--mtbf-h` | Meta's Llama 3 report (2024) counts "
     << "419 unexpected interruptions in 54 days on 16,384 GPUs, about one per 2,100 GPU-days (~5.8 years per "
     << "accelerator including its share of host failures); a board of 4 chips plus its host would then fail every "
     << "~1.4 years. We take 1 year to include host hardware and software failures: an assumption, and the "
     << "result scales with it. |\n"
     << "| (a) reschedule or repair wait | " << fmt(o.avail.reschedule_h, 2) << " h | `--reschedule-h` | time for "
     << "the scheduler to give the job a healthy slice (or an operator to swap the host); assumption. On a fully "
     << "used pod with no spare slice it is the repair time. |\n"
     << "| restart from checkpoint | " << fmt(o.avail.restart_h * 60, 0) << " min | `--restart-h` | restore the "
     << "checkpoint, re-initialise, recompile; assumption (minutes to tens of minutes for large jobs). |\n"
     << "| (b) reconfigure around a hole | " << fmt(o.avail.reconfig_h * 60, 1) << " min | `--reconfig-min` | "
     << "new route tables (faultmesh `routes` builds and checks them for 1024 chips in seconds), recompile the "
     << "collective, redo the interrupted step from the replicated weights; assumption. |\n"
     << "| (b) background board repair | " << fmt(o.avail.repair_h, 0) << " h | `--repair-h` | a replacement "
     << "board installed within two days; repaired boards rejoin at the next checkpoint with a restart. |\n"
     << "| checkpoint interval | " << fmt(o.avail.ckpt_h, 2) << " h | `--ckpt-h` | hourly; writing is assumed "
     << "asynchronous (free); a failure in (a) loses the work since the last one. |\n"
     << "| job length | " << fmt(o.avail.horizon_h / 24, 1) << " days | `--job-days` | a multi-week pre-training "
     << "run. |\n"
     << "| most holes in (b) | " << o.avail.max_holes << " | `--max-holes` | step times are simulated for 1 and "
     << "2 failed boards; a further failure falls back to (a). |\n\n";

  // Simulated runs.
  md << "## Simulated runs\n\n"
     << "Every run, with the time of the allreduce alone. Slowdown = time / time of the fault-free ft2d run "
     << "of the same machine and size. `run` is the JSON in the runs directory (`" << o.runs << "`).\n\n"
     << "| machine | case | algo | bytes | cycles | time_us | busbw_GBps | participants | slowdown | run |\n"
     << "|---|---|---|---|---|---|---|---|---|---|\n";
  Json jruns = Json::array();
  for (const Point& p : all) {
    const Outcome& oc = res[p.name];
    if (!oc.ok) {
      md << "| " << p.m.name() << " | " << p.c.id << " | " << p.algo << " | " << p.bytes
         << " | failed | | | | | " << p.name << ".json |\n";
      jruns.push_back({{"run", p.name}, {"ok", false}, {"error", oc.error}});
      continue;
    }
    const std::string ffn = p.m.name() + "_faultfree_ft2d_" + size_str(p.bytes);
    const double t = oc.j.value("time_us", 0.0);
    double slow = NAN;
    if (res[ffn].ok) slow = t / res[ffn].j.value("time_us", 0.0);
    md << "| " << p.m.name() << " | " << p.c.id << " | " << p.algo << " | " << p.bytes << " | "
       << oc.j.value("cycles", (uint64_t)0) << " | " << fmt(t, 3) << " | " << fmt(oc.j.value("busbw_GBps", 0.0), 2)
       << " | " << oc.j.value("participants", 0) << " | " << fmt(slow, 3) << " | " << p.name << ".json |\n";
    jruns.push_back({{"run", p.name}, {"ok", true}, {"machine", p.m.name()}, {"case", p.c.id}, {"algo", p.algo},
                     {"bytes", p.bytes}, {"time_us", t}, {"slowdown", slow}});
  }
  data["runs"] = jruns;
  bool any_failed = false;
  for (const Point& p : all)
    if (!res[p.name].ok) {
      if (!any_failed) md << "\nFailed or refused runs (the reason from the run's stderr):\n\n";
      any_failed = true;
      md << "- " << p.name << ": " << res[p.name].error << "\n";
    }
  md << "\n";

  // Fits.
  md << "## Fits: time_us = a + b * bytes\n\n"
     << "Least squares over the simulated sizes. `rms` is the root mean square residual, `max rel` the largest "
     << "residual relative to the simulated time. With two sizes the line passes through both points and the "
     << "residual says nothing; the default uses three.\n\n"
     << "| machine | case | algo | a (us) | b (us per MiB) | sizes | rms (us) | max rel |\n|---|---|---|---|---|---|---|---|\n";
  Json jfits = Json::array();
  for (const Machine& m : machines)
    for (const Case& c : cases[m.name()])
      for (const char* a : kAlgos) {
        const Series& s = series[skey(m, c.id, a)];
        if (!s.fit.ok) {
          md << "| " << m.name() << " | " << c.id << " | " << a << " | not fitted" << (s.error.empty() ? "" : ": a run failed") << " | | | | |\n";
          continue;
        }
        md << "| " << m.name() << " | " << c.id << " | " << a << " | " << fmt(s.fit.a, 3) << " | "
           << fmt(s.fit.b * (1 << 20), 3) << " | " << s.fit.n << " | " << fmt(s.fit.rms, 4) << " | "
           << fmt(100 * s.fit.max_rel, 2) << " % |\n";
        jfits.push_back({{"machine", m.name()}, {"case", c.id}, {"algo", a}, {"a_us", s.fit.a},
                         {"b_us_per_byte", s.fit.b}, {"n", s.fit.n}, {"rms_us", s.fit.rms}, {"max_rel", s.fit.max_rel}});
      }
  data["fits"] = jfits;
  md << "\n";

  // Extrapolation check.
  if (!checks.empty()) {
    md << "## Extrapolation check\n\n"
       << "The fits are used far beyond the simulated sizes. As a check, ft2d was also simulated at "
       << o.check_factor << "x the largest size on the smallest machine, and compared with what its fit "
       << "(from the smaller sizes only) predicts.\n\n"
       << "| machine | case | bytes | simulated time_us | fitted time_us | fit error |\n|---|---|---|---|---|---|\n";
    Json jc = Json::array();
    for (const Point& p : checks) {
      const Outcome& oc = res[p.name];
      const Series& s = series[skey(p.m, p.c.id, p.algo)];
      md << "| " << p.m.name() << " | " << p.c.id << " | " << p.bytes << " | ";
      if (!oc.ok || !s.fit.ok) {
        md << (oc.ok ? "" : "failed: " + oc.error) << " | " << (s.fit.ok ? "" : "not fitted") << " | |\n";
        continue;
      }
      const double sim = oc.j.value("time_us", 0.0), fit = s.fit.at((double)p.bytes);
      md << fmt(sim, 3) << " (sim) | " << fmt(fit, 3) << " (fit) | " << fmt(100 * (fit - sim) / sim, 2) << " % |\n";
      jc.push_back({{"run", p.name}, {"machine", p.m.name()}, {"case", p.c.id}, {"bytes", p.bytes},
                    {"time_us", sim}, {"fitted_us", fit}});
    }
    data["checks"] = jc;
    std::string off;
    for (const auto& c : jc) {
      const double e = std::fabs(c["fitted_us"].get<double>() - c["time_us"].get<double>()) / c["time_us"].get<double>();
      if (e > 0.1) off += (off.empty() ? "" : ", ") + c["machine"].get<std::string>() + " " + c["case"].get<std::string>() + " (" + fmt(100 * e, 0) + " %)";
    }
    if (!off.empty())
      md << "\n**Warning:** the fit misses the larger run by more than 10 % for " << off << ". Its time is not linear "
         << "in the bytes over the simulated sizes (see the fit residuals), so the fitted gradient-size numbers of such "
         << "series (here ft2d with holes) are indicative only; simulating larger sizes would settle them.\n";
    md << "\n";
  }

  // Training tables.
  md << "## Training step per machine\n\n"
     << "Allreduce time (ms) of each gradient, the slowdown of ft2d against fault-free ft2d, each baseline "
     << "against ft2d in the same case, the step time with ft2d (compute + (1 - overlap) x allreduce), and the "
     << "training throughput relative to the fault-free machine, which counts both the slower step and the chips "
     << "that do no work (the failed ones; for shrink also the idle live chips outside its rectangle: `workers`). "
     << "Each allreduce time is marked sim or fit.\n\n";
  Json jtrain = Json::array();
  for (const Machine& m : machines) {
    md << "### " << m.mesh() << " " << m.topo << " (" << m.chips() << " chips)\n\n"
       << "| gradient | case | ft2d ms | shrink ms | snake ms | ft2d slowdown | shrink / ft2d | snake / ft2d | step ms (ft2d) | step slowdown | workers ft2d / shrink / snake | throughput ft2d | shrink | snake |\n"
       << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const Gradient& g : grads) {
      const Train ff = train(series[skey(m, "faultfree", "ft2d")], g, o.overlap);
      for (const Case& c : cases[m.name()]) {
        Train t[3];
        for (int i = 0; i < 3; ++i) t[i] = train(series[skey(m, c.id, kAlgos[i])], g, o.overlap);
        md << "| " << g.model << " " << g.dtype << " | " << c.title;
        for (int i = 0; i < 3; ++i)
          md << " | " << (t[i].ok ? fmt(t[i].ar_ms, 4) + " " + tag(t[i].simulated) : "n/a");
        const bool base = t[0].ok && ff.ok;
        md << " | " << (base ? fmt(t[0].ar_ms / ff.ar_ms, 3) : "n/a")
           << " | " << (t[0].ok && t[1].ok ? fmt(t[1].ar_ms / t[0].ar_ms, 3) : "n/a")
           << " | " << (t[0].ok && t[2].ok ? fmt(t[2].ar_ms / t[0].ar_ms, 3) : "n/a")
           << " | " << (t[0].ok ? fmt(t[0].step_ms, 3) : "n/a")
           << " | " << (base ? fmt(t[0].step_ms / ff.step_ms, 4) : "n/a") << " | ";
        for (int i = 0; i < 3; ++i) md << (i ? " / " : "") << (t[i].ok ? std::to_string(t[i].workers) : "n/a");
        for (int i = 0; i < 3; ++i) md << " | " << (t[i].ok && ff.ok ? fmt(rel_throughput(t[i], ff, m.chips()), 4) : "n/a");
        md << " |\n";
        Json jt = {{"machine", m.name()}, {"model", g.model}, {"dtype", g.dtype}, {"bytes", g.bytes()}, {"case", c.id}};
        for (int i = 0; i < 3; ++i)
          if (t[i].ok)
            jt[kAlgos[i]] = {{"allreduce_ms", t[i].ar_ms}, {"source", tag(t[i].simulated)}, {"step_ms", t[i].step_ms},
                             {"workers", t[i].workers}, {"throughput", ff.ok ? rel_throughput(t[i], ff, m.chips()) : NAN}};
        jtrain.push_back(jt);
      }
    }
    md << "\n";
  }
  data["training"] = jtrain;

  // Observations, generated from the numbers above (BERT-large fp32).
  md << "## Observations\n\n"
     << "Generated from the tables above for BERT-large fp32 (fit): the range of ft2d's allreduce slowdown over "
     << "the fault cases, and per case the algorithm with the highest training throughput.\n\n";
  for (const Machine& m : machines) {
    const Gradient& g = grads[2];
    const Train ff = train(series[skey(m, "faultfree", "ft2d")], g, o.overlap);
    if (!ff.ok) {
      md << "- " << m.mesh() << " " << m.topo << ": the fault-free ft2d runs failed; nothing to compare.\n";
      continue;
    }
    double lo = INFINITY, hi = 0;
    std::string best;
    for (const Case& c : cases[m.name()]) {
      if (c.id == "faultfree") continue;
      const Train t0 = train(series[skey(m, c.id, "ft2d")], g, o.overlap);
      if (t0.ok) lo = std::min(lo, t0.ar_ms / ff.ar_ms), hi = std::max(hi, t0.ar_ms / ff.ar_ms);
      double bt = -1;
      std::string ba = "none";
      for (const char* a : kAlgos) {
        const Train t = train(series[skey(m, c.id, a)], g, o.overlap);
        if (t.ok && rel_throughput(t, ff, m.chips()) > bt) bt = rel_throughput(t, ff, m.chips()), ba = a;
      }
      best += (best.empty() ? "" : "; ") + c.id + " " + ba + (bt >= 0 ? " (" + fmt(bt, 3) + ")" : "");
    }
    md << "- " << m.mesh() << " " << m.topo << ": the failed chips alone cost " << fmt(100.0 * 4 / m.chips(), 2)
       << " % of the throughput for one board (" << m.chips() - 4 << " of " << m.chips() << " chips work) and "
       << fmt(100.0 * 8 / m.chips(), 2) << " % for two; ft2d allreduce " << (hi > 0 ? fmt(lo, 2) + "x to " + fmt(hi, 2) + "x" : "n/a")
       << " the fault-free time; best throughput: " << best << ".\n";
  }
  md << "\n";

  // Mid-allreduce.
  md << "## A board failing mid-allreduce\n\n";
  if (!mid) {
    md << "**Not yet available.** This case needs the mid-run fault controller (`faultmesh allreduce --fail-at "
          "CYCLE:board:bx,by`), which this build's `faultmesh allreduce --help` does not list. When it does, "
          "this command runs the case `board_mid` (the centre board failing at " << fmt(o.fail_at_frac, 2)
       << " of the fault-free ft2d time, `--fail-at-fraction`) for every algorithm and size, and it appears in "
          "the tables above. No number is given for it here.\n\n";
  } else {
    md << "Run with `--fail-at` at " << fmt(o.fail_at_frac, 2) << " of the fault-free time of the same "
       << "algorithm and size (case `board_mid` in the tables above).\n\n";
  }

  // Figures.
  md << "## Figures\n\n";
  const std::string img = o.out + "/img";
  std::vector<std::string> figs;
  // Heatmaps: the largest machine (first topology), largest size, ft2d, before and after.
  const Machine& big = *std::max_element(machines.begin(), machines.end(), [](const Machine& a, const Machine& b) {
    return a.chips() < b.chips();
  });
  {
    const std::string stem = big.name() + "_%s_ft2d_" + size_str(o.sizes_of(big.mesh()).back());
    char before[256], after[256];
    std::snprintf(before, sizeof before, stem.c_str(), "faultfree");
    std::snprintf(after, sizeof after, stem.c_str(), "board_centre");
    if (res[before].ok && res[after].ok) {
      plot_heatmap(img, res[before].j, "before", big.mesh() + " " + big.topo + ", ft2d, fault-free");
      plot_heatmap(img, res[after].j, "after", big.mesh() + " " + big.topo + ", ft2d, centre board failed");
      md << "Link utilization (flits/cycle per link direction over the allreduce) of ft2d on " << big.mesh() << " "
         << big.topo << " at " << size_str(o.sizes_of(big.mesh()).back()) << " per chip, fault-free and with the centre board "
         << "failed (sim):\n\n![before](img/heatmap_before.png)\n![after](img/heatmap_after.png)\n\n";
      figs.push_back("heatmap_before");
      figs.push_back("heatmap_after");
    } else {
      md << "Heatmaps: not drawn (the runs " << before << " / " << after << " did not complete).\n\n";
    }
  }
  // Slowdown bars: BERT-large fp32 per machine.
  for (const Machine& m : machines) {
    const Gradient& g = grads[2];
    const Train ff = train(series[skey(m, "faultfree", "ft2d")], g, o.overlap);
    if (!ff.ok) continue;
    std::ostringstream d;
    d << "$d << EOD\n";
    for (const Case& c : cases[m.name()]) {
      d << "\"" << c.id << "\"";
      for (const char* a : kAlgos) {
        const Train t = train(series[skey(m, c.id, a)], g, o.overlap);
        d << " " << (t.ok ? fmt(t.ar_ms / ff.ar_ms, 5) : "NaN");
      }
      d << "\n";
    }
    d << "EOD\nset title 'Allreduce time vs fault-free ft2d, " << g.model << " " << g.dtype << " (fit), " << m.mesh()
      << " " << m.topo << "'\nset ylabel 'slowdown (x)'\nset style data histograms\n"
      << "set style histogram clustered gap 1\nset style fill solid 0.85 border -1\nset grid ytics\n"
      << "set yrange [0:*]\nset key top left\nset xtics rotate by -20\n";
    const std::string name = "slowdown_" + m.name();
    plot_script(img, name, d.str(), "plot $d using 2:xtic(1) title 'ft2d' lc 1, '' using 3 title 'shrink' lc 2, '' using 4 title 'snake' lc 3", 900, 500);
    figs.push_back(name);
    md << "![slowdown " << m.name() << "](img/" << name << ".png)\n";
  }
  md << "\n";

  // 4. Availability on the largest machine(s).
  md << "## Availability of a " << fmt(o.avail.horizon_h / 24, 0) << "-day job on " << big.chips() << " chips\n\n"
     << "Monte Carlo (sim/availability.cpp), " << o.seeds << " jobs per policy (seeds 1.." << o.seeds << "), "
     << "boards of 4 chips failing independently with exponential lifetimes. (a) stop-and-repair: every failure "
     << "stops the job, loses the work since the last checkpoint, waits for a healthy slice and restarts. (b) route "
     << "around: the job reconfigures and continues with the degraded speed below; a failure beyond " << o.avail.max_holes
     << " holes, or one that cuts live chips off, falls back to (a); repaired boards rejoin at the next checkpoint. "
     << "Goodput = useful (not rolled back) work / what the full machine would do in the same wall time; "
     << "availability = fraction of the time the job runs. Mean and 95 % confidence interval over the jobs.\n\n"
     << "Degraded speed in (b), from the " << (o.avail_model == "bert" ? "BERT-large" : "ResNet-50") << " "
     << o.avail_dtype << " ft2d rows above: 1 hole = the mean of the centre, edge and corner cases, 2 holes = "
     << "the two-board case (relative throughput, including the lost chips); a random hole set is assumed to cost "
     << "what these placements cost. (b') uses, per case, the fastest of ft2d, shrink and snake instead. Rates above 1 "
     << "(an algorithm with holes beating fault-free ft2d, the reference) are capped at 1 in the simulation.\n\n"
     << "| machine | rate 1 hole | rate 2 holes | policy | goodput | availability | failures | stops |\n|---|---|---|---|---|---|---|---|\n";
  const Gradient& ag = grads[(o.avail_model == "bert" ? 2 : 0) + (o.avail_dtype == "bf16" ? 1 : 0)];
  Json javail = Json::array();
  std::ostringstream ad;
  ad << "$d << EOD\n";
  bool avail_any = false;
  double gmin = 1;
  std::string avail_note;
  for (const Machine& m : machines) {
    if (m.chips() != big.chips()) continue;
    const Train ff = train(series[skey(m, "faultfree", "ft2d")], ag, o.overlap);
    double r1 = 0, r2 = NAN;
    int n1 = 0;
    bool ok = ff.ok;
    for (const char* c : {"board_centre", "board_edge", "board_corner"}) {
      const Train t = train(series[skey(m, c, "ft2d")], ag, o.overlap);
      if (t.ok) r1 += rel_throughput(t, ff, m.chips()), ++n1;
    }
    const Train t2 = train(series[skey(m, "two_boards", "ft2d")], ag, o.overlap);
    if (t2.ok && ff.ok) r2 = rel_throughput(t2, ff, m.chips());
    ok = ok && n1 == 3 && std::isfinite(r2);
    if (!ok) {
      md << "| " << m.name() << " | n/a | n/a | - | not computed: an ft2d run it needs failed | | | |\n";
      continue;
    }
    r1 /= n1;
    // The same with the fastest of the three algorithms in each case (b'): what a job
    // that picks its collective after each failure would get.
    auto best_rate = [&](const std::string& c) {
      double r = NAN;
      for (const char* a : kAlgos) {
        const Train t = train(series[skey(m, c, a)], ag, o.overlap);
        if (t.ok) r = std::isfinite(r) ? std::max(r, rel_throughput(t, ff, m.chips())) : rel_throughput(t, ff, m.chips());
      }
      return r;
    };
    const double r1b = (best_rate("board_centre") + best_rate("board_edge") + best_rate("board_corner")) / 3,
                 r2b = best_rate("two_boards");
    AvailParams ap = o.avail;
    ap.boards = m.chips() / 4;
    ap.rate = {1.0, std::min(1.0, r1), std::min(1.0, r2)};
    AvailParams apb = ap;
    apb.rate = {1.0, std::min(1.0, r1b), std::min(1.0, r2b)};
    // A hole set is usable when every live chip still reaches every other; memoised.
    std::map<std::vector<int>, bool> memo;
    const int bw = m.w / 2;
    HolesUsable usable = [&](const std::vector<int>& holes) {
      std::vector<int> k = holes;
      std::sort(k.begin(), k.end());
      const auto it = memo.find(k);
      if (it != memo.end()) return it->second;
      NetworkConfig n;
      n.width = m.w;
      n.height = m.h;
      n.topology = m.topo == "torus" ? Topology::Torus : Topology::Mesh;
      for (int b : k) n.faults.boards.push_back({b % bw, b / bw});
      const bool u = FaultSet(n).connectivity().empty();
      memo[k] = u;
      return u;
    };
    const AvailSummary a = availability_monte_carlo(ap, AvailPolicy::StopAndRepair, o.seeds, 1);
    const AvailSummary b = availability_monte_carlo(ap, AvailPolicy::RouteAround, o.seeds, 1, usable);
    const AvailSummary bb = availability_monte_carlo(apb, AvailPolicy::RouteAround, o.seeds, 1, usable);
    auto ci = [](const MeanCI& c, int p) { return fmt(c.mean, p) + " ± " + fmt(c.half, p); };
    md << "| " << m.name() << " | " << fmt(r1, 4) << " | " << fmt(r2, 4) << " | (a) stop-and-repair | "
       << ci(a.goodput, 4) << " | " << ci(a.availability, 4) << " | " << ci(a.failures, 2) << " | " << ci(a.stops, 2) << " |\n"
       << "| " << m.name() << " | | | (b) route around | " << ci(b.goodput, 4) << " | " << ci(b.availability, 4)
       << " | " << ci(b.failures, 2) << " | " << ci(b.stops, 2) << " |\n"
       << "| " << m.name() << " | " << fmt(r1b, 4) << " | " << fmt(r2b, 4) << " | (b') route around, fastest algorithm per case | "
       << ci(bb.goodput, 4) << " | " << ci(bb.availability, 4) << " | " << ci(bb.failures, 2) << " | " << ci(bb.stops, 2) << " |\n";
    for (const auto& [pol, s, rate] : {std::tuple<std::string, AvailSummary, std::vector<double>>{"stop", a, ap.rate},
                                       {"route_around", b, ap.rate}, {"route_around_best", bb, apb.rate}})
      javail.push_back({{"machine", m.name()}, {"policy", pol}, {"rate", rate}, {"seeds", s.seeds},
                        {"goodput", s.goodput.mean}, {"goodput_ci95", s.goodput.half},
                        {"availability", s.availability.mean}, {"availability_ci95", s.availability.half},
                        {"failures", s.failures.mean}, {"stops", s.stops.mean}});
    ad << "\"" << m.name() << "\" " << a.goodput.mean << " " << a.goodput.half << " " << b.goodput.mean << " "
       << b.goodput.half << " " << bb.goodput.mean << " " << bb.goodput.half << "\n";
    const double diff = b.goodput.mean - a.goodput.mean, err = a.goodput.half + b.goodput.half;
    avail_note += "- " + m.mesh() + " " + m.topo + ": route-around goodput " + (diff >= 0 ? "exceeds" : "is below") +
                  " stop-and-repair by " + fmt(std::fabs(diff), 4) + (std::fabs(diff) > err ? "" : " (within the confidence intervals)") +
                  (diff < 0 ? ": with these step times a degraded machine running until the repair loses more than stopping does; "
                              "a faster fault-tolerant allreduce or a shorter repair time changes that" : "") + ".\n";
    gmin = std::min({gmin, a.goodput.mean - a.goodput.half, b.goodput.mean - b.goodput.half,
                     bb.goodput.mean - bb.goodput.half});
    avail_any = true;
  }
  data["availability"] = javail;
  ad << "EOD\n";
  if (avail_any) {
    ad << "set title 'Goodput of a " << fmt(o.avail.horizon_h / 24, 0) << "-day job, " << big.chips()
       << " chips, board MTBF " << fmt(o.avail.mtbf_h, 0) << " h (95 % CI)'\nset ylabel 'goodput'\n"
       << "set style data histograms\nset style histogram errorbars gap 2 lw 1.5\n"
       << "set style fill solid 0.85 border -1\nset grid ytics\nset yrange [" << fmt(std::max(0.0, std::floor(gmin * 20 - 1) / 20), 2)
       << ":1]\nset key below\n";
    plot_script(img, "availability", ad.str(),
                "plot $d using 2:3:xtic(1) title '(a) stop-and-repair' lc 2, '' using 4:5 title '(b) route around (ft2d)' lc 1, '' using 6:7 title '(b) fastest algorithm' lc 3", 800, 500);
    figs.push_back("availability");
    md << "\n" << avail_note << "\n![goodput](img/availability.png)\n";
  }
  md << "\n## Files\n\n`paper_data.json` beside this page holds every number above; the figures are in `img/` as PNG "
     << "and SVG with their gnuplot scripts (`gnuplot NAME.gp`, run from the directory the report was written from, "
     << "redraws one).\n";
  data["figures"] = figs;
  write_file_atomic(o.out + "/results.md", md.str());
  write_file_atomic(o.out + "/paper_data.json", data.dump(1) + "\n");
  std::cout << o.out << "/results.md\n" << o.out << "/paper_data.json\n";
  for (const std::string& f : figs) std::cout << img << "/" << f << ".png\n";
  std::cerr << "report: done in " << fmt(std::chrono::duration<double>(Clock::now() - t0).count(), 1) << " s\n";
  return kExitOk;
}

}  // namespace fm
