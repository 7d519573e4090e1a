// faultmesh report paper, step 1, running: each point's `faultmesh allreduce`
// arguments, the run store's records reused or the points run as child processes
// (locally or on Slurm), each record appended as its run ends.
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

// A run's JSON file (null when missing or not complete JSON: not done).
Json read_json(const std::string& p) { return read_json_file<Json>(p); }

// The last non-empty line of a file: a failed run's reason, from its stderr.
std::string last_line(const std::string& path) {
  std::ifstream f(path);
  std::string l, last;
  while (std::getline(f, l))
    if (!l.empty()) last = l;
  return last;
}

// A point's link (and credit) latency: its own in the sensitivity, else the report's.
int run_lat(const Point& p, const Opts& o) { return p.lat ? p.lat : o.link_latency; }
// A point's VC buffer depth: its own link latency's, but never less than the report's
// runs have, so a sensitivity run at a shorter link changes the latency alone.
int run_buf(const Point& p, const Opts& o) { return buf_for_latency(std::max(p.lat, o.link_latency)); }

// The allreduce arguments that define a point's run (the mid case's failure cycle comes
// from the fault-free run of the same machine, algorithm and size: `ff_cycles`), without
// the command name and without what never changes a result (outputs, threads): the
// run store's key.
std::vector<std::string> point_args(const Point& p, uint64_t ff_cycles, const Opts& o) {
  const int lat = run_lat(p, o);
  std::vector<std::string> a = {"--mesh", p.m.mesh(), "--topology", p.m.topo_name(),
                                "--algo", p.algo, "--order", kReportOrder, "--line", kReportLine,
                                "--bytes", std::to_string(p.bytes),
                                "--link-latency", std::to_string(lat), "--credit-latency", std::to_string(lat),
                                "--buf", std::to_string(run_buf(p, o)), "--verify", "off"};
  a.insert(a.end(), p.c.args.begin(), p.c.args.end());
  if (p.c.mid) {
    const uint64_t at = std::max<uint64_t>(1, (uint64_t)std::llround(o.fail_at_frac * (double)ff_cycles));
    a.push_back("--fail-at");
    a.push_back(std::to_string(at) + ":board:" + bstr(p.c.mid_bx, p.c.mid_by));
    a.push_back("--restart-algo");  // each algorithm recovers with itself
    a.push_back(p.algo);
  }
  return a;
}

// A run's exit status file in the runs directory, written by its Slurm array task when
// the run ends: "EXIT_CODE SECONDS".
std::string status_file(const Opts& o, const Point& p) { return o.runs + "/" + p.name + ".status"; }

// The Slurm job script's body for `todo` (array index = position in `todo`): each task
// runs its allreduce with the output files the local backend uses, then writes its
// status file (a temporary file renamed into place, so a half-written one is never read).
std::string slurm_body(const Opts& o, const std::vector<const Point*>& todo,
                       const std::vector<std::vector<std::string>>& argvs) {
  std::ostringstream b;
  b << "# faultmesh report paper: array task i runs simulation i of this batch and writes\n"
    << "# its JSON, .out, .err and .status in " << o.runs << ". Written by faultmesh report paper.\n"
    << "t0=$(date +%s)\n"
    << "case \"$SLURM_ARRAY_TASK_ID\" in\n";
  for (size_t i = 0; i < todo.size(); ++i) {
    const std::string f = o.runs + "/" + todo[i]->name;
    b << i << ")\n  ";
    for (const std::string& a : argvs[i]) b << shell_quote(a) << " ";
    b << "</dev/null >" << shell_quote(f + ".out") << " 2>" << shell_quote(f + ".err") << "\n"
      << "  code=$?\n  st=" << shell_quote(status_file(o, *todo[i])) << " ;;\n";
  }
  b << "*) echo \"faultmesh report paper: no run for array task $SLURM_ARRAY_TASK_ID\" >&2; exit 2 ;;\n"
    << "esac\n"
    << "echo \"$code $(( $(date +%s) - t0 ))\" >\"$st.tmp.$$\" && mv \"$st.tmp.$$\" \"$st\"\n"
    << "exit $code\n";
  return b.str();
}

