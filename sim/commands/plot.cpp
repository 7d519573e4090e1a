// faultmesh plot: every figure a sweep directory's results support, drawn by gnuplot as
// PNG and SVG, plus NAME.gp (the script, to restyle by hand) and NAME.dat (its data):
//   latency_vs_load         avg packet latency vs offered load, one line per config
//                           (needs a `rate` axis and traffic results)
//   saturation_vs_<axis>    saturation throughput (best accepted rate over the rates)
//                           vs each other axis, one line per remaining config
//   allreduce_vs_bytes      allreduce cycles vs message size, one line per algo (and
//                           config), when rows have algo, bytes and cycles
//   allreduce_vs_<axis>     allreduce cycles vs each other axis (e.g. hole position)
//   heatmap_<point>         the mesh with every link direction coloured by utilization
//                           and failed chips and links drawn, for points whose
//                           result.json has config.mesh and link_utilization
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iomanip>
#include <tuple>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "sim/cli.h"
#include "sim/io.h"
#include "sim/options.h"
#include "sim/plot.h"
#include "tb/result_keys.h"
#include "tb/util/subprocess.h"
#include "sim/sweep.h"
#include "tb/util/json_io.h"
#include "tb/util/parse.h"
#include "sim/view.h"

namespace fm {

namespace {

using Json = nlohmann::ordered_json;
namespace rk = result_key;

// A column of a results row: the spec's option (opt.X), a statistic (X), or the
// effective configuration a result reports (config.X), in that order.
Json get(const Json& row, const std::string& name) {
  for (const std::string& k : {"opt." + name, name, "config." + name})
    if (row.contains(k) && !(row[k].is_string() && row[k].get<std::string>().empty())) return row[k];
  return Json();
}

// A row's value of a sweep axis exactly as the spec wrote it ("-" = option not given).
std::string axis_value(const Json& row, const std::string& name) {
  const std::string k = "opt." + name;
  if (row.contains(k)) return row[k].get<std::string>().empty() ? "-" : row[k].get<std::string>();
  return plot_text(get(row, name));
}

// How an axis value is shown in legends and ticks.
std::string shown(const std::string& v) { return v == "-" ? "none" : v; }

struct Axis {
  std::string name;
  std::vector<std::string> values;
  bool numeric = true;
};

// The rows of results.jsonl and the sweep's axes (those with more than one value).
struct Results {
  std::vector<Json> rows;
  std::vector<Axis> axes;
  const Axis* axis(const std::string& n) const {
    for (const Axis& a : axes)
      if (a.name == n) return &a;
    return nullptr;
  }
};

// "vcs=2 buf=4" for the given axes of a row ("" when none).
std::string key_of(const Json& row, const std::vector<const Axis*>& axes) {
  std::string s;
  for (const Axis* a : axes) s += (s.empty() ? "" : " ") + a->name + "=" + shown(axis_value(row, a->name));
  return s;
}

// Series by the other axes, in first-appearance (point) order.
std::vector<std::pair<std::string, std::vector<const Json*>>> group(const Results& r,
                                                                    const std::vector<const Axis*>& by) {
  std::vector<std::pair<std::string, std::vector<const Json*>>> g;
  std::map<std::string, size_t> at;
  for (const Json& row : r.rows) {
    if (row.value("status", "") != "ok") continue;
    const std::string k = key_of(row, by);
    if (!at.count(k)) {
      at[k] = g.size();
      g.push_back({k, {}});
    }
    g[at[k]].second.push_back(&row);
  }
  return g;
}

std::vector<const Axis*> axes_except(const Results& r, const std::set<std::string>& skip) {
  std::vector<const Axis*> v;
  for (const Axis& a : r.axes)
    if (!skip.count(a.name)) v.push_back(&a);
  return v;
}

// Figures of metric(rows of one x value) vs axis `p`, one line per combination of
// `others`; metric returns false when it has no value.
void metric_vs_axis(Plotter& pl, const Results& r, const Axis& p, const std::vector<const Axis*>& others,
                    const std::string& name, const std::string& title, const std::string& ylabel,
                    const std::function<bool(const std::vector<const Json*>&, double*)>& metric,
                    const std::string& extra = "") {
  PlotFigure f;
  f.name = name;
  f.title = title;
  f.xlabel = p.name;
  f.ylabel = ylabel;
  f.categorical = !p.numeric;
  f.extra = extra;
  for (const auto& [label, rows] : group(r, others)) {
    PlotSeries s;
    s.label = label.empty() ? ylabel : label;
    for (size_t i = 0; i < p.values.size(); ++i) {
      std::vector<const Json*> at;
      for (const Json* row : rows)
        if (axis_value(*row, p.name) == p.values[i]) at.push_back(row);
      double y;
      if (at.empty() || !metric(at, &y)) continue;
      double x = (double)i;
      if (p.numeric) plot_number(Json(p.values[i]), &x);
      s.xy.push_back({x, y});
      s.xlabel.push_back(shown(p.values[i]));
    }
    if (!s.xy.empty()) f.series.push_back(s);
  }
  if (f.series.empty()) return;
  if (f.categorical) f.extra += "set xrange [-0.5:" + std::to_string(p.values.size() - 0.5) + "]\n";
  pl.line_figure(f);
}

void latency_figures(Plotter& pl, const Results& r) {
  const Axis* rate = r.axis("rate");
  if (!rate) return;
  bool traffic = false;
  for (const Json& row : r.rows)
    traffic |= row.contains(rk::kAvgPacketLatency) && row.contains(rk::kAcceptedFlitRate);
  if (!traffic) return;
  const auto others = axes_except(r, {"rate", "seed"});
  PlotFigure f;
  f.name = "latency_vs_load";
  f.xlabel = "offered load (flits/node/cycle)";
  f.ylabel = "average packet latency (cycles)";
  double lo = 1e300, hi = 0;
  for (const auto& [label, rows] : group(r, others)) {
    PlotSeries s;
    s.label = label.empty() ? "latency" : label;
    for (const Json* row : rows) {
      double x, y;
      if (plot_number(get(*row, rk::kOfferedFlitRate), &x) && plot_number(get(*row, rk::kAvgPacketLatency), &y)) {
        s.xy.push_back({x, y});
        lo = std::min(lo, y);
        hi = std::max(hi, y);
      }
    }
    std::sort(s.xy.begin(), s.xy.end());
    if (!s.xy.empty()) f.series.push_back(s);
  }
  if (f.series.empty()) return;
  // Past saturation latency grows without bound: cap the axis at 5x zero-load latency.
  const double cap = std::min(hi * 1.05, 5 * lo);
  f.title = "Latency vs offered load (y capped at 5x the lowest latency; saturated points leave the top)";
  f.extra = "set yrange [0:" + std::to_string(cap) + "]\nset xrange [0:*]\n";
  pl.line_figure(f);
  // Saturation throughput: the best accepted rate a configuration reached over the rates.
  for (const Axis* p : others) {
    std::vector<const Axis*> rest;
    for (const Axis* o : others)
      if (o != p) rest.push_back(o);
    metric_vs_axis(pl, r, *p, rest, "saturation_vs_" + p->name,
                   "Saturation throughput (best accepted load over the rates) vs " + p->name,
                   "saturation throughput (flits/node/cycle)",
                   [](const std::vector<const Json*>& rows, double* y) {
                     *y = 0;
                     bool any = false;
                     for (const Json* row : rows) {
                       double a;
                       if (plot_number(get(*row, rk::kAcceptedFlitRate), &a)) *y = std::max(*y, a), any = true;
                     }
                     return any;
                   },
                   "set yrange [0:*]\n");
  }
}

void allreduce_figures(Plotter& pl, const Results& r) {
  bool have = false;
  for (const Json& row : r.rows) {
    double c, b;
    have |= !get(row, rk::kAlgo).is_null() && plot_number(get(row, rk::kBytes), &b) &&
            plot_number(get(row, rk::kCycles), &c);
  }
  if (!have) return;
  auto cycles = [](const std::vector<const Json*>& rows, double* y) {
    return rows.size() == 1 && plot_number(get(*rows[0], rk::kCycles), y);
  };
  const Axis* bytes = r.axis("bytes");
  if (bytes) {
    // One line per algorithm (and per value of the other axes).
    std::vector<const Axis*> by = axes_except(r, {"bytes", "algo"});
    Axis algo_axis{"algo", {}, false};
    std::vector<const Axis*> series_by = {&algo_axis};
    series_by.insert(series_by.end(), by.begin(), by.end());
    metric_vs_axis(pl, r, *bytes, series_by, "allreduce_vs_bytes", "Allreduce time vs message size per algorithm",
                   "allreduce time (cycles)", cycles, "set logscale xy\n");
  }
  for (const Axis& p : r.axes) {
    if (p.name == "bytes" || p.name == "algo") continue;
    Axis algo_axis{"algo", {}, false};
    std::vector<const Axis*> rest = {&algo_axis};
    for (const Axis* o : axes_except(r, {p.name, "algo"})) rest.push_back(o);
    metric_vs_axis(pl, r, p, rest, "allreduce_vs_" + p.name, "Allreduce time vs " + p.name,
                   "allreduce time (cycles)", cycles, "set yrange [0:*]\n");
  }
}

// Picks the points to draw: per configuration (the axes other than rate), the ok point
// with the highest rate (the most loaded network that still drained), at most `max`.
void heatmaps(Plotter& pl, const Results& r, const std::string& dir, int n_points, int max) {
  const auto others = axes_except(r, {"rate"});
  int drawn = 0;
  for (const auto& [label, rows] : group(r, others)) {
    if (drawn >= max) break;
    const Json* best = nullptr;
    double best_rate = -1;
    for (const Json* row : rows) {
      double rt = 0;
      plot_number(get(*row, "rate"), &rt);
      if (rt >= best_rate) best = row, best_rate = rt;
    }
    if (!best) continue;
    const int id = (*best)["point"].get<int>();
    const std::string name = point_name(id, n_points);
    const Json res = read_json_file<Json>(dir + "/points/" + name + "/result.json");
    if (!res.is_object() || !res.contains(rk::kLinkUtilization) || !res.contains(rk::kConfig)) continue;
    std::string lab = key_of(*best, axes_except(r, {}));
    pl.heatmap(res, name, lab);
    ++drawn;
  }
}

}  // namespace

int cmd_plot(const std::vector<std::string>& args) {
  po::options_description desc;
  desc.add_options()
    ("out", po::value<std::string>(), "directory for the figures (default DIR/plots)")
    ("max-heatmaps", po::value<int>()->default_value(16), "most link-utilization heatmaps drawn, 0..1000")
    ("help,h", "show this help");
  po::variables_map vm;
  std::vector<std::string> dirs;
  try {
    po::parsed_options parsed = po::command_line_parser(args).options(desc).run();
    dirs = take_arguments(&parsed, 1, "faultmesh plot DIR [--out PLOTDIR]");
    po::store(parsed, vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(po_error_text(e) + " (see faultmesh plot --help)");
  }
  if (vm.count("help")) {
    std::cout << "usage: faultmesh plot DIR [--out PLOTDIR]\n"
                 "Draws every figure the results of sweep directory DIR support, as PNG and SVG\n"
                 "(gnuplot): latency vs load, saturation throughput vs each parameter, allreduce\n"
                 "time vs message size and vs each parameter, link-utilization heatmaps.\n\n"
              << desc << "\n";
    return kExitOk;
  }
  if (dirs.empty()) throw UsageError("no sweep directory given: faultmesh plot DIR --out PLOTDIR");
  const std::string dir = dirs.front();
  if (vm.count("out")) check_path_value(vm["out"].as<std::string>(), "--out", "a directory");
  // A single result file (e.g. faultmesh allreduce --json F): its link-utilization heatmap.
  if (dir.size() > 5 && dir.compare(dir.size() - 5, 5, ".json") == 0) {
    const Json res = read_json_file<Json>(dir);
    if (!res.is_object() || !res.contains(rk::kLinkUtilization) || !res.contains(rk::kConfig))
      throw UsageError("plot " + dir + ": not a result file with a per-link utilization map");
    const std::string out = vm.count("out") ? vm["out"].as<std::string>() : "plots";
    make_dirs(out, "--out");
    Plotter pl(out);
    std::string base = dir.substr(dir.find_last_of('/') + 1);
    base = base.substr(0, base.size() - 5);
    pl.heatmap(res, base, "");
    return kExitOk;
  }
  const int maxh = vm["max-heatmaps"].as<int>();
  if (maxh < 0 || maxh > 1000) throw UsageError("--max-heatmaps " + std::to_string(maxh) + ": allowed 0..1000");
  const Json man = read_json_file<Json>(dir + "/sweep.json");
  std::ifstream rin(dir + "/results.jsonl");
  if (!man.is_object() || !rin)
    throw UsageError("plot " + dir + ": not a collected sweep directory (needs sweep.json and results.jsonl)");
  Results r;
  for (const auto& a : man["axes"]) {
    Axis ax;
    ax.name = a["option"].get<std::string>();
    for (const auto& v : a["values"]) {
      ax.values.push_back(v.get<std::string>());
      double d;
      ax.numeric &= plot_number(v, &d);
    }
    if (ax.values.size() > 1) r.axes.push_back(ax);
  }
  std::string line;
  while (std::getline(rin, line))
    if (!line.empty()) r.rows.push_back(Json::parse(line));
  const std::string out = vm.count("out") ? vm["out"].as<std::string>() : dir + "/plots";
  make_dirs(out, "--out");
  Plotter pl(out);
  latency_figures(pl, r);
  allreduce_figures(pl, r);
  if (maxh > 0) heatmaps(pl, r, dir, (int)man["points"].size(), maxh);
  if (pl.written().empty())
    throw UsageError("plot " + dir + ": nothing to plot: no ok point has traffic statistics over a rate axis, "
                     "allreduce algo/bytes/cycles, or a link_utilization map");
  for (const std::string& n : pl.written()) std::cout << out << "/" << n << ".png  " << out << "/" << n << ".svg\n";
  // The sweep's index.html now shows these figures too (sim/view.h).
  write_sweep_index(dir, r.rows, out, false);
  return kExitOk;
}

}  // namespace fm
