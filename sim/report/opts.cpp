// faultmesh report paper: its options, parsed and checked (parse_opts,
// sim/report/impl.h).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <boost/program_options.hpp>

#include "sim/io.h"
#include "sim/report/impl.h"
#include "sim/po_error.h"
#include "tb/util/parse.h"

namespace fm::paper_report {

namespace {

namespace po = boost::program_options;

// A duration: one or more NUMBER UNIT terms with units h, m, s (e.g. 2h30m, 90m,
// 5400s, 1.5h), or a plain number of seconds; false for anything else.
bool parse_duration(const std::string& text, double* secs) {
  *secs = 0;
  if (text.empty()) return false;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = i;
    while (j < text.size() && (std::isdigit((unsigned char)text[j]) || text[j] == '.')) ++j;
    if (j == i) return false;
    double v;
    try {
      size_t used = 0;
      v = std::stod(text.substr(i, j - i), &used);
      if (used != j - i) return false;
    } catch (const std::exception&) {
      return false;
    }
    if (j == text.size()) {
      if (i != 0) return false;  // a bare number only on its own
      *secs = v;
      return std::isfinite(v);
    }
    const char u = text[j];
    if (u != 'h' && u != 'm' && u != 's') return false;
    *secs += v * (u == 'h' ? 3600 : u == 'm' ? 60 : 1);
    i = j + 1;
  }
  return std::isfinite(*secs);
}

// The non-empty fields of `s` between the separators.
std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> v;
  std::stringstream in(s);
  std::string t;
  while (std::getline(in, t, sep))
    if (!t.empty()) v.push_back(t);
  return v;
}

// Every numeric option has a range: the model's physical sense, wide enough for any
// study, narrow enough that a typo (1e19 parameters) is refused instead of simulated.
double ranged(const po::variables_map& vm, const char* n) {
  struct Range {
    double lo, hi;
    bool lo_open;
    const char* unit;
  };
  static const std::map<std::string, Range> kRanges = {
      {"resnet-params", {1e3, 1e9, false, "parameters (fp32 gradient at most 4 GB per chip)"}},
      {"bert-params", {1e3, 1e9, false, "parameters (fp32 gradient at most 4 GB per chip)"}},
      {"resnet-compute-ms", {0, 1e6, false, "ms"}},
      {"bert-compute-ms", {0, 1e6, false, "ms"}},
      {"mtbf-h", {0, 1e7, true, "hours"}},
      {"spare-slice-h", {0, 1e5, false, "hours"}},
      {"restart-h", {0, 1e5, false, "hours"}},
      {"reconfig-min", {0, 1e6, false, "minutes"}},
      {"repair-h", {0, 1e5, false, "hours"}},
      {"ckpt-h", {0, 1e5, true, "hours"}},
      {"job-days", {0, 36500, true, "days"}},
  };
  auto g = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", v);
    return std::string(b);
  };
  const double v = vm[n].as<double>();
  const Range& r = kRanges.at(n);
  if (!std::isfinite(v) || (r.lo_open ? !(v > r.lo) : !(v >= r.lo)) || !(v <= r.hi))
    throw UsageError(std::string("--") + n + " " + g(v) + ": allowed " + (r.lo_open ? "(" : "[") + g(r.lo) + ", " +
                     g(r.hi) + "] " + r.unit);
  return v;
}

// An on | off option, `dflt` when not given.
bool on_off(const po::variables_map& vm, const char* n, bool dflt) {
  if (!vm.count(n)) return dflt;
  const std::string v = vm[n].as<std::string>();
  if (v != "on" && v != "off") throw UsageError(std::string("--") + n + " " + v + ": allowed on | off");
  return v == "on";
}

