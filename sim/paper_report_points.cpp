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
#include "sim/paper_report_impl.h"
#include "sim/cli.h"
#include "sim/slurm.h"
#include "sim/subprocess.h"
#include "sim/util/job_pool.h"
#include "sim/util/json_io.h"

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

// The allreduce arguments of a point (the mid case's failure cycle comes from the
// fault-free run of the same machine, algorithm and size: `ff_cycles`).
std::vector<std::string> point_args(const Point& p, const std::string& json, uint64_t ff_cycles,
                                    const Opts& o) {
  const int lat = run_lat(p, o);
  std::vector<std::string> a = {"allreduce", "--mesh", p.m.mesh(), "--topology", p.m.topo,
                                "--algo", p.algo, "--bytes", std::to_string(p.bytes),
                                "--link-latency", std::to_string(lat), "--credit-latency", std::to_string(lat),
                                "--buf", std::to_string(run_buf(p, o)),
                                "--verify", "off", "--threads", std::to_string(o.threads),
                                "--json", json, "-q"};
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

// Whether point p has a completed run in the runs directory (its JSON in *j): one that
// completed with this report's link set-up (a runs directory from a report with another
// --link-latency is run again, not reused).
bool point_done(const Opts& o, const Point& p, Json* j) {
  *j = read_json(o.runs + "/" + p.name + ".json");
  const int lat = run_lat(p, o);
  const Json cfg = j->is_object() ? j->value("config", Json::object()) : Json::object();
  return j->is_object() && j->value("ok", false) && cfg.value("link-latency", 0) == lat &&
         cfg.value("credit-latency", 0) == lat && cfg.value("buf", 0) == run_buf(p, o);
}

// Runs the points not yet done (locally `jobs` child processes at a time, or as one
// Slurm job array followed to its end); fills r->res and the report's run counts.
void run_points(Report* r, const std::vector<Point>& pts, const std::map<std::string, uint64_t>& ff_cycles) {
  const Opts& o = r->o;
  std::map<std::string, Outcome>* out = &r->res;
  const std::string exe = self_exe();
  std::vector<const Point*> todo;
  for (const Point& p : pts) {
    Json j;
    if (point_done(o, p, &j)) {
      (*out)[p.name] = {true, j, ""};
      ++r->reused;
    } else {
      todo.push_back(&p);
    }
  }
  std::cerr << "report: " << pts.size() << " runs, " << pts.size() - todo.size() << " already done, "
            << todo.size() << " to run, "
            << (o.backend == "slurm" ? "as one Slurm job array" : std::to_string(o.jobs) + " at a time") << "\n";
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
  // A point's arguments; false (with its outcome recorded) when it cannot run.
  auto args_of = [&](const Point* p, std::vector<std::string>* argv) {
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
    *argv = {exe};
    for (const std::string& a : point_args(*p, f + ".json", ffc, o)) argv->push_back(a);
    // A stale JSON or status (another link set-up, a failed run) must not pass for this run's.
    for (const char* ext : {".err", ".out", ".json", ".status"}) std::remove((f + ext).c_str());
    return true;
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
        (*out)[runnable[i]->name] = {false, Json(),
                                     "Slurm task " + job + "_" + std::to_string(i) + " ended without a result" +
                                         (state.empty() ? "" : " (sacct state " + state + ")") + "; see " + o.runs +
                                         "/slurm/" + job + "_" + std::to_string(i) + ".out"};
        ++done;
        std::cerr << "report: [" << done << "/" << todo.size() << "] " << runnable[i]->name << " FAILED ("
                  << (*out)[runnable[i]->name].error << ")\n";
      }
    return;
  }
  run_pool(
      todo.size(), o.jobs,
      [&](size_t i, PoolChild* c) {
        const Point* p = todo[i];
        const std::string f = o.runs + "/" + p->name;
        std::vector<std::string> argv;
        if (!args_of(p, &argv)) return false;
        try {
          c->pid = spawn_redirected(argv, f + ".out", f + ".err", &c->fd);
          ++r->ran_now;
          return true;
        } catch (const std::runtime_error& e) {
          (*out)[p->name] = {false, Json(), e.what()};
          return false;
        }
      },
      [&](size_t i, const PoolResult& res) { finish(todo[i], res.exit_code, res.seconds); });
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
  const int rtt = NetworkConfig().pipeline + 2 * lat + 1;
  return std::max(NetworkConfig().buf, (rtt + 7) / 8 * 8);
}

std::vector<const Machine*> Report::latency_machines() const {
  std::vector<const Machine*> v;
  for (const Machine& m : machines)
    if (!o.quick || &m == &biggest()) v.push_back(&m);
  return v;
}