// The exit code and seconds of a finished Slurm run (false while it has no status file).
bool read_status(const Opts& o, const Point& p, int* code, double* secs) {
  std::ifstream f(status_file(o, p));
  return (bool)(f >> *code >> *secs);
}

// The run store's key of a set of point arguments: the words shell-quoted, space-joined.
std::string key_of(const std::vector<std::string>& args) {
  std::string k;
  for (const std::string& a : args) k += (k.empty() ? "" : " ") + shell_quote(a);
  return k;
}

// The recovery model's version a run with this configuration echo depends on.
int recovery_version_of(const Json& config) {
  return config.value("fail-at", Json::array()).empty() ? 0 : kRecoveryVersion;
}

// The stored record that stands for point p's run with these arguments (its
// configuration, schedule fingerprint and model versions those of this binary), or null. A record whose
// schedule or model changed is not reused: the point runs again and replaces it.
const Json* stored_run(const Report& r, const std::vector<std::string>& args) {
  const Json* rec = r.store->find(key_of(args));
  if (!rec) return nullptr;
  RunKey k{key_of(args), "", kModelVersion, 0, Json()};
  try {
    k.config = allreduce_config_echo(args);
    k.fingerprint = r.fingerprints->get(k.args, args);
  } catch (const std::exception&) {
    return nullptr;  // refused now: it runs, and its failure says why
  }
  k.recovery_version = recovery_version_of(k.config);
  return r.store->valid(k);
}

// A finished run whose result is in the runs directory but not in the store (its report
// was interrupted after the run ended: a Slurm array it left running, or a kill between
// a run's end and its record): added to the store and returned when it is this point's
// run as this binary would make it (ok, these model versions, this schedule
// fingerprint and the configuration its arguments give); else null.
const Json* adopt(Report* r, const Point& p, const std::vector<std::string>& args) {
  const Json j = read_json(r->o.runs + "/" + p.name + ".json");
  if (!j.is_object() || !j.value(rk::kOk, false) || j.value(rk::kModelVersion, -1) != kModelVersion) return nullptr;
  Json config;
  std::string fp;
  try {
    config = allreduce_config_echo(args);
    fp = r->fingerprints->get(key_of(args), args);
  } catch (const std::exception&) {
    return nullptr;
  }
  const int made = j.value(rk::kRecoveryVersion, 0);
  if (j.value(rk::kScheduleFingerprint, "") != fp || j.value(rk::kConfig, Json()) != config ||
      !recovery_stands(j, made, recovery_version_of(config)))
    return nullptr;
  const Json sim = j.value(rk::kSimulator, Json::object());
  const bool links = p.name == r->heatmap_before || p.name == r->heatmap_after;
  r->store->put(make_record(j, p.name, {key_of(args), fp, kModelVersion, made, Json()},
                            {r->commit, host_cpu(), sim.value("threads", 1),
                             sim.value("wall_seconds", 0.0) + sim.value("setup_seconds", 0.0)},
                            links));
  return r->store->find(key_of(args));
}

// The cycles of the fault-free run a mid-run point times its failure from (the same
// machine, algorithm and size), 0 while that run has no result; *to_run says whether the
// run is among `todo`, still to run or running in this report.
uint64_t ff_cycles_of(const Report& r, const Point& p, const std::set<std::string>& todo, bool* to_run) {
  *to_run = false;
  for (const auto* v : {&r.stat, &r.wholepts})
    for (const Point& f : *v)
      if (f.c.id == CaseId::FaultFree && f.m.name() == p.m.name() && f.algo == p.algo && f.bytes == p.bytes) {
        const auto it = r.res.find(f.name);
        if (it != r.res.end() && it->second.ok) return it->second.j.value(rk::kCycles, (uint64_t)0);
        *to_run = todo.count(f.name) > 0;
        return 0;
      }
  return 0;
}

// Runs a batch of points that are not done yet: locally `jobs` child processes at a
// time in the order given, or as one Slurm job array followed to its end. Fills r->res
// and the report's run counts. A mid-run point needs its fault-free run's cycles: one
// whose fault-free run is among the runs to do is resolved when its turn comes
// (locally; after the others if that run has not ended by then), else it stays pending.
class Runner {
 public:
  Runner(Report* r, std::chrono::steady_clock::time_point t0)
      : r_(r), o_(r->o), out_(r->res), t0_(t0), exe_(self_exe()), cpu_(host_cpu()) {}