// --latency-sensitivity: off (none) or distinct cycles 1..1000, sorted.
std::vector<int> latencies(const std::string& v) {
  std::vector<int> out;
  if (v == "off") return out;
  std::stringstream in(v);
  std::string item;
  while (std::getline(in, item, ',')) {
    int l = 0;
    size_t used = 0;
    try {
      l = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || l < 1 || l > 1000)
      throw UsageError("--latency-sensitivity " + v + ": '" + item + "' is not a latency; allowed off or cycles 1..1000, comma-separated");
    if (std::find(out.begin(), out.end(), l) == out.end()) out.push_back(l);
  }
  if (out.empty()) throw UsageError("--latency-sensitivity: allowed off or cycles 1..1000, comma-separated");
  std::sort(out.begin(), out.end());
  return out;
}

// A size list: >= 2 distinct sizes, sorted.
std::vector<uint64_t> size_list(const std::string& text, const std::string& opt) {
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
}

// The options, their defaults and help (a table).
void describe(po::options_description& d) {
  const AvailParams ad;
  d.add_options()
    ("quick", po::bool_switch(), "small machines (8x16, 16x16) and tiny sizes: about 70 s on 2 cores")
    ("plan", po::bool_switch(), "list every run the report needs in the order it runs them (done in the run store or not), the chip-GB left and the hours they take here, per priority class and in all, then exit: nothing is run or written")
    ("out", po::value<std::string>()->default_value("docs"), "directory for results.md, img/ and paper_data.json")
    ("store", po::value<std::string>(), "the run store: one record per finished run, appended as each run ends and reused while its configuration, schedule fingerprint and model versions match (default OUT/paper/runs.jsonl; docs/sweeps.md)")
    ("budget", po::value<std::string>(), "local: run the missing runs in priority order for at most this long, e.g. 2h30m, 90m, 5400s (a run starts only if its expected time, from the store's rate on this CPU, ends inside it); then write the page. Default: no limit")
    ("render-only", po::bool_switch(), "run nothing: write the page from the run store, runs not in it shown as pending (exit 5 when any is)")
    ("runs", po::value<std::string>(), "scratch directory for the running simulations' JSON and logs (default OUT/runs; the results are kept in the run store)")
    ("backend", po::value<std::string>()->default_value("local"), "local (child processes on this machine) | slurm (each batch of runs one Slurm job array, followed until done; a rerun follows a job an interrupted report left queued)")
    ("jobs", po::value<int>(), "local: simulations at once, 1..64 (default: CPU cores); slurm: the array throttle %N, 1..4096 (default none)")
    ("threads", po::value<int>(), "worker threads of each simulation, 1..256 (local default: the CPU cores shared among the --jobs runs, at least 1; slurm default 1, and each task asks for that many CPUs); never changes a result")
    ("partition", po::value<std::string>(), "slurm: sbatch --partition")
    ("account", po::value<std::string>(), "slurm: sbatch --account")
    ("time", po::value<std::string>(), "slurm: sbatch --time, per run (e.g. 02:00:00)")
    ("sbatch-arg", po::value<std::vector<std::string>>()->composing(), "slurm: extra sbatch argument, repeatable; write --sbatch-arg=--mem=8G")
    ("meshes", po::value<std::string>(), "machines WxH, comma-separated, W and H multiples of 4 (default 16x32,32x32; quick 8x16,16x16)")
    ("topologies", po::value<std::string>()->default_value("mesh,torus"), "mesh and/or torus")
    ("sizes", po::value<std::string>(), "simulated bytes per chip of the fits, comma-separated, >= 2 distinct multiples of 64 (default 16MiB,32MiB,64MiB: bandwidth-bound, 4x apart, with the 64 KiB chunk of the whole-size runs; quick 32KiB,64KiB,128KiB)")
    ("mesh-sizes", po::value<std::vector<std::string>>()->composing(), "WxH=SIZES: simulated sizes for one machine instead of --sizes (repeatable), e.g. 32x32=256KiB,512KiB,1MiB")
    ("whole", po::value<std::string>(), "on | off: simulate the gradients whole instead of fitting them: ResNet-50 bf16 for every machine, case and algorithm, ResNet-50 fp32 fault-free and centre board with ft2d, BERT-large bf16 fault-free with ft2d per machine; each fit is checked against them (default on; quick off). Each such gradient must be a multiple of 64 bytes")
    ("check-factor", po::value<int>(), "extrapolation check: also simulate ft2d fault-free and centre-board at this multiple of the largest size on the smallest machine and compare with the fit, 0 (off) or 2..64 (default 4 with --whole off, else 0: the whole-size runs check the fits)")
    ("resnet-params", po::value<double>()->default_value(25.6e6, "25.6e6"), "ResNet-50 parameters")
    ("bert-params", po::value<double>()->default_value(340e6, "340e6"), "BERT-large parameters")
    ("resnet-compute-ms", po::value<double>()->default_value(16, "16"), "ResNet-50 compute per step per chip, ms (docs/results.md: assumptions)")
    ("bert-compute-ms", po::value<double>()->default_value(170, "170"), "BERT-large compute per step per chip, ms")
    ("overlap", po::value<double>()->default_value(0, "0"), "fraction of the allreduce hidden behind compute, 0..1")
    ("bucket-mb", po::value<double>()->default_value(25, "25"), "gradient bucket cap, MiB (as PyTorch DDP's bucket_cap_mb), (0, 4096]: the buckets' allreduces overlap the backward pass")
    ("bucket-runs", po::value<std::string>(), "on | off: simulate every bucket size class on the fault-free and centre-board cases (default on; quick off: the buckets' times then come from the fits)")
    ("link-latency", po::value<int>()->default_value(200), "ICI link and credit latency per hop, cycles of 0.64 ns, 1..1000 (200 = 128 ns: FEC, SerDes and 2 m of cable; docs/results.md assumptions); each run's VC buffers cover its credit round trip")
    ("latency-sensitivity", po::value<std::string>(), "link latencies (cycles, comma-separated, 1..1000) at which the headline's series are also simulated, or off (default 1,10,100,500; quick: on the largest machine only)")
    ("fail-at-fraction", po::value<double>()->default_value(0.5, "0.5"), "mid-allreduce case: the board fails at this fraction of the fault-free time, (0,1)")
    ("mtbf-h", po::value<double>()->default_value(ad.mtbf_h, "8760"), "mean time between failures of one board (4 chips + host), hours")
    ("spare-slice-h", po::value<double>(), "(a) move the job to a healthy spare slice after a failure, hours (default: no spare slice, as for a job on a whole pod: it waits for the repair)")
    ("restart-h", po::value<double>()->default_value(ad.restart_h, "0.25"), "restart from a checkpoint, hours")
    ("reconfig-min", po::value<double>()->default_value(5, "5"), "(b) reconfigure around a hole, minutes")
    ("repair-h", po::value<double>()->default_value(ad.repair_h, "48"), "replacing a failed board, hours (both policies wait for it)")
    ("ckpt-h", po::value<double>()->default_value(ad.ckpt_h, "1"), "checkpoint interval, hours")
    ("job-days", po::value<double>()->default_value(28, "28"), "the training job's work, days of the full never-failing machine (the job runs until it is done: time-to-train)")
    ("max-holes", po::value<int>()->default_value(2), "(b) most failed boards the job runs with, 0..2 (the hole counts simulated)")
    ("seeds", po::value<int>(), "Monte Carlo jobs per policy, 2..1000000 (default 1000; quick 200)")
    ("avail-model", po::value<std::string>()->default_value("bert"), "gradient whose step times drive the availability model: resnet | bert")
    ("avail-dtype", po::value<std::string>()->default_value("fp32"), "fp32 | bf16")
    ("help,h", "show this help");
}

