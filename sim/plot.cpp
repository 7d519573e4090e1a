// The gnuplot machinery of `faultmesh plot` and the report's figures (sim/plot.h): a
// figure is NAME.dat (its data blocks), NAME.gp (the script, to restyle by hand) and the
// PNG and SVG gnuplot draws from them.
#include "sim/plot.h"

#include <algorithm>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "sim/io.h"
#include "tb/result_keys.h"
#include "tb/util/parse.h"
#include "tb/util/subprocess.h"

namespace fm {

// The heatmap template sim/templates/heatmap.gp, generated into the build (sim/CMakeLists.txt).
extern const char* const kHeatmapGp;

using Json = nlohmann::ordered_json;

bool plot_number(const Json& v, double* d) {
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

std::string plot_text(const Json& v) { return v.is_string() ? v.get<std::string>() : v.is_null() ? "" : v.dump(); }

std::string gnuplot_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("''") : std::string(1, c);
  return q + "'";
}

void Plotter::render(const std::string& name, const std::vector<PlotBlock>& blocks, const std::string& body,
                     const std::string& plot, int w, int h) {
  std::ostringstream s;
  s << body;
  for (const char* kind : {"png", "svg"}) {
    s << (std::string(kind) == "png" ? "set terminal pngcairo" : "set terminal svg")
      << " size " << w << "," << h << " noenhanced font 'Sans,11'"
      << (std::string(kind) == "svg" ? " background rgb 'white'" : "") << "\n"
      << "set output " << gnuplot_quote(out_ + "/" + name + "." + kind) << "\n"
      << plot << "\n"
      << "unset output\n";
  }
  run(name, blocks, s.str());
}

void Plotter::render_template(const std::string& name, const std::vector<PlotBlock>& blocks,
                              const std::string& vars, const char* tmpl) {
  run(name, blocks, "out = " + gnuplot_quote(out_ + "/" + name) + "\n" + vars + tmpl);
}

void Plotter::line_figure(const PlotFigure& f) {
  std::vector<PlotBlock> blocks;
  for (size_t k = 0; k < f.series.size(); ++k) {
    const PlotSeries& s = f.series[k];
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
  b << "set title " << gnuplot_quote(f.title) << "\nset xlabel " << gnuplot_quote(f.xlabel) << "\nset ylabel "
    << gnuplot_quote(f.ylabel) << "\nset grid\nset key outside right top\n" << f.extra;
  std::string plot = "plot ";
  for (size_t i = 0; i < f.series.size(); ++i)
    plot += (i ? ", " : "") + plot_block(blocks[i].name) +
            (f.categorical ? " using 1:2:xtic(3)" : " using 1:2") + " with linespoints lw 2 ps 0.8" +
            // 8 colours, then dashed: every line stays distinguishable.
            " lc " + std::to_string(i % 8 + 1) + " dt " + std::to_string(i / 8 % 5 + 1) +
            " pt " + std::to_string(i % 6 + 5) + " title " + gnuplot_quote(f.series[i].label);
  render(f.name, blocks, b.str(), plot, 1000, 600);
}

void Plotter::run(const std::string& name, const std::vector<PlotBlock>& blocks, const std::string& script) {
  const std::string gp = out_ + "/" + name + ".gp", dat = out_ + "/" + name + ".dat";
  std::ostringstream d;
  d << "# " << name << ": the data of " << name << ".gp (faultmesh plot)\n";
  for (const PlotBlock& b : blocks) d << "\n\n# block " << b.name << ":\n" << b.rows;
  write_file_atomic(dat, d.str());
  write_file_atomic(gp, "# " + name + ": written by faultmesh plot; run `gnuplot " + gp +
                            "` from the same directory to redraw\ndata = " + gnuplot_quote(dat) + "\n" + script);
  Captured c;
  try {
    c = run_capture({"gnuplot", gp});
  } catch (const std::runtime_error& e) {
    throw UsageError(std::string(e.what()) + "; install the Debian package gnuplot-nox (sim/setup.sh does)");
  }
  if (c.exit_code != 0) throw std::runtime_error("gnuplot " + gp + " failed: " + c.err);
  written_.push_back(name);
}

void Plotter::heatmap(const Json& res, const std::string& name, const std::string& label) {
  namespace rk = result_key;
  const Json& cfg = res[rk::kConfig];
  int W, H;
  if (!parse_wxh(plot_text(cfg["mesh"]), &W, &H)) return;
  // What was dead when the run ended, as the result lists it (dead_chips, dead_links:
  // faults before the run, from files too, and failures during it).
  std::set<std::pair<int, int>> dead;
  for (const auto& c : res.value(rk::kDeadChips, Json::array())) dead.insert({c.value("x", -1), c.value("y", -1)});
  const std::map<char, std::pair<int, int>> dir = {{'N', {0, 1}}, {'E', {1, 0}}, {'S', {0, -1}}, {'W', {-1, 0}}};
  std::set<std::tuple<int, int, char>> failed, failed_alone;  // dead link directions; of them, not with a chip
  for (const auto& l : res.value(rk::kDeadLinks, Json::array())) {
    const std::string p = plot_text(l["port"]);
    if (p.size() != 1 || !dir.count(p[0])) continue;
    failed.insert({l.value("x", 0), l.value("y", 0), p[0]});
    if (plot_text(l["cause"]) == "link") failed_alone.insert({l.value("x", 0), l.value("y", 0), p[0]});
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
  for (const auto& l : res[rk::kLinkUtilization]) {
    const int x = l.value("x", 0), y = l.value("y", 0);
    const std::string p = plot_text(l["port"]);
    double u;
    if (p.size() != 1 || !dir.count(p[0]) || !plot_number(l["utilization"], &u)) continue;
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
  v << std::setprecision(8) << "title = " << gnuplot_quote("Link utilization, point " + name + (label.empty() ? "" : " (" + label + ")"))
    << "\nW = " << W << "\nH = " << H << "\ncmax = " << cmax << "\nhas_dead = " << !dead.empty()
    << "\nhas_cut = " << !fl.str().empty() << "\npx = " << std::min(1400, std::max(600, 60 * W + 200))
    << "\npy = " << std::min(1400, std::max(500, 60 * H + 160)) << "\n";
  render_template("heatmap_" + name, blocks, v.str(), kHeatmapGp);
}

void plot_heatmap(const std::string& outdir, const Json& result, const std::string& name,
                  const std::string& label) {
  Plotter(outdir).heatmap(result, name, label);
}

void plot_script(const std::string& outdir, const std::string& name, const std::vector<PlotBlock>& blocks,
                 const std::string& body, const std::string& plot, int w, int h) {
  Plotter(outdir).render(name, blocks, body, plot, w, h);
}

std::string plot_block(const std::string& name) { return "data index " + gnuplot_quote("block " + name + ":"); }

}  // namespace fm
