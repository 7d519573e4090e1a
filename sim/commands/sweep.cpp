// faultmesh sweep: runs every point of a sweep spec (sim/sweep_spec.cpp) as a child
// process of this same binary, on this machine (--backend local, N at a time) or as one
// Slurm job array (--backend slurm), each point writing DIR/points/<id>/; then collects
// DIR/results.csv and DIR/results.jsonl in point order. Layout and rules: docs/sweeps.md.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "sim/cli.h"
#include "sim/io.h"
#include "sim/options.h"
#include "sim/slurm.h"
#include "tb/util/subprocess.h"
#include "sim/sweep.h"
#include "tb/result_keys.h"
#include "tb/util/job_pool.h"
#include "tb/util/json_io.h"
#include "sim/view.h"

namespace fm {

namespace {

using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

// Result keys that measure the host, not the model: they differ from run to run, so
// results.csv/jsonl leave them out (they stay in each point's result.json) and the
// collected results are byte-identical whichever backend or machine ran the points.
const std::set<std::string> kHostTimingKeys = {result_key::kWallSeconds, result_key::kRouterCyclesPerSecond,
                                                result_key::kSimulator};

std::string slurp(const std::string& p, bool* ok = nullptr) {
  std::ifstream f(p, std::ios::binary);
  if (ok) *ok = (bool)f;
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string absolute(const std::string& p) {
  char b[4096];
  if (realpath(p.c_str(), b)) return b;
  return p;
}

// Parses a JSON file; null when missing or not (completely) valid JSON.
Json read_json(const std::string& path) { return read_json_file<Json>(path); }

// The last non-empty lines of a file, joined with " | " (at most ~400 characters).
std::string tail_of(const std::string& path, int lines) {
  std::istringstream in(slurp(path));
  std::vector<std::string> v;
  std::string l;
  while (std::getline(in, l))
    if (!trim_blank(l).empty()) v.push_back(trim_blank(l));
  std::string s;
  for (size_t i = v.size() > (size_t)lines ? v.size() - lines : 0; i < v.size(); ++i)
    s += (s.empty() ? "" : " | ") + v[i];
  if (s.size() > 400) s = "..." + s.substr(s.size() - 397);
  return s;
}

std::string fmt_duration(double s) {
  char b[32];
  if (s < 60) std::snprintf(b, sizeof b, "%.0fs", s);
  else if (s < 3600) std::snprintf(b, sizeof b, "%dm%02ds", (int)s / 60, (int)s % 60);
  else std::snprintf(b, sizeof b, "%dh%02dm", (int)s / 3600, (int)s % 3600 / 60);
  return b;
}

// A sweep directory: the manifest and where each point's files live.
struct SweepDir {
  std::string dir;  // absolute
  Json manifest;
  int n() const { return (int)manifest["points"].size(); }
  std::string name(int id) const { return point_name(id, n()); }
  std::string pdir(int id) const { return dir + "/points/" + name(id); }
  // "vcs=2 rate=0.1": the axis options of a point, for messages.
  std::string label(int id) const {
    std::set<std::string> axes;
    for (const auto& a : manifest["axes"]) axes.insert(a["option"].get<std::string>());
    std::string s;
    for (const auto& o : manifest["points"][id]["options"])
      if (axes.count(o[0].get<std::string>()))
        s += (s.empty() ? "" : " ") + o[0].get<std::string>() + "=" + o[1].get<std::string>();
    return s;
  }
  // Complete: status.json says exit 0 and result.json is whole, valid JSON. Both files
  // are only ever renamed into place, so a half-written one is never seen here.
  bool complete(int id) const {
    const Json st = read_json(pdir(id) + "/status.json");
    if (!st.is_object() || st.value("exit_code", -1) != 0) return false;
    return read_json(pdir(id) + "/result.json").is_object();
  }
  bool finished(int id) const { return read_json(pdir(id) + "/status.json").is_object(); }
};

// Starts one point: clears a previous attempt, runs `<exe> <command> <args> --json
// result.json -q` with stdout/stderr into the point's directory. Returns the pid; with
// `done_fd`, also the pipe the job pool waits on (spawn_redirected). `threads` > 0 adds
// `--threads N` to a point whose own options (or config file) do not choose it.
pid_t start_point(const SweepDir& sd, int id, int* done_fd = nullptr, int threads = 0) {
  const std::string d = sd.pdir(id);
  for (const char* f : {"/status.json", "/result.json", "/stdout", "/stderr"}) std::remove((d + f).c_str());
  std::vector<std::string> argv = {self_exe(), sd.manifest["command"].get<std::string>()};
  bool chosen = false;
  for (const auto& a : sd.manifest["points"][id]["args"]) {
    argv.push_back(a.get<std::string>());
    chosen |= argv.back() == "--threads" || argv.back() == "--config";
  }
  if (threads > 0 && !chosen) argv.insert(argv.end(), {"--threads", std::to_string(threads)});
  argv.insert(argv.end(), {"--json", d + "/result.json", "-q"});
  return spawn_redirected(argv, d + "/stdout", d + "/stderr", done_fd);
}

// Records how a point ended (atomically; written last, it marks the point finished).
void finish_point(const SweepDir& sd, int id, int code, double seconds) {
  Json st;
  st["exit_code"] = code;
  st["seconds"] = seconds;
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  st["host"] = host;
  write_file_atomic(sd.pdir(id) + "/status.json", st.dump(2) + "\n");
}

// The error line of a finished-but-failed point: exit code and the stderr tail.
std::string point_error(const SweepDir& sd, int id) {
  const Json st = read_json(sd.pdir(id) + "/status.json");
  if (!st.is_object()) return "";
  const int code = st.value("exit_code", -1);
  std::string e = code > 128 ? "killed by signal " + std::to_string(code - 128) : "exit " + std::to_string(code);
  if (code == 0) e = "exit 0 but no complete result.json";
  const std::string t = tail_of(sd.pdir(id) + "/stderr", 2);
  return t.empty() ? e : e + ": " + t;
}

// Progress on stderr: a bar redrawn in place on a terminal; otherwise plain lines.
class Progress {
 public:
  Progress(int total, int already) : total_(total), already_(already), tty_(isatty(2)) {}
  void update(int done, int failed) {  // done and failed count this session's points
    if (done == done_ && failed == failed_ && printed_) return;
    done_ = done;
    failed_ = failed;
    printed_ = true;
    const int all = already_ + done_;
    const double el = std::chrono::duration<double>(Clock::now() - t0_).count();
    const int left = total_ - all;
    std::string eta = done_ > 0 ? fmt_duration(el / done_ * left) : "?";
    char b[256];
    if (tty_) {
      const int w = 30, fill = total_ ? w * all / total_ : w;
      std::snprintf(b, sizeof b, "\rsweep [%s%s] %d/%d points, %d failed, ETA %s   ",
                    std::string(fill, '#').c_str(), std::string(w - fill, '-').c_str(), all, total_,
                    failed_, left ? eta.c_str() : "0s");
    } else {
      // Plain lines: at each tenth of the points, on a new failure, or every 30 s.
      const int tenth = total_ ? all * 10 / total_ : 10;
      const bool due = tenth != last_tenth_ || failed_ != last_failed_ || el - last_line_ >= 30 || left == 0;
      if (!due) return;
      last_tenth_ = tenth;
      last_failed_ = failed_;
      last_line_ = el;
      std::snprintf(b, sizeof b, "sweep: %d/%d points done, %d failed, elapsed %s, ETA %s\n", all,
                    total_, failed_, fmt_duration(el).c_str(), left ? eta.c_str() : "0s");
    }
    std::cerr << b << std::flush;
  }
  void end() {
    if (tty_ && printed_) std::cerr << "\n";
  }

 private:
  int total_, already_, done_ = 0, failed_ = 0;
  int last_tenth_ = -1, last_failed_ = 0;
  double last_line_ = 0;
  bool tty_, printed_ = false;
  Clock::time_point t0_ = Clock::now();
};

// Runs the given points here, `jobs` at a time; a failed point does not stop the rest.
void run_local(const SweepDir& sd, const std::vector<int>& todo, int jobs) {
  Progress prog(sd.n(), sd.n() - (int)todo.size());
  int done = 0, failed = 0;
  prog.update(0, 0);
  run_pool(
      todo.size(), jobs,
      [&](size_t i, PoolChild* c) {
        const int id = todo[i];
        try {
          c->pid = start_point(sd, id, &c->fd, threads_per_child(jobs));
          return true;
        } catch (const std::runtime_error& e) {  // could not start: record it as failed
          std::ofstream(sd.pdir(id) + "/stderr", std::ios::app) << e.what() << "\n";
          finish_point(sd, id, 127, 0);
          ++done, ++failed;
          return false;
        }
      },
      [&](size_t i, const PoolResult& r) {
        finish_point(sd, todo[i], r.exit_code, r.seconds);
        ++done;
        if (!sd.complete(todo[i])) ++failed;
        prog.update(done, failed);
      });
  prog.end();
}

// The Slurm job ids this sweep directory submitted that are still queued or running.
std::vector<std::string> active_jobs(const SweepDir& sd) { return slurm_active_jobs(sd.dir + "/slurm"); }

// Writes the job script and submits the points as one job array (index = point id).
// Returns the job id.
std::string submit_slurm(const SweepDir& sd, const std::vector<int>& todo, const SlurmOptions& so) {
  std::ostringstream body;
  body << "# faultmesh sweep: one array task runs one point (index = point id) and writes\n"
       << "# " << sd.dir << "/points/<id>/. Written by faultmesh sweep; resubmitted by it.\n"
       << "exec " << shell_quote(self_exe()) << " sweep --run-point \"$SLURM_ARRAY_TASK_ID\" --out "
       << shell_quote(sd.dir) << "\n";
  return slurm_submit_array(sd.dir + "/slurm", "faultmesh-sweep", body.str(), todo, so);
}

// Follows a submitted job array until it has left the queue (squeue) or every point it
// runs has finished, showing progress from the points' status files.
void wait_slurm(const SweepDir& sd, const std::string& job, const std::vector<int>& todo) {
  Progress prog(sd.n(), sd.n() - (int)todo.size());
  slurm_follow(job, (int)todo.size(), [&] {
    int done = 0, failed = 0;
    for (int id : todo)
      if (sd.finished(id)) {
        ++done;
        if (!sd.complete(id)) ++failed;
      }
    prog.update(done, failed);
    return done;
  });
  prog.end();
  // Tasks that ended without a status (killed, time limit, node failure): say how.
  for (int id : todo) {
    if (sd.finished(id)) continue;
    const std::string state = slurm_task_state(job, id);
    std::ofstream(sd.pdir(id) + "/stderr", std::ios::app)
        << "Slurm task " << job << "_" << id << " ended without a result"
        << (state.empty() ? "" : " (sacct state " + state + ")") << "; see " << sd.dir
        << "/slurm/" << job << "_" << id << ".out\n";
  }
}

// A results.csv cell: a value as text (null empty), quoted when needed.
std::string csv_cell(const Json& v) { return csv_quote(csv_text(v, true)); }

struct Tally {
  int ok = 0, failed = 0, pending = 0;
};

// Writes DIR/results.csv and DIR/results.jsonl: one row per point in point order with
// point, status (ok | failed | pending), error, every option as opt.<name> and every
// statistic flattened. Only files on disk are read, so every backend gives the same bytes.
Tally write_results(const SweepDir& sd) {
  std::vector<Json> rows;
  std::vector<std::string> cols;
  std::set<std::string> have;
  Tally t;
  for (int id = 0; id < sd.n(); ++id) {
    Json row;
    row["point"] = id;
    const bool fin = sd.finished(id), ok = fin && sd.complete(id);
    row["status"] = ok ? "ok" : fin ? "failed" : "pending";
    (ok ? t.ok : fin ? t.failed : t.pending)++;
    row["error"] = ok || !fin ? "" : point_error(sd, id);
    for (const auto& o : sd.manifest["points"][id]["options"]) {
      const std::string k = "opt." + o[0].get<std::string>(), v = o[1].get<std::string>() == "-" ? "" : o[1].get<std::string>();
      row[k] = row.contains(k) ? row[k].get<std::string>() + ";" + v : v;  // repeated option
    }
    const Json r = read_json(sd.pdir(id) + "/result.json");  // a failed run may have one too
    // Every statistic flattened (parent.key; per-link maps and host timings left out).
    if (fin && r.is_object()) flatten_json(r, [&](const std::string& k, const Json& v) { row[k] = v; }, kHostTimingKeys);
    for (auto it = row.begin(); it != row.end(); ++it)
      if (have.insert(it.key()).second) cols.push_back(it.key());
    rows.push_back(row);
  }
  std::string csv, jsonl;
  for (size_t i = 0; i < cols.size(); ++i) csv += (i ? "," : "") + csv_cell(cols[i]);
  csv += "\n";
  for (const Json& r : rows) {
    for (size_t i = 0; i < cols.size(); ++i) csv += (i ? "," : "") + (r.contains(cols[i]) ? csv_cell(r[cols[i]]) : "");
    csv += "\n";
    jsonl += r.dump() + "\n";
  }
  write_file_atomic(sd.dir + "/results.csv", csv);
  write_file_atomic(sd.dir + "/results.jsonl", jsonl);
  // DIR/index.html: the figures drawn so far (faultmesh plot adds them) and the points,
  // each with its own page (sim/view.h).
  write_sweep_index(sd.dir, rows, sd.dir + "/plots", true);
  return t;
}

// Reads DIR/sweep.json (a sweep prepared earlier); throws UsageError when absent.
SweepDir open_sweep_dir(const std::string& dir) {
  SweepDir sd;
  sd.dir = absolute(dir);
  sd.manifest = read_json(sd.dir + "/sweep.json");
  if (!sd.manifest.is_object() || !sd.manifest.contains("points"))
    throw UsageError("--out " + dir + ": no sweep here (no readable sweep.json)");
  return sd;
}

// One point inside a Slurm array task: run it unless already complete.
int run_point_task(const std::string& dir, int id) {
  const SweepDir sd = open_sweep_dir(dir);
  if (id < 0 || id >= sd.n())
    throw UsageError("--run-point " + std::to_string(id) + ": allowed 0.." + std::to_string(sd.n() - 1));
  if (sd.complete(id)) {
    std::cout << "point " << sd.name(id) << " already complete\n";
    return kExitOk;
  }
  const auto t0 = Clock::now();
  const pid_t pid = start_point(sd, id);
  int st = 0;
  wait_child(pid, &st);
  const int code = exit_code_of(st);
  finish_point(sd, id, code, std::chrono::duration<double>(Clock::now() - t0).count());
  std::cout << "point " << sd.name(id) << " (" << sd.label(id) << "): exit " << code << "\n";
  return code;
}

// Summary on stdout; exit 0 when every point is ok, 3 otherwise.
int report(const SweepDir& sd, const Tally& t, int ran_now) {
  std::cout << "sweep: " << sd.n() << " points: " << t.ok << " ok";
  if (ran_now >= 0) std::cout << " (" << ran_now << " run now)";
  std::cout << ", " << t.failed << " failed";
  if (t.pending) std::cout << ", " << t.pending << " not finished";
  std::cout << "\n";
  int shown = 0;
  for (int id = 0; id < sd.n() && shown < 10; ++id)
    if (sd.finished(id) && !sd.complete(id)) {
      std::cout << "  failed " << sd.name(id) << " (" << sd.label(id) << "): " << point_error(sd, id) << "\n";
      ++shown;
    }
  std::cout << "results: " << sd.dir << "/results.csv " << sd.dir << "/results.jsonl\n"
            << "page:    " << sd.dir << "/index.html\n";
  return t.failed || t.pending ? kExitRunFailed : kExitOk;
}

}  // namespace

int cmd_sweep(const std::vector<std::string>& args) {
  po::options_description desc;
  desc.add_options()
    ("out", po::value<std::string>(), "sweep directory: points/, results.csv, results.jsonl (required)")
    ("backend", po::value<std::string>()->default_value("local"), "local | slurm")
    ("jobs", po::value<int>(), "points at once: local default = CPU cores; slurm = array throttle %N (default none)")
    ("wait", po::bool_switch(), "slurm: follow the job array (squeue) until done, then collect")
    ("collect", po::bool_switch(), "run nothing: collect the results of the points finished so far")
    ("partition", po::value<std::string>(), "slurm: sbatch --partition")
    ("account", po::value<std::string>(), "slurm: sbatch --account")
    ("time", po::value<std::string>(), "slurm: sbatch --time, per point (e.g. 00:30:00)")
    ("sbatch-arg", po::value<std::vector<std::string>>()->composing(),
     "slurm: extra sbatch argument, repeatable; write --sbatch-arg=--mem=2G")
    ("help,h", "show this help");
  po::options_description hidden;
  hidden.add_options()
    ("run-point", po::value<int>(), "internal: run one point of DIR (a Slurm array task)");
  po::options_description all;
  all.add(desc).add(hidden);
  po::variables_map vm;
  std::vector<std::string> specs;
  try {
    po::parsed_options parsed = po::command_line_parser(args).options(all).run();
    specs = take_arguments(&parsed, 1, "faultmesh sweep SPEC --out DIR [options]");
    po::store(parsed, vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(po_error_text(e) + " (see faultmesh sweep --help)");
  }
  if (vm.count("help")) {
    std::cout << "usage: faultmesh sweep SPEC --out DIR [--backend local|slurm] [--jobs N] [--wait]\n"
                 "       faultmesh sweep SPEC --out DIR --collect\n"
                 "Runs every point of the sweep spec (docs/sweeps.md) and collects DIR/results.csv\n"
                 "and DIR/results.jsonl; a rerun skips the points already complete.\n\n"
              << desc << "\n";
    return kExitOk;
  }
  if (!vm.count("out")) throw UsageError("--out DIR is required (the sweep directory)");
  const std::string out = vm["out"].as<std::string>();
  check_path_value(out, "--out", "a directory");
  if (vm.count("run-point")) return run_point_task(out, vm["run-point"].as<int>());
  if (specs.empty()) throw UsageError("no sweep spec given: faultmesh sweep SPEC --out DIR");
  const std::string backend = vm["backend"].as<std::string>();
  if (backend != "local" && backend != "slurm")
    throw UsageError("--backend " + backend + ": allowed local | slurm");
  const int cores = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  const int jobs = vm.count("jobs") ? vm["jobs"].as<int>() : (backend == "local" ? cores : 0);
  if (vm.count("jobs") && (jobs < 1 || jobs > 4096))
    throw UsageError("--jobs " + std::to_string(jobs) + ": allowed 1..4096");
  if (vm["wait"].as<bool>() && backend != "slurm") throw UsageError("--wait: only with --backend slurm");
  for (const char* o : {"partition", "account", "time", "sbatch-arg"})
    if (vm.count(o) && backend != "slurm") throw UsageError("--" + std::string(o) + ": only with --backend slurm");

  // Everything is validated before anything runs or is written.
  for (const char* f : {"sweep.json", "results.csv", "results.jsonl", "slurm/job.sh", "slurm/jobs"})
    if (same_file(specs.front(), out + "/" + f))
      throw UsageError("sweep spec " + specs.front() + " is the sweep's own " + f + " in --out " + out +
                       ": a result must not overwrite its spec; keep the spec elsewhere");
  const SweepSpec spec = read_sweep_spec(specs.front());
  make_dirs(out, "--out");
  SweepDir sd;
  sd.dir = absolute(out);
  sd.manifest = spec_manifest(spec);
  const Json old = read_json(sd.dir + "/sweep.json");
  if (old.is_object()) {
    if (old["command"] != sd.manifest["command"] || old["points"] != sd.manifest["points"])
      throw UsageError("--out " + out + " holds a different sweep (its sweep.json has other points); "
                       "use a new --out directory");
  } else {
    write_file_atomic(sd.dir + "/sweep.json", sd.manifest.dump(1) + "\n");
  }
  for (int id = 0; id < sd.n(); ++id) make_dirs(sd.pdir(id), "--out");

  if (vm["collect"].as<bool>()) return report(sd, write_results(sd), -1);
  const auto act = active_jobs(sd);
  if (!act.empty())
    throw UsageError("--out " + out + ": Slurm job " + act.front() + " of this sweep is still queued or running; "
                     "collect later with --collect, or scancel " + act.front());
  std::vector<int> todo;
  for (int id = 0; id < sd.n(); ++id)
    if (!sd.complete(id)) todo.push_back(id);
  if (sd.n() - (int)todo.size() > 0)
    std::cerr << "sweep: " << sd.n() - (int)todo.size() << " of " << sd.n() << " points already complete, skipped\n";
  if (backend == "local") {
    if (!todo.empty()) run_local(sd, todo, jobs);
    return report(sd, write_results(sd), (int)todo.size());
  }
  if (!todo.empty()) {
    SlurmOptions so;
    so.throttle = jobs;
    if (vm.count("partition")) so.partition = vm["partition"].as<std::string>();
    if (vm.count("account")) so.account = vm["account"].as<std::string>();
    if (vm.count("time")) so.time = vm["time"].as<std::string>();
    if (vm.count("sbatch-arg")) so.extra = vm["sbatch-arg"].as<std::vector<std::string>>();
    const std::string job = submit_slurm(sd, todo, so);
    std::cerr << "sweep: submitted Slurm job array " << job << " (" << todo.size() << " points)\n";
    if (!vm["wait"].as<bool>()) {
      std::cout << "submitted job " << job << "; collect with: faultmesh sweep "
                << specs.front() << " --out " << out << " --collect\n";
      return kExitOk;
    }
    wait_slurm(sd, job, todo);
  }
  return report(sd, write_results(sd), (int)todo.size());
}

}  // namespace fm
