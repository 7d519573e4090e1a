// Figures drawn outside `faultmesh plot` with its gnuplot machinery (sim/plot.cpp):
// the report command's heatmaps and charts.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace fm {

// outdir/heatmap_NAME.{png,svg,gp}: the link-utilization map of one allreduce or traffic
// result (its config.mesh, config.fail-* and link_utilization), holes drawn; `label`
// goes in the title. Draws nothing when the result has no mesh.
void plot_heatmap(const std::string& outdir, const nlohmann::ordered_json& result,
                  const std::string& name, const std::string& label);

// outdir/NAME.{png,svg,gp}: `body` (datablocks and settings) then `plot` (one plot
// command), rendered by gnuplot at w x h pixels. Throws UsageError when gnuplot is
// missing, std::runtime_error when it fails.
void plot_script(const std::string& outdir, const std::string& name, const std::string& body,
                 const std::string& plot, int w, int h);

}  // namespace fm
