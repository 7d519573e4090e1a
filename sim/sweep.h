// Parameter sweeps (docs/sweeps.md): a spec file names a faultmesh subcommand, base
// options and axes; every point of the expanded grid runs that subcommand in its own
// process, locally or as one Slurm job array, and the results are collected into
// results.csv / results.jsonl. `faultmesh plot` turns a sweep directory into figures.
#pragma once
#include <cstddef>
#include <istream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace fm {

using OptionList = std::vector<std::pair<std::string, std::string>>;  // (name, value)

// One axis: an option and the values it takes ("-" = option not given at that point).
struct SweepAxis {
  std::string option;
  std::vector<std::string> values;
  bool zipped = false;  // in the [zip] group: advances together with the other zipped axes
};

struct SweepPoint {
  int id = 0;
  OptionList options;             // base then axis options, as given in the spec
  std::vector<std::string> args;  // the subcommand's command-line arguments
};

struct SweepSpec {
  std::string command;  // faultmesh subcommand every point runs
  OptionList base;
  std::vector<SweepAxis> axes;  // file order
  std::vector<SweepPoint> points;
};

// Reads, expands and validates a spec: every axis names a real option of the command,
// no list is empty, and every point's options pass the command's own parsing and
// validation. Throws UsageError (one line naming the problem) otherwise.
SweepSpec read_sweep_spec(const std::string& path);
// The same from a stream; `path` names the spec in errors. A spec of more than
// `max_points` points is refused (the fuzz target lowers it to bound each input's work).
SweepSpec parse_sweep_spec(std::istream& in, const std::string& path, size_t max_points = 1000000);

// The list or range syntax of one axis line ("1,2,4", "0.05:0.5:0.05", "0,0; 3,3", "-"):
// split at ';' when the line has one or `commas_in_values` (coordinates), else at ','.
// `what` names the axis in errors. Throws UsageError.
std::vector<std::string> parse_axis_values(const std::string& text, const std::string& what,
                                           bool commas_in_values = false);

// The manifest written to DIR/sweep.json, and read back by Slurm tasks and plot.
nlohmann::ordered_json spec_manifest(const SweepSpec& s);

// "0007": the directory name of a point under DIR/points/ (width from the point count).
std::string point_name(int id, int n_points);

}  // namespace fm