  void run(const std::vector<Point>& pts) {
    classify(pts);
    if (pts.empty()) return;
    std::cerr << "report: " << pts.size() << " runs, " << reused_ << " in the run store, " << todo_.size()
              << (o_.render_only ? " pending (--render-only)" : " to run") << ", "
              << (o_.backend == Backend::Slurm ? "as one Slurm job array" : std::to_string(o_.jobs) + " at a time") << "\n";
    if (r_->fingerprints->hits())
      std::cerr << "report: " << r_->fingerprints->hits() << " schedule fingerprints read from "
                << r_->fingerprints->path() << "\n";
    if (o_.render_only) return;
    if (o_.backend == Backend::Slurm) run_slurm();
    else run_local();
  }

 private:
  void pending(const Point& p, const std::string& why) {
    Outcome oc;
    oc.pending = true;
    oc.error = "pending: " + why;
    out_[p.name] = oc;
    ++r_->pending;
  }

  // Whether the run store (or a finished run's JSON) has the point; records it if so.
  bool reuse(const Point& p) {
    const Json* rec = stored_run(*r_, args_[p.name]);
    if (!rec && !o_.render_only) rec = adopt(r_, p, args_[p.name]);
    if (!rec) return false;
    out_[p.name] = {true, false, *rec, ""};
    ++r_->reused, ++reused_;
    return true;
  }

  // Each point's defining arguments, then reused from the store, pending, or to run.
  void classify(const std::vector<Point>& pts) {
    for (const Point& p : pts) {
      uint64_t ffc = 0;
      if (p.c.mid) {
        bool to_run = false;
        ffc = ff_cycles_of(*r_, p, todo_names_, &to_run);
        if (ffc == 0) {
          if (to_run && o_.backend != Backend::Slurm && !o_.render_only) todo_.push_back(&p), todo_names_.insert(p.name);
          else pending(p, "the fault-free run it times its failure from is not in the run store");
          continue;
        }
      }
      args_[p.name] = point_args(p, ffc, o_);
      if (reuse(p)) continue;
      if (o_.render_only) pending(p, "not in the run store");
      else todo_.push_back(&p), todo_names_.insert(p.name);
    }
  }

  // A mid-run point whose fault-free run was to run: its arguments once that run has
  // ended (then the store may have it already: false, recorded), or deferred (false)
  // while it still runs.
  bool resolve(const Point* p) {
    if (args_.count(p->name)) return true;
    bool to_run = false;
    const uint64_t ffc = ff_cycles_of(*r_, *p, todo_names_, &to_run);
    if (ffc == 0) {
      bool ended = false;
      for (const auto* v : {&r_->stat, &r_->wholepts})
        for (const Point& f : *v)
          if (f.c.id == CaseId::FaultFree && f.m.name() == p->m.name() && f.algo == p->algo && f.bytes == p->bytes)
            ended = out_.count(f.name) > 0;
      if (ended) pending(*p, "the fault-free run it times its failure from did not finish");
      else deferred_.push_back(p);
      return false;
    }
    args_[p->name] = point_args(*p, ffc, o_);
    if (reuse(*p)) {
      ++done_;
      return false;
    }
    return true;
  }

  // --budget: a run starts only when its expected time ends before the deadline; the
  // rest stay pending for the next report (or another machine) to run.
  bool fits_budget(const Point* p) {
    if (r_->deadline_s <= 0) return true;
    const double now = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    if (now + expected_seconds(*r_, *p) <= r_->deadline_s) return true;
    pending(*p, "expected " + fmt(expected_seconds(*r_, *p) / 60, 1) + " min, beyond --budget");
    return false;
  }

  // A point's command line, with its output files in the runs directory; a stale JSON
  // or status there (another link set-up, a failed run) is removed first, so that it
  // cannot pass for this run's.
  std::vector<std::string> argv_of(const Point* p) {
    const std::string f = o_.runs + "/" + p->name;
    std::vector<std::string> argv = {exe_, "allreduce"};
    for (const std::string& a : args_[p->name]) argv.push_back(a);
    for (const std::string& a : {std::string("--threads"), std::to_string(o_.threads), std::string("--json"),
                                 f + ".json", std::string("-q")})
      argv.push_back(a);
    for (const char* ext : {".err", ".out", ".json", ".status"}) std::remove((f + ext).c_str());
    return argv;
  }

