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
#include "sim/options.h"
#include "sim/plot.h"
#include "tb/util/subprocess.h"
#include "sim/sweep.h"
#include "tb/util/json_io.h"
#include "tb/util/parse.h"
#include "sim/view.h"

namespace fm {

// The heatmap template sim/templates/heatmap.gp, generated into the build (sim/CMakeLists.txt).
extern const char* const kHeatmapGp;

namespace {

using Json = nlohmann::ordered_json;


// A column of a results row: the spec's option (opt.X), a statistic (X), or the
// effective configuration a result reports (config.X), in that order.
Json get(const Json& row, const std::string& name) {
  for (const std::string& k : {"opt." + name, name, "config." + name})
    if (row.contains(k) && !(row[k].is_string() && row[k].get<std::string>().empty())) return row[k];
  return Json();
}

bool num(const Json& v, double* d) {
  if (v.is_number()) {
    *d = v.get<double>();
    return true;
  }
  if (!v.is_string()) return false;
  try {
    size_t k;
    const std::string s = v.get<std::string>();
    *d = std::stod(s, &k);
    return k == s.size();
  } catch (...) {
    return false;
  }
}

std::string text(const Json& v) { return v.is_string() ? v.get<std::string>() : v.is_null() ? "" : v.dump(); }

// A row's value of a sweep axis exactly as the spec wrote it ("-" = option not given).
std::string axis_value(const Json& row, const std::string& name) {
  const std::string k = "opt." + name;
  if (row.contains(k)) return row[k].get<std::string>().empty() ? "-" : row[k].get<std::string>();
  return text(get(row, name));
}

// How an axis value is shown in legends and ticks.
std::string shown(const std::string& v) { return v == "-" ? "none" : v; }

std::string gq(const std::string& s) {  // gnuplot single-quoted string
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("''") : std::string(1, c);
  return q + "'";
}

struct Axis {
  std::string name;
  std::vector<std::string> values;
  bool numeric = true;
};

// One line of a figure: a label and its (x, y) points, or (category index, label, y).
struct Series {
  std::string label;
  std::vector<std::pair<double, double>> xy;
  std::vector<std::string> xlabel;  // categorical x: tick label per point
};

struct Figure {
  std::string name, title, xlabel, ylabel, extra;  // extra: gnuplot settings
  std::vector<Series> series;
  bool categorical = false;
};

class Plotter {
 public:
  Plotter(std::string outdir) : out_(std::move(outdir)) {}

  // Writes NAME.dat (the blocks) and NAME.gp (`body`'s settings, then `plot` once per
  // terminal, reading the blocks as plot_block(name)), and runs gnuplot on it to make
  // NAME.png and NAME.svg.
  void render(const std::string& name, const std::vector<PlotBlock>& blocks, const std::string& body,
              const std::string& plot, int w, int h) {
    std::ostringstream s;
    s << body;
    for (const char* kind : {"png", "svg"}) {
      s << (std::string(kind) == "png" ? "set terminal pngcairo" : "set terminal svg")
        << " size " << w << "," << h << " noenhanced font 'Sans,11'"
        << (std::string(kind) == "svg" ? " background rgb 'white'" : "") << "\n"
        << "set output " << gq(out_ + "/" + name + "." + kind) << "\n"
        << plot << "\n"
        << "unset output\n";
    }
    run(name, blocks, s.str());
  }

  // Writes NAME.dat and NAME.gp as `vars` (gnuplot assignments) followed by the template
  // `tmpl` (sim/templates/*.gp), which draws NAME.png and NAME.svg itself from `data` and
  // `out`; runs gnuplot on it.
  void render_template(const std::string& name, const std::vector<PlotBlock>& blocks, const std::string& vars,
                       const char* tmpl) {
    run(name, blocks, "out = " + gq(out_ + "/" + name) + "\n" + vars + tmpl);
  }

  // A line figure: one block per series, the settings, and one plot of them all.
  void line_figure(const Figure& f) {
    std::vector<PlotBlock> blocks;
    for (size_t k = 0; k < f.series.size(); ++k) {
      const Series& s = f.series[k];
      std::ostringstream b;
      b << std::setprecision(12);
      for (size_t i = 0; i < s.xy.size(); ++i) {
        b << s.xy[i].first << " " << s.xy[i].second;
        if (f.categorical) b << " \"" << s.xlabel[i] << "\"";
        b << "\n";
      }
      blocks.push_back({"s" + std::to_string(k), b.str()});
    }
    std::ostringstream b;
    b << "set title " << gq(f.title) << "\nset xlabel " << gq(f.xlabel) << "\nset ylabel "
      << gq(f.ylabel) << "\nset grid\nset key outside right top\n" << f.extra;
    std::string plot = "plot ";
    for (size_t i = 0; i < f.series.size(); ++i)
      plot += (i ? ", " : "") + plot_block(blocks[i].name) +
              (f.categorical ? " using 1:2:xtic(3)" : " using 1:2") + " with linespoints lw 2 ps 0.8" +
              // 8 colours, then dashed: every line stays distinguishable.
              " lc " + std::to_string(i % 8 + 1) + " dt " + std::to_string(i / 8 % 5 + 1) +
              " pt " + std::to_string(i % 6 + 5) + " title " + gq(f.series[i].label);
    render(f.name, blocks, b.str(), plot, 1000, 600);
  }