// Where the report writes and how it runs: --out, --runs, --store, --budget,
// --render-only, --backend and its options, --jobs, --threads.
void parse_running(const po::variables_map& vm, Opts& o) {
  o.out = vm["out"].as<std::string>();
  check_path_value(o.out, "--out", "a directory");
  o.runs = vm.count("runs") ? vm["runs"].as<std::string>() : o.out + "/runs";
  check_path_value(o.runs, "--runs", "a directory");
  o.store = vm.count("store") ? vm["store"].as<std::string>() : o.out + "/paper/runs.jsonl";
  check_path_value(o.store, "--store", "a file path");
  o.render_only = vm["render-only"].as<bool>();
  if (vm.count("budget")) {
    const std::string b = vm["budget"].as<std::string>();
    if (!parse_duration(b, &o.budget_s) || o.budget_s <= 0)
      throw UsageError("--budget " + b + ": expected a duration > 0 such as 2h30m, 90m, 5400s or 1.5h");
    if (o.render_only) throw UsageError("--budget: not with --render-only (which runs nothing)");
  }
  const std::string backend = vm["backend"].as<std::string>();
  if (!parse_enum(backend, &o.backend))
    throw UsageError("--backend " + backend + ": allowed " + enum_list<Backend>());
  const bool slurm = o.backend == Backend::Slurm;
  for (const char* n : {"partition", "account", "time", "sbatch-arg"})
    if (vm.count(n) && !slurm) throw UsageError("--" + std::string(n) + ": only with --backend slurm");
  if (slurm && vm.count("budget"))
    throw UsageError("--budget: only with --backend local (a Slurm report submits every missing run; limit each with --time)");
  const int cores = (int)std::max(1u, std::thread::hardware_concurrency());
  o.jobs = vm.count("jobs") ? vm["jobs"].as<int>() : slurm ? 0 : cores;
  if (vm.count("jobs") && (o.jobs < 1 || o.jobs > (slurm ? 4096 : 64)))
    throw UsageError("--jobs " + std::to_string(o.jobs) + (slurm ? ": allowed 1..4096 (the array throttle)" : ": allowed 1..64"));
  o.threads = vm.count("threads") ? vm["threads"].as<int>() : slurm ? 1 : threads_per_child(o.jobs);
  if (o.threads < 1 || o.threads > 256)
    throw UsageError("--threads " + std::to_string(o.threads) + ": allowed 1..256");
  if (slurm) {
    o.slurm.throttle = o.jobs;
    o.slurm.cpus_per_task = o.threads;
    if (vm.count("partition")) o.slurm.partition = vm["partition"].as<std::string>();
    if (vm.count("account")) o.slurm.account = vm["account"].as<std::string>();
    if (vm.count("time")) o.slurm.time = vm["time"].as<std::string>();
    if (vm.count("sbatch-arg")) o.slurm.extra = vm["sbatch-arg"].as<std::vector<std::string>>();
  }
}

