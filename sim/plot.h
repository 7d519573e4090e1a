// Figures drawn outside `faultmesh plot` with its gnuplot machinery (sim/plot.cpp):
// the report command's heatmaps and charts.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fm {

// One named block of a figure's data file (NAME.dat): gnuplot rows, one point per line.
struct PlotBlock {
  std::string name, rows;
};

// How a plot command reads block `name` of its figure's data file: "data index 'block NAME:'".
std::string plot_block(const std::string& name);

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