  const std::vector<std::string>& written() const { return written_; }

 private:
  // NAME.dat: each block after a comment line "# block NAME:" (what plot_block finds),
  // blocks two blank lines apart; NAME.gp: a header, `data` naming the file, `script`.
  void run(const std::string& name, const std::vector<PlotBlock>& blocks, const std::string& script) {
    const std::string gp = out_ + "/" + name + ".gp", dat = out_ + "/" + name + ".dat";
    std::ostringstream d;
    d << "# " << name << ": the data of " << name << ".gp (faultmesh plot)\n";
    for (const PlotBlock& b : blocks) d << "\n\n# block " << b.name << ":\n" << b.rows;
    write_file_atomic(dat, d.str());
    write_file_atomic(gp, "# " + name + ": written by faultmesh plot; run `gnuplot " + gp +
                              "` from the same directory to redraw\ndata = " + gq(dat) + "\n" + script);
    Captured c;
    try {
      c = run_capture({"gnuplot", gp});
    } catch (const std::runtime_error& e) {
      throw UsageError(std::string(e.what()) + "; install the Debian package gnuplot-nox (sim/setup.sh does)");
    }
    if (c.exit_code != 0) throw std::runtime_error("gnuplot " + gp + " failed: " + c.err);
    written_.push_back(name);
  }