void Report::plan_points() {
  mid = fail_at_available();
  for (const auto& [w, h] : o.meshes)
    for (const std::string& t : o.topos) machines.push_back({w, h, t});
  for (const Machine& m : machines) {
    cases[m.name()] = cases_for(m.w, m.h, mid);
    for (const Case& c : cases[m.name()])
      for (const char* a : kAlgos)
        for (uint64_t b : o.sizes_of(m.mesh())) {
          Point p{m, c, a, b, m.name() + "_" + c.id + "_" + a + "_" + size_str(b)};
          (c.mid ? midpts : stat).push_back(p);
        }
  }
  // The headline's series (fault-free ft2d, centre board with each algorithm) at each
  // other link latency of the sensitivity, at the fitted sizes.
  for (const Machine* m : latency_machines())
    for (int lat : o.lat_sens) {
      if (lat == o.link_latency) continue;  // the report's own runs
      for (const Case& c : cases[m->name()])
        for (const char* a : kAlgos)
          if ((c.id == "faultfree" && std::string(a) == "ft2d") || c.id == "board_centre")
            for (uint64_t b : o.sizes_of(m->mesh()))
              latpts.push_back({*m, c, a, b, m->name() + "_" + c.id + "_" + a + "_" + size_str(b) + "_lat" + std::to_string(lat), lat});
    }
  // The bucket classes, on the cases the bucket section shows, unless a fitted size is one.
  if (o.bucket_runs)
    for (const Machine& m : machines)
      for (const char* c : {"faultfree", "board_centre"})
        for (const char* a : kAlgos)
          for (uint64_t b : bucket_classes()) {
            const auto& fitted = o.sizes_of(m.mesh());
            if (std::find(fitted.begin(), fitted.end(), b) != fitted.end()) continue;
            const Case& cs = *std::find_if(cases[m.name()].begin(), cases[m.name()].end(),
                                           [&](const Case& x) { return x.id == c; });
            bucketpts.push_back({m, cs, a, b, m.name() + "_" + c + "_" + a + "_" + size_str(b)});
          }
  if (o.whole) plan_whole();
  // Extrapolation check: bigger runs on the smallest machine (per topology), not fitted.
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
  }
}

// The whole-size runs (--whole): ResNet-50 bf16 on every machine, case and algorithm;
// ResNet-50 fp32 fault-free and centre board with ft2d; BERT-large bf16 fault-free with
// ft2d, one per machine. A size already run as a fitted size or a bucket class is not
// run twice (its series has it simulated either way).
void Report::plan_whole() {
  std::set<std::string> have;
  for (const auto* v : {&stat, &midpts, &bucketpts})
    for (const Point& p : *v) have.insert(p.name);
  auto add = [&](const Machine& m, const Case& c, const char* a, double bytes) {
    const uint64_t b = (uint64_t)bytes;
    Point p{m, c, a, b, m.name() + "_" + c.id + "_" + a + "_" + size_str(b)};
    if (have.insert(p.name).second) (c.mid ? midwhole : wholepts).push_back(p);
  };
  const Gradient& resnet_bf16 = grads[1];
  const Gradient& resnet_fp32 = grads[0];
  const Gradient& bert_bf16 = grads[3];
  for (const Machine& m : machines)
    for (const Case& c : cases[m.name()]) {
      for (const char* a : kAlgos) add(m, c, a, resnet_bf16.bytes());
      if (c.id == "faultfree" || c.id == "board_centre") add(m, c, "ft2d", resnet_fp32.bytes());
      if (c.id == "faultfree") add(m, c, "ft2d", bert_bf16.bytes());
    }
}

// --plan: every run the report needs, one line each (name, chips, bytes per chip,
// whether the runs directory has it), and what is left to simulate in chip-GB (chips x
// bytes per chip, summed): at the bandwidth-bound sizes a run's time grows with it, so it
// says how long the rest takes once one run's time is known (docs/sweeps.md).
void Report::print_plan(std::ostream& out) const {
  struct Group {
    const char* what;
    const std::vector<Point>* v;
  };
  const Group groups[] = {{"fitted size", &stat},      {"whole", &wholepts},   {"bucket class", &bucketpts},
                          {"latency", &latpts},        {"check", &checks},     {"mid-run, fitted size", &midpts},
                          {"mid-run, whole", &midwhole}};
  int n = 0, done = 0;
  double left = 0, all = 0;
  for (const Group& g : groups)
    for (const Point& p : *g.v) {
      Json j;
      const bool d = point_done(o, p, &j);
      const double gb = (double)p.m.chips() * (double)p.bytes / 1e9;
      out << p.name << "\t" << g.what << "\t" << p.m.chips() << " chips\t" << p.bytes << " B\t"
          << fmt(gb, 3) << " chip-GB\t" << (d ? "done" : "to run") << "\n";
      ++n, done += d, all += gb, left += d ? 0 : gb;
    }
  out << "report plan: " << n << " runs, " << done << " already done in " << o.runs << ", " << n - done
      << " to run; " << fmt(left, 1) << " of " << fmt(all, 1) << " chip-GB left to simulate\n";
}

void Report::run_all_points() {
  const auto t0 = std::chrono::steady_clock::now();
  settle_earlier_jobs(o);
  // Every point that needs no other run first, in one batch (on Slurm one job array, so
  // the cluster is not left idle between batches), then the mid-run failures, which time
  // their failure from the fault-free runs.
  std::vector<Point> first = stat;
  for (const auto* v : {&bucketpts, &wholepts, &latpts, &checks}) first.insert(first.end(), v->begin(), v->end());
  run_points(this, first, {});
  std::vector<Point> mids = midpts;
  mids.insert(mids.end(), midwhole.begin(), midwhole.end());
  if (!mids.empty()) {
    std::map<std::string, uint64_t> ffc;
    for (const auto* v : {&stat, &wholepts})
      for (const Point& p : *v)
        if (p.c.id == "faultfree" && res[p.name].ok)
          ffc[p.m.name() + "_" + p.algo + "_" + std::to_string(p.bytes)] = res[p.name].j.value("cycles", (uint64_t)0);
    run_points(this, mids, ffc);
  }
  all = stat;
  all.insert(all.end(), midpts.begin(), midpts.end());
  run_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace fm::paper_report