  // A run that ended: its record appended to the store at once (a report killed later
  // keeps it), or why it failed.
  void finish(const Point* p, int code, double secs) {
    const std::string f = o_.runs + "/" + p->name;
    const Json j = read_json(f + ".json");
    Outcome oc;
    if (code == 0 && j.is_object() && j.value(rk::kOk, false) && j.value(rk::kModelVersion, -1) == kModelVersion &&
        j.value(rk::kRecoveryVersion, 0) == recovery_version_of(j.value(rk::kConfig, Json::object()))) {
      const bool links = p->name == r_->heatmap_before || p->name == r_->heatmap_after;
      const Json rec =
          make_record(j, p->name,
                      {key_of(args_[p->name]), j.value(rk::kScheduleFingerprint, ""), kModelVersion,
                       recovery_version_of(j.value(rk::kConfig, Json::object())), Json()},
                      {r_->commit, cpu_, o_.threads, secs}, links);
      r_->store->put(rec);
      oc = {true, false, rec, ""};
    } else {
      const std::string why = last_line(f + ".err");
      oc.error = "exit " + std::to_string(code) + (why.empty() ? "" : ": " + why);
    }
    out_[p->name] = oc;
    ++done_;
    std::cerr << "report: [" << done_ << "/" << todo_.size() << "] " << p->name << " "
              << (oc.ok ? "ok" : "FAILED (" + oc.error + ")") << ", " << fmt(secs, 1) << " s\n";
  }

  bool start(const Point* p, PoolChild* c) {
    if (!resolve(p) || !fits_budget(p)) return false;
    const std::string f = o_.runs + "/" + p->name;
    try {
      c->pid = spawn_redirected(argv_of(p), f + ".out", f + ".err", &c->fd);
      ++r_->ran_now;
      return true;
    } catch (const std::runtime_error& e) {
      out_[p->name] = {false, false, Json(), e.what()};
      return false;
    }
  }

  // One pool in the given order, then the mid-run points whose fault-free run was still
  // running when their turn came.
  void run_local() {
    for (int pass = 0; pass < 2; ++pass) {
      std::vector<const Point*> list;
      if (pass == 0) list = todo_;
      else list.swap(deferred_);
      run_pool(
          list.size(), o_.jobs, [&](size_t i, PoolChild* c) { return start(list[i], c); },
          [&](size_t i, const PoolResult& res) { finish(list[i], res.exit_code, res.seconds); });
    }
    for (const Point* p : deferred_) pending(*p, "the fault-free run it times its failure from did not finish");
  }

  void run_slurm() {
    std::vector<const Point*> runnable = todo_;
    std::vector<std::vector<std::string>> argvs;
    for (const Point* p : runnable) argvs.push_back(argv_of(p));
    if (runnable.empty()) return;
    std::vector<int> ids(runnable.size());
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = (int)i;
    const std::string job = slurm_submit_array(o_.runs + "/slurm", "faultmesh-report", slurm_body(o_, runnable, argvs),
                                               ids, o_.slurm);
    r_->slurm_jobs.push_back(job);
    r_->ran_now += (int)runnable.size();
    std::cerr << "report: submitted Slurm job array " << job << " (" << runnable.size() << " runs)\n";
    std::vector<bool> seen(runnable.size(), false);
    auto collect = [&] {  // reports the runs that finished since the last call
      int n = 0;
      for (size_t i = 0; i < runnable.size(); ++i) {
        int code;
        double secs;
        if (!seen[i] && read_status(o_, *runnable[i], &code, &secs)) {
          seen[i] = true;
          finish(runnable[i], code, secs);
        }
        n += seen[i];
      }
      return n;
    };
    slurm_follow(job, (int)runnable.size(), collect);
    for (size_t i = 0; i < runnable.size(); ++i)
      if (!seen[i]) {  // killed, time limit, node failure: say how
        const std::string state = slurm_task_state(job, (int)i);
        out_[runnable[i]->name] = {false, false, Json(),
                                   "Slurm task " + job + "_" + std::to_string(i) + " ended without a result" +
                                       (state.empty() ? "" : " (sacct state " + state + ")") + "; see " + o_.runs +
                                       "/slurm/" + job + "_" + std::to_string(i) + ".out"};
        ++done_;
        std::cerr << "report: [" << done_ << "/" << todo_.size() << "] " << runnable[i]->name << " FAILED ("
                  << out_[runnable[i]->name].error << ")\n";
      }
  }