// Which machines and sizes: --meshes, --topologies, --sizes, --mesh-sizes.
void parse_machines(const po::variables_map& vm, Opts& o) {
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
    Topology topo;
    if (!parse_enum(t, &topo)) throw UsageError("--topologies " + topos + ": allowed mesh, torus or both");
    o.topos.push_back(topo);
  }
  if (o.topos.empty()) throw UsageError("--topologies: allowed mesh, torus or both");
  const std::string sizes = vm.count("sizes") ? vm["sizes"].as<std::string>() : o.quick ? "32KiB,64KiB,128KiB" : kFullSizes;
  o.sizes_given = vm.count("sizes") > 0 || vm.count("mesh-sizes") > 0;
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
}

// The training model: --whole, --check-factor, the gradients, overlap, buckets, the
// links, --latency-sensitivity, --fail-at-fraction.
void parse_model(const po::variables_map& vm, Opts& o) {
  o.whole = on_off(vm, "whole", !o.quick);
  o.check_factor = vm.count("check-factor") ? vm["check-factor"].as<int>() : o.whole ? 0 : 4;
  if (o.check_factor != 0 && (o.check_factor < 2 || o.check_factor > 64))
    throw UsageError("--check-factor " + std::to_string(o.check_factor) + ": allowed 0 (off) or 2..64");
  if (o.check_factor && o.sizes.back() * o.check_factor > (4ULL << 30))  // checks run on the smallest machine
    throw UsageError("--check-factor " + std::to_string(o.check_factor) + ": the checked size would exceed 4GiB");
  o.resnet_params = ranged(vm, "resnet-params");
  o.bert_params = ranged(vm, "bert-params");
  o.resnet_ms = ranged(vm, "resnet-compute-ms");
  o.bert_ms = ranged(vm, "bert-compute-ms");
  // The whole-size runs simulate a gradient's exact bytes, which the flits carry in
  // 64-byte words (sizes are multiples of 64 everywhere).
  if (o.whole)
    for (const auto& [name, params] : {std::pair<const char*, double>{"resnet-params", o.resnet_params}, {"bert-params", o.bert_params}}) {
      const double bf16 = params * 2;
      if (bf16 != std::floor(bf16) || std::fmod(bf16, 64) != 0)
        throw UsageError(std::string("--") + name + " " + fmt(params, 0) +
                         ": with --whole on the gradient is simulated whole, so 2 x parameters (its bf16 bytes) must be "
                         "a whole multiple of 64; allowed e.g. 25.6e6 (--whole off fits any)");
    }
  o.overlap = vm["overlap"].as<double>();
  if (!(o.overlap >= 0 && o.overlap <= 1)) throw UsageError("--overlap: allowed 0..1");
  o.bucket_mib = vm["bucket-mb"].as<double>();
  if (!(o.bucket_mib > 0 && o.bucket_mib <= 4096)) throw UsageError("--bucket-mb: allowed (0, 4096] MiB");
  o.bucket_runs = on_off(vm, "bucket-runs", !o.quick);
  o.link_latency = vm["link-latency"].as<int>();
  if (o.link_latency < 1 || o.link_latency > 1000)
    throw UsageError("--link-latency " + std::to_string(o.link_latency) + ": allowed 1..1000 cycles");
  if (vm.count("latency-sensitivity")) o.lat_sens = latencies(vm["latency-sensitivity"].as<std::string>());
  o.fail_at_frac = vm["fail-at-fraction"].as<double>();
  if (!(o.fail_at_frac > 0 && o.fail_at_frac < 1)) throw UsageError("--fail-at-fraction: allowed (0, 1)");
}