  std::string out_;
  std::vector<std::string> written_;
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
  Figure f;
  f.name = name;
  f.title = title;
  f.xlabel = p.name;
  f.ylabel = ylabel;
  f.categorical = !p.numeric;
  f.extra = extra;
  for (const auto& [label, rows] : group(r, others)) {
    Series s;
    s.label = label.empty() ? ylabel : label;
    for (size_t i = 0; i < p.values.size(); ++i) {
      std::vector<const Json*> at;
      for (const Json* row : rows)
        if (axis_value(*row, p.name) == p.values[i]) at.push_back(row);
      double y;
      if (at.empty() || !metric(at, &y)) continue;
      double x = (double)i;
      if (p.numeric) num(Json(p.values[i]), &x);
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
  for (const Json& row : r.rows) traffic |= row.contains("avg_packet_latency") && row.contains("accepted_flit_rate");
  if (!traffic) return;
  const auto others = axes_except(r, {"rate", "seed"});
  Figure f;
  f.name = "latency_vs_load";
  f.xlabel = "offered load (flits/node/cycle)";
  f.ylabel = "average packet latency (cycles)";
  double lo = 1e300, hi = 0;
  for (const auto& [label, rows] : group(r, others)) {
    Series s;
    s.label = label.empty() ? "latency" : label;
    for (const Json* row : rows) {
      double x, y;
      if (num(get(*row, "offered_flit_rate"), &x) && num(get(*row, "avg_packet_latency"), &y)) {
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
                       if (num(get(*row, "accepted_flit_rate"), &a)) *y = std::max(*y, a), any = true;
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
    have |= !get(row, "algo").is_null() && num(get(row, "bytes"), &b) && num(get(row, "cycles"), &c);
  }
  if (!have) return;
  auto cycles = [](const std::vector<const Json*>& rows, double* y) {
    return rows.size() == 1 && num(get(*rows[0], "cycles"), y);
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

// The mesh of one point: each link direction an arrow coloured by utilization, live
// chips as outlined squares, failed chips filled dark, failed links dashed grey.
void heatmap(Plotter& pl, const Json& res, const std::string& name, const std::string& label) {
  const Json& cfg = res["config"];
  int W, H;
  if (!parse_wxh(text(cfg["mesh"]), &W, &H)) return;
  // What was dead when the run ended, as the result lists it (dead_chips, dead_links:
  // faults before the run, from files too, and failures during it).
  std::set<std::pair<int, int>> dead;
  for (const auto& c : res.value("dead_chips", Json::array())) dead.insert({c.value("x", -1), c.value("y", -1)});
  const std::map<char, std::pair<int, int>> dir = {{'N', {0, 1}}, {'E', {1, 0}}, {'S', {0, -1}}, {'W', {-1, 0}}};
  std::set<std::tuple<int, int, char>> failed, failed_alone;  // dead link directions; of them, not with a chip
  for (const auto& l : res.value("dead_links", Json::array())) {
    const std::string p = text(l["port"]);
    if (p.size() != 1 || !dir.count(p[0])) continue;
    failed.insert({l.value("x", 0), l.value("y", 0), p[0]});
    if (text(l["cause"]) == "link") failed_alone.insert({l.value("x", 0), l.value("y", 0), p[0]});
  }
  // A link that failed itself (not with its chip) is drawn dashed: from its chip, or for
  // a link dead both ways once, from the west or south end (east or north).
  std::ostringstream fl;
  for (const auto& [x, y, d] : failed_alone) {
    const auto [dx, dy] = dir.at(d);
    const char opp = d == 'N' ? 'S' : d == 'S' ? 'N' : d == 'E' ? 'W' : 'E';
    if ((d == 'W' || d == 'S') && failed_alone.count({(x + dx + W) % W, (y + dy + H) % H, opp})) continue;
    fl << x + dx * 0.25 << " " << y + dy * 0.25 << " " << dx * 0.5 << " " << dy * 0.5 << "\n";
  }
  std::ostringstream links;
  links << std::setprecision(8);
  double cmax = 0;
  for (const auto& l : res["link_utilization"]) {
    const int x = l.value("x", 0), y = l.value("y", 0);
    const std::string p = text(l["port"]);
    double u;
    if (p.size() != 1 || !dir.count(p[0]) || !num(l["utilization"], &u)) continue;
    const auto [dx, dy] = dir.at(p[0]);
    int nx = (x + dx + W) % W, ny = (y + dy + H) % H;
    if (dead.count({x, y}) || dead.count({nx, ny}) || failed.count({x, y, p[0]})) continue;
    const bool wrap = x + dx < 0 || x + dx >= W || y + dy < 0 || y + dy >= H;  // torus
    const double ox = 0.1 * dy, oy = -0.1 * dx, len = wrap ? 0.3 : 0.46;
    links << x + dx * 0.27 + ox << " " << y + dy * 0.27 + oy << " " << dx * len << " " << dy * len << " " << u << "\n";
    cmax = std::max(cmax, u);
  }
  std::ostringstream live, dd;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) (dead.count({x, y}) ? dd : live) << x << " " << y << "\n";
  std::vector<PlotBlock> blocks = {{"links", links.str()}, {"live", live.str()}};
  if (!dead.empty()) blocks.push_back({"dead", dd.str()});
  if (!fl.str().empty()) blocks.push_back({"cut", fl.str()});
  std::ostringstream v;
  v << std::setprecision(8) << "title = " << gq("Link utilization, point " + name + (label.empty() ? "" : " (" + label + ")"))
    << "\nW = " << W << "\nH = " << H << "\ncmax = " << cmax << "\nhas_dead = " << !dead.empty()
    << "\nhas_cut = " << !fl.str().empty() << "\npx = " << std::min(1400, std::max(600, 60 * W + 200))
    << "\npy = " << std::min(1400, std::max(500, 60 * H + 160)) << "\n";
  pl.render_template("heatmap_" + name, blocks, v.str(), kHeatmapGp);
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
      num(get(*row, "rate"), &rt);
      if (rt >= best_rate) best = row, best_rate = rt;
    }
    if (!best) continue;
    const int id = (*best)["point"].get<int>();
    const std::string name = point_name(id, n_points);
    const Json res = read_json_file<Json>(dir + "/points/" + name + "/result.json");
    if (!res.is_object() || !res.contains("link_utilization") || !res.contains("config")) continue;
    std::string lab = key_of(*best, axes_except(r, {}));
    heatmap(pl, res, name, lab);
    ++drawn;
  }
}

}  // namespace

void plot_heatmap(const std::string& outdir, const Json& result, const std::string& name,
                  const std::string& label) {
  Plotter pl(outdir);
  heatmap(pl, result, name, label);
}

void plot_script(const std::string& outdir, const std::string& name, const std::vector<PlotBlock>& blocks,
                 const std::string& body, const std::string& plot, int w, int h) {
  Plotter pl(outdir);
  pl.render(name, blocks, body, plot, w, h);
}

std::string plot_block(const std::string& name) { return "data index " + gq("block " + name + ":"); }

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
    if (!res.is_object() || !res.contains("link_utilization") || !res.contains("config"))
      throw UsageError("plot " + dir + ": not a result file with a per-link utilization map");
    const std::string out = vm.count("out") ? vm["out"].as<std::string>() : "plots";
    make_dirs(out, "--out");
    Plotter pl(out);
    std::string base = dir.substr(dir.find_last_of('/') + 1);
    base = base.substr(0, base.size() - 5);
    heatmap(pl, res, base, "");
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
      ax.numeric &= num(v, &d);
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
