// faultmesh report paper, step 1: the fault cases of each machine, the `faultmesh
// allreduce` arguments of each point, and the points run as child processes (resuming
// from the runs directory).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "models/config.h"
#include "models/model_version.h"
#include "sim/paper_report_impl.h"
#include "sim/cli.h"
#include "sim/slurm.h"
#include "tb/util/subprocess.h"
#include "tb/util/job_pool.h"
#include "tb/util/json_io.h"
#include "tb/traffic_run.h"

namespace fm::paper_report {

namespace {

// A coordinate as the options write it: "x,y".
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
  std::vector<std::string> a = {"--mesh", p.m.mesh(), "--topology", p.m.topo,
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
const Json* stored_run(const RunStore& store, const std::vector<std::string>& args) {
  const Json* rec = store.find(key_of(args));
  if (!rec) return nullptr;
  RunKey k{key_of(args), "", kModelVersion, 0, Json()};
  try {
    k.fingerprint = allreduce_fingerprint(args, &k.config);
  } catch (const std::exception&) {
    return nullptr;  // refused now: it runs, and its failure says why
  }
  k.recovery_version = recovery_version_of(k.config);
  return store.valid(k);
}

// Whether the store has a valid record for p (the mid case's only when its fault-free
// run is stored too: its failure cycle comes from that run).
const Json* stored_point(const Report& r, const Point& p) {
  uint64_t ffc = 0;
  if (p.c.mid) {
    const Json* ff = nullptr;
    for (const auto* v : {&r.stat, &r.wholepts})
      for (const Point& q : *v)
        if (q.c.id == "faultfree" && q.m.name() == p.m.name() && q.algo == p.algo && q.bytes == p.bytes)
          ff = stored_run(*r.store, point_args(q, 0, r.o));
    if (!ff) return nullptr;
    ffc = ff->value("cycles", (uint64_t)0);
  }
  return stored_run(*r.store, point_args(p, ffc, r.o));
}

// A finished run whose result is in the runs directory but not in the store (its report
// was interrupted after the run ended: a Slurm array it left running, or a kill between
// a run's end and its record): added to the store and returned when it is this point's
// run as this binary would make it (ok, these model versions, this schedule
// fingerprint and the configuration its arguments give); else null.
const Json* adopt(Report* r, const Point& p, const std::vector<std::string>& args) {
  const Json j = read_json(r->o.runs + "/" + p.name + ".json");
  if (!j.is_object() || !j.value("ok", false) || j.value("model_version", -1) != kModelVersion) return nullptr;
  Json config;
  std::string fp;
  try {
    fp = allreduce_fingerprint(args, &config);
  } catch (const std::exception&) {
    return nullptr;
  }
  if (j.value("schedule_fingerprint", "") != fp || j.value("config", Json()) != config ||
      j.value("recovery_version", 0) != recovery_version_of(config))
    return nullptr;
  const Json sim = j.value("simulator", Json::object());
  const bool links = p.name == r->heatmap_before || p.name == r->heatmap_after;
  r->store->put(make_record(j, p.name, {key_of(args), fp, kModelVersion, recovery_version_of(config), Json()},
                            {r->commit, host_cpu(), sim.value("threads", 1),
                             sim.value("wall_seconds", 0.0) + sim.value("setup_seconds", 0.0)},
                            links));
  return r->store->find(key_of(args));
}

// The seconds a point's run is expected to take here: its chip-GB at the rate the store
// measured on this host's CPU with this many threads (the default rate before it has one).
double expected_seconds(const Report& r, const Point& p) {
  double rate = r.store->rate(host_cpu(), r.o.threads);
  if (rate <= 0) rate = r.o.threads >= 2 ? kDefaultRate2 : kDefaultRate1;
  return p.chip_gb() / rate * (p.c.mid ? 1.5 : 1.0);  // a mid-run failure redoes part of the work
}

// The cycles of the fault-free run a mid-run point times its failure from (the same
// machine, algorithm and size), 0 while that run has no result; *to_run says whether the
// run is among `todo`, still to run or running in this report.
uint64_t ff_cycles_of(const Report& r, const Point& p, const std::set<std::string>& todo, bool* to_run) {
  *to_run = false;
  for (const auto* v : {&r.stat, &r.wholepts})
    for (const Point& f : *v)
      if (f.c.id == "faultfree" && f.m.name() == p.m.name() && f.algo == p.algo && f.bytes == p.bytes) {
        const auto it = r.res.find(f.name);
        if (it != r.res.end() && it->second.ok) return it->second.j.value("cycles", (uint64_t)0);
        *to_run = todo.count(f.name) > 0;
        return 0;
      }
  return 0;
}

// Runs the points not yet done (locally `jobs` child processes at a time, in the order
// given, or as one Slurm job array followed to its end); fills r->res and the report's
// run counts. A mid-run point needs its fault-free run's cycles: one whose fault-free
// run is among the runs to do is resolved when its turn comes (locally; after the
// others if that run has not ended by then), else it stays pending.
void run_points(Report* r, const std::vector<Point>& pts, const std::chrono::steady_clock::time_point t0) {
  const Opts& o = r->o;
  std::map<std::string, Outcome>* out = &r->res;
  const std::string exe = self_exe();
  std::map<std::string, std::vector<std::string>> args;  // the defining arguments of each point
  std::vector<const Point*> todo;
  std::set<std::string> todo_names;
  int reused = 0;
  auto pending = [&](const Point& p, const std::string& why) {
    Outcome oc;
    oc.pending = true;
    oc.error = "pending: " + why;
    (*out)[p.name] = oc;
    ++r->pending;
  };
  // Whether the run store (or a finished run's JSON) has the point; records it if so.
  auto reuse = [&](const Point& p) {
    const Json* rec = stored_run(*r->store, args[p.name]);
    if (!rec && !o.render_only) rec = adopt(r, p, args[p.name]);
    if (!rec) return false;
    (*out)[p.name] = {true, false, *rec, ""};
    ++r->reused, ++reused;
    return true;
  };
  for (const Point& p : pts) {
    if (p.c.mid) {
      bool to_run = false;
      const uint64_t ffc = ff_cycles_of(*r, p, todo_names, &to_run);
      if (ffc == 0) {
        if (to_run && o.backend != "slurm" && !o.render_only) todo.push_back(&p), todo_names.insert(p.name);
        else pending(p, "the fault-free run it times its failure from is not in the run store");
        continue;
      }
      args[p.name] = point_args(p, ffc, o);
    } else {
      args[p.name] = point_args(p, 0, o);
    }
    if (reuse(p)) continue;
    if (o.render_only) pending(p, "not in the run store");
    else todo.push_back(&p), todo_names.insert(p.name);
  }
  if (pts.empty()) return;
  std::cerr << "report: " << pts.size() << " runs, " << reused << " in the run store, " << todo.size()
            << (o.render_only ? " pending (--render-only)" : " to run") << ", "
            << (o.backend == "slurm" ? "as one Slurm job array" : std::to_string(o.jobs) + " at a time") << "\n";
  if (o.render_only) return;
  const std::string cpu = host_cpu(), &commit = r->commit;
  int done = 0;
  auto finish = [&](const Point* p, int code, double secs) {
    const std::string f = o.runs + "/" + p->name;
    const Json j = read_json(f + ".json");
    Outcome oc;
    if (code == 0 && j.is_object() && j.value("ok", false) && j.value("model_version", -1) == kModelVersion &&
        j.value("recovery_version", 0) == recovery_version_of(j.value("config", Json::object()))) {
      // The record is appended as soon as the run ends, so a report killed later keeps it.
      const bool links = p->name == r->heatmap_before || p->name == r->heatmap_after;
      const Json rec = make_record(j, p->name, {key_of(args[p->name]), j.value("schedule_fingerprint", ""), kModelVersion,
                                                 recovery_version_of(j.value("config", Json::object())), Json()},
                                   {commit, cpu, o.threads, secs}, links);
      r->store->put(rec);
      oc = {true, false, rec, ""};
    } else {
      std::string why = last_line(f + ".err");
      oc.error = "exit " + std::to_string(code) + (why.empty() ? "" : ": " + why);
    }
    (*out)[p->name] = oc;
    ++done;
    std::cerr << "report: [" << done << "/" << todo.size() << "] " << p->name << " "
              << (oc.ok ? "ok" : "FAILED (" + oc.error + ")") << ", " << fmt(secs, 1) << " s\n";
  };
  // A point's arguments; false (with its outcome recorded) when it cannot run.
  auto args_of = [&](const Point* p, std::vector<std::string>* argv) {
    const std::string f = o.runs + "/" + p->name;
    *argv = {exe, "allreduce"};
    for (const std::string& a : args[p->name]) argv->push_back(a);
    for (const std::string& a : {std::string("--threads"), std::to_string(o.threads), std::string("--json"), f + ".json",
                                 std::string("-q")})
      argv->push_back(a);
    // A stale JSON or status (another link set-up, a failed run) must not pass for this run's.
    for (const char* ext : {".err", ".out", ".json", ".status"}) std::remove((f + ext).c_str());
    return true;
  };
  // --budget: a run starts only when its expected time ends before the deadline; the
  // rest stay pending for the next report (or another machine) to run.
  auto fits_budget = [&](const Point* p) {
    if (r->deadline_s <= 0) return true;
    const double now = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (now + expected_seconds(*r, *p) <= r->deadline_s) return true;
    Outcome oc;
    oc.pending = true;
    oc.error = "pending: expected " + fmt(expected_seconds(*r, *p) / 60, 1) + " min, beyond --budget";
    (*out)[p->name] = oc;
    ++r->pending;
    return false;
  };
  if (o.backend == "slurm") {
    std::vector<const Point*> runnable;
    std::vector<std::vector<std::string>> argvs;
    for (const Point* p : todo) {
      std::vector<std::string> argv;
      if (args_of(p, &argv)) runnable.push_back(p), argvs.push_back(argv);
    }
    if (runnable.empty()) return;
    std::vector<int> ids(runnable.size());
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = (int)i;
    const std::string job = slurm_submit_array(o.runs + "/slurm", "faultmesh-report", slurm_body(o, runnable, argvs),
                                               ids, o.slurm);
    r->slurm_jobs.push_back(job);
    r->ran_now += (int)runnable.size();
    std::cerr << "report: submitted Slurm job array " << job << " (" << runnable.size() << " runs)\n";
    std::vector<bool> seen(runnable.size(), false);
    auto collect = [&] {  // reports the runs that finished since the last call
      int n = 0;
      for (size_t i = 0; i < runnable.size(); ++i) {
        int code;
        double secs;
        if (!seen[i] && read_status(o, *runnable[i], &code, &secs)) {
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
        (*out)[runnable[i]->name] = {false, false, Json(),
                                     "Slurm task " + job + "_" + std::to_string(i) + " ended without a result" +
                                         (state.empty() ? "" : " (sacct state " + state + ")") + "; see " + o.runs +
                                         "/slurm/" + job + "_" + std::to_string(i) + ".out"};
        ++done;
        std::cerr << "report: [" << done << "/" << todo.size() << "] " << runnable[i]->name << " FAILED ("
                  << (*out)[runnable[i]->name].error << ")\n";
      }
    return;
  }
  // A mid-run point whose fault-free run was to run: its arguments once that run has
  // ended (then the store may have it already), or deferred while it still runs.
  std::vector<const Point*> deferred;
  auto resolve = [&](const Point* p) {
    if (args.count(p->name)) return true;
    bool to_run = false;
    const uint64_t ffc = ff_cycles_of(*r, *p, todo_names, &to_run);
    if (ffc == 0) {
      bool ended = false;
      for (const auto* v : {&r->stat, &r->wholepts})
        for (const Point& f : *v)
          if (f.c.id == "faultfree" && f.m.name() == p->m.name() && f.algo == p->algo && f.bytes == p->bytes)
            ended = out->count(f.name) > 0;
      if (ended) pending(*p, "the fault-free run it times its failure from did not finish");
      else deferred.push_back(p);
      return false;
    }
    args[p->name] = point_args(*p, ffc, o);
    if (reuse(*p)) {
      ++done;
      return false;
    }
    return true;
  };
  auto start = [&](const std::vector<const Point*>& list, size_t i, PoolChild* c) {
    const Point* p = list[i];
    const std::string f = o.runs + "/" + p->name;
    std::vector<std::string> argv;
    if (!resolve(p) || !fits_budget(p) || !args_of(p, &argv)) return false;
    try {
      c->pid = spawn_redirected(argv, f + ".out", f + ".err", &c->fd);
      ++r->ran_now;
      return true;
    } catch (const std::runtime_error& e) {
      (*out)[p->name] = {false, false, Json(), e.what()};
      return false;
    }
  };
  run_pool(
      todo.size(), o.jobs, [&](size_t i, PoolChild* c) { return start(todo, i, c); },
      [&](size_t i, const PoolResult& res) { finish(todo[i], res.exit_code, res.seconds); });
  // The mid-run points whose fault-free run was still running when their turn came.
  std::vector<const Point*> later;
  later.swap(deferred);
  run_pool(
      later.size(), o.jobs, [&](size_t i, PoolChild* c) { return start(later, i, c); },
      [&](size_t i, const PoolResult& res) { finish(later[i], res.exit_code, res.seconds); });
  for (const Point* p : deferred) pending(*p, "the fault-free run it times its failure from did not finish");
}

// Before anything runs: the Slurm jobs an earlier report submitted into this runs
// directory that are still queued or running write into it, so a local report must not
// run beside them, and a Slurm report follows them to their end (then reuses what they
// finished): an interrupted report resumes instead of running its points twice.
void settle_earlier_jobs(const Opts& o) {
  const std::vector<std::string> act = slurm_active_jobs(o.runs + "/slurm");
  if (act.empty()) return;
  if (o.backend != "slurm")
    throw UsageError("--runs " + o.runs + ": Slurm job " + act.front() +
                     " of an earlier report paper --backend slurm is still queued or running and writes there; "
                     "rerun with --backend slurm to follow it, or scancel " + act.front());
  for (const std::string& job : act) {
    std::cerr << "report: following Slurm job " << job << " of an earlier run of this report (still queued or running)\n";
    slurm_follow(job, 1, [] { return 0; });  // until squeue no longer lists it
  }
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
    for (const std::string& t : o.topos) machines.push_back({w, h, t});
  // The headline's series: fault-free ft2d (the reference) and the centre board with each
  // algorithm.
  auto headline = [](const std::string& c, const std::string& a) {
    return (c == "faultfree" && a == "ft2d") || c == "board_centre";
  };
  const int least = std::min_element(machines.begin(), machines.end(), [](const Machine& a, const Machine& b) {
                      return a.chips() < b.chips();
                    })->chips();
  for (const Machine& m : machines) {
    cases[m.name()] = cases_for(m.w, m.h, mid);
    for (const Case& c : cases[m.name()])
      for (const char* a : kAlgos)
        for (uint64_t b : o.sizes_of(m.mesh())) {
          Point p{m, c, a, b, m.name() + "_" + c.id + "_" + a + "_" + size_str(b)};
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
              Point p{*m, c, a, b, m->name() + "_" + c.id + "_" + a + "_" + size_str(b) + "_lat" + std::to_string(lat), lat};
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
      for (const char* c : {"faultfree", "board_centre"})
        for (uint64_t b : bucket_classes()) {
          const auto& fitted = o.sizes_of(m.mesh());
          if (std::find(fitted.begin(), fitted.end(), b) != fitted.end()) continue;
          const Case& cs = *std::find_if(cases[m.name()].begin(), cases[m.name()].end(),
                                         [&](const Case& x) { return x.id == c; });
          Point p{m, cs, "ft2d", b, m.name() + "_" + c + "_ft2d_" + size_str(b)};
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
          if (c.id == "faultfree" || c.id == "board_centre") {
            const uint64_t b = o.sizes_of(m.mesh()).back() * (uint64_t)o.check_factor;
            Point p{m, c, "ft2d", b, m.name() + "_" + c.id + "_ft2d_" + size_str(b) + "_check"};
            p.prio = kPrioChecks;
            checks.push_back(p);
          }
  }
  // The heatmaps: ft2d on the largest machine before and after the centre board fails,
  // at ResNet-50 bf16 whole with --whole (headline runs), else the largest fitted size.
  const Machine& big = biggest();
  const std::string sz = size_str(o.whole ? (uint64_t)grads[1].bytes() : o.sizes_of(big.mesh()).back());
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
    Point p{m, c, a, b, m.name() + "_" + c.id + "_" + a + "_" + size_str(b)};
    p.prio = prio;
    if (have.insert(p.name).second) (c.mid ? midwhole : wholepts).push_back(p);
  };
  const Gradient& resnet_bf16 = grads[1];
  const Gradient& resnet_fp32 = grads[0];
  const Gradient& bert_fp32 = grads[2];
  const Gradient& bert_bf16 = grads[3];
  const int least = std::min_element(machines.begin(), machines.end(), [](const Machine& a, const Machine& b) {
                      return a.chips() < b.chips();
                    })->chips();
  const Machine* bert_fp32_on = nullptr;
  for (const Machine& m : machines)
    if (m.chips() == least && (!bert_fp32_on || (bert_fp32_on->topo != "torus" && m.topo == "torus"))) bert_fp32_on = &m;
  for (const Machine& m : machines)
    for (const Case& c : cases[m.name()]) {
      const bool head = c.id == "board_centre" || c.id == "faultfree";
      for (const char* a : kAlgos)
        add(m, c, a, resnet_bf16.bytes(), head && (c.id == "board_centre" || std::string(a) == "ft2d") ? kPrioHeadline : kPrioCases);
      if (head) add(m, c, "ft2d", resnet_fp32.bytes(), kPrioChecks);
      if (c.id == "board_centre") add(m, c, "snake", resnet_fp32.bytes(), kPrioChecks);
      if (c.id == "faultfree" && m.chips() == least) add(m, c, "ft2d", bert_bf16.bytes(), kPrioBert);
      if (c.id == "faultfree" && &m == bert_fp32_on) add(m, c, "ft2d", bert_fp32.bytes(), kPrioBert);
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
  if (o.backend == "slurm") {
    for (bool mids : {false, true}) {
      std::vector<Point> batch;
      for (const Point* p : order)
        if (p->c.mid == mids) batch.push_back(*p);
      if (!batch.empty()) run_points(this, batch, t0);
    }
  } else {
    std::vector<Point> batch;
    for (const Point* p : order) batch.push_back(*p);
    run_points(this, batch, t0);
  }
  all = stat;
  all.insert(all.end(), midpts.begin(), midpts.end());
  run_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace fm::paper_report
