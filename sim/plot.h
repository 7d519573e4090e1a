// The gnuplot machinery (sim/plot.cpp) of `faultmesh plot` (sim/commands/plot.cpp, the
// figures a sweep supports) and of the report's heatmaps and charts.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace fm {

// One named block of a figure's data file (NAME.dat): gnuplot rows, one point per line.
struct PlotBlock {
  std::string name, rows;
};

// How a plot command reads block `name` of its figure's data file: "data index 'block NAME:'".
std::string plot_block(const std::string& name);
// A gnuplot single-quoted string.
std::string gnuplot_quote(const std::string& s);
// A value of a result or results row as a number (a number, or a string that is one
// whole) or as text (strings as they are, null empty, anything else as JSON).
bool plot_number(const nlohmann::ordered_json& v, double* d);
std::string plot_text(const nlohmann::ordered_json& v);

// One line of a figure: a label and its (x, y) points, or (category index, label, y).
struct PlotSeries {
  std::string label;
  std::vector<std::pair<double, double>> xy;
  std::vector<std::string> xlabel;  // categorical x: tick label per point
};

struct PlotFigure {
  std::string name, title, xlabel, ylabel, extra;  // extra: gnuplot settings
  std::vector<PlotSeries> series;
  bool categorical = false;
};

// Draws figures into one directory; remembers the names it wrote.
class Plotter {
 public:
  explicit Plotter(std::string outdir) : out_(std::move(outdir)) {}
  // Writes NAME.dat (the blocks) and NAME.gp (`body`'s settings, then `plot` once per
  // terminal, reading the blocks as plot_block(name)), and runs gnuplot on it to make
  // NAME.png and NAME.svg. Throws UsageError when gnuplot is missing,
  // std::runtime_error when it fails.
  void render(const std::string& name, const std::vector<PlotBlock>& blocks, const std::string& body,
              const std::string& plot, int w, int h);
  // Writes NAME.dat and NAME.gp as `vars` (gnuplot assignments) followed by the template
  // `tmpl` (sim/templates/*.gp), which draws NAME.png and NAME.svg itself from `data` and
  // `out`; runs gnuplot on it.
  void render_template(const std::string& name, const std::vector<PlotBlock>& blocks, const std::string& vars,
                       const char* tmpl);
  // A line figure: one block per series, the settings, and one plot of them all.
  void line_figure(const PlotFigure& f);
  // heatmap_NAME: the mesh of one result, each link direction an arrow coloured by
  // utilization, live chips as outlined squares, failed chips filled dark, failed links
  // dashed grey; `label` goes in the title. Draws nothing when the result has no mesh.
  void heatmap(const nlohmann::ordered_json& result, const std::string& name, const std::string& label);
  const std::vector<std::string>& written() const { return written_; }

 private:
  // NAME.dat: each block after a comment line "# block NAME:" (what plot_block finds),
  // blocks two blank lines apart; NAME.gp: a header, `data` naming the file, `script`.
  void run(const std::string& name, const std::vector<PlotBlock>& blocks, const std::string& script);

  std::string out_;
  std::vector<std::string> written_;
};

// outdir/heatmap_NAME.{png,svg,gp,dat}: the link-utilization map of one allreduce or traffic
// result (its config.mesh, config.fail-* and link_utilization), holes drawn; `label`
// goes in the title. Draws nothing when the result has no mesh.
void plot_heatmap(const std::string& outdir, const nlohmann::ordered_json& result,
                  const std::string& name, const std::string& label);

// outdir/NAME.{png,svg,gp,dat}: the blocks in NAME.dat; NAME.gp holds `body` (settings)
// then `plot` (one plot command reading the blocks through plot_block), rendered by
// gnuplot at w x h pixels. Throws UsageError when gnuplot is missing,
// std::runtime_error when it fails.
void plot_script(const std::string& outdir, const std::string& name, const std::vector<PlotBlock>& blocks,
                 const std::string& body, const std::string& plot, int w, int h);

}  // namespace fm