// The availability model: failures, repairs, checkpoints, the job, the Monte Carlo.
void parse_availability(const po::variables_map& vm, Opts& o) {
  o.avail.mtbf_h = ranged(vm, "mtbf-h");
  if (vm.count("spare-slice-h")) o.avail.spare_slice_h = ranged(vm, "spare-slice-h");
  o.avail.restart_h = ranged(vm, "restart-h");
  o.avail.reconfig_h = ranged(vm, "reconfig-min") / 60;
  o.avail.repair_h = ranged(vm, "repair-h");
  o.avail.ckpt_h = ranged(vm, "ckpt-h");
  o.avail.work_h = ranged(vm, "job-days") * 24;
  o.avail.horizon_h = kJobCap * o.avail.work_h;
  o.avail.max_holes = vm["max-holes"].as<int>();
  if (o.avail.max_holes < 0 || o.avail.max_holes > 2)
    throw UsageError("--max-holes " + std::to_string(o.avail.max_holes) + ": allowed 0..2 (step times are simulated for 1 and 2 failed boards)");
  o.seeds = vm.count("seeds") ? vm["seeds"].as<int>() : o.quick ? 200 : 1000;
  if (o.seeds < 2 || o.seeds > 1000000) throw UsageError("--seeds " + std::to_string(o.seeds) + ": allowed 2..1000000");
  const std::string model = vm["avail-model"].as<std::string>(), dtype = vm["avail-dtype"].as<std::string>();
  if (!parse_enum(model, &o.avail_model))
    throw UsageError("--avail-model " + model + ": allowed " + enum_list<Net>());
  if (!parse_enum(dtype, &o.avail_dtype))
    throw UsageError("--avail-dtype " + dtype + ": allowed " + enum_list<DType>());
}

}  // namespace

Opts parse_opts(const std::vector<std::string>& args, bool* help) {
  po::options_description d("report paper");
  describe(d);
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
  o.plan = vm["plan"].as<bool>();
  parse_running(vm, o);
  parse_machines(vm, o);
  parse_model(vm, o);
  parse_availability(vm, o);
  o.argv = args;
  return o;
}

}  // namespace fm::paper_report