  Report* r_;
  const Opts& o_;
  std::map<std::string, Outcome>& out_;
  const std::chrono::steady_clock::time_point t0_;
  const std::string exe_, cpu_;
  std::map<std::string, std::vector<std::string>> args_;  // the defining arguments of each point
  std::vector<const Point*> todo_, deferred_;
  std::set<std::string> todo_names_;
  int reused_ = 0, done_ = 0;
};

// Before anything runs: the Slurm jobs an earlier report submitted into this runs
// directory that are still queued or running write into it, so a local report must not
// run beside them, and a Slurm report follows them to their end (then reuses what they
// finished): an interrupted report resumes instead of running its points twice.
void settle_earlier_jobs(const Opts& o) {
  const std::vector<std::string> act = slurm_active_jobs(o.runs + "/slurm");
  if (act.empty()) return;
  if (o.backend != Backend::Slurm)
    throw UsageError("--runs " + o.runs + ": Slurm job " + act.front() +
                     " of an earlier report paper --backend slurm is still queued or running and writes there; "
                     "rerun with --backend slurm to follow it, or scancel " + act.front());
  for (const std::string& job : act) {
    std::cerr << "report: following Slurm job " << job << " of an earlier run of this report (still queued or running)\n";
    slurm_follow(job, 1, [] { return 0; });  // until squeue no longer lists it
  }
}

}  // namespace

const Json* stored_point(const Report& r, const Point& p) {
  uint64_t ffc = 0;
  if (p.c.mid) {
    const Json* ff = nullptr;
    for (const auto* v : {&r.stat, &r.wholepts})
      for (const Point& q : *v)
        if (q.c.id == CaseId::FaultFree && q.m.name() == p.m.name() && q.algo == p.algo && q.bytes == p.bytes)
          ff = stored_run(r, point_args(q, 0, r.o));
    if (!ff) return nullptr;
    ffc = ff->value(rk::kCycles, (uint64_t)0);
  }
  return stored_run(r, point_args(p, ffc, r.o));
}

double expected_seconds(const Report& r, const Point& p) {
  double rate = r.store->rate(host_cpu(), r.o.threads);
  if (rate <= 0) rate = r.o.threads >= 2 ? kDefaultRate2 : kDefaultRate1;
  return p.chip_gb() / rate * (p.c.mid ? 1.5 : 1.0);  // a mid-run failure redoes part of the work
}

void Report::run_all_points() {
  const auto t0 = std::chrono::steady_clock::now();
  deadline_s = o.budget_s;
  // The source the runs are made from, read once as the report starts (a tree edited
  // while it runs does not change what its binary simulates).
  if (!o.render_only) commit = source_commit(o.store.substr(0, o.store.find_last_of('/') + 1) + ".");
  if (!o.render_only) settle_earlier_jobs(o);
  // In priority order (ordered_points), one pool locally, so that no core waits for a
  // priority's last run; a mid-run failure resolves its fault-free run's cycles when its
  // turn comes (run_points). On Slurm, two arrays: every point that needs no other run,
  // then the mid-run failures, which time their failure from the fault-free runs.
  const std::vector<const Point*> order = ordered_points();
  if (o.backend == Backend::Slurm) {
    for (bool mids : {false, true}) {
      std::vector<Point> batch;
      for (const Point* p : order)
        if (p->c.mid == mids) batch.push_back(*p);
      if (!batch.empty()) Runner(this, t0).run(batch);
    }
  } else {
    std::vector<Point> batch;
    for (const Point* p : order) batch.push_back(*p);
    Runner(this, t0).run(batch);
  }
  all = stat;
  all.insert(all.end(), midpts.begin(), midpts.end());
  run_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace fm::paper_report
