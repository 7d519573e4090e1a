// `faultmesh view`: one self-contained HTML page of one or two runs (allreduce or
// traffic result JSON): the machine drawn to scale with its dead chips, boards and
// links, every link direction coloured by its utilization in the window a time scrubber
// selects, the timeline events and phases on that scrubber, and the run's key figures.
// Everything the page shows comes from the run JSON (docs/view.md names each field);
// the page fetches nothing. Also the sweep's DIR/index.html (its figures and a sortable
// table of the points, each linked to its own page).
#pragma once
#include <string>
#include <vector>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

namespace fm {

// The page of `runs` (1 or 2 result JSONs; `names` label them). Throws UsageError when a
// JSON is not an allreduce or traffic result.
std::string view_html(const std::vector<nlohmann::json>& runs, const std::vector<std::string>& names);

// Reads a run result file for the page: throws UsageError naming the file and the
// problem (missing, unreadable, not JSON, not a run result).
nlohmann::json read_run_json(const std::string& path);

// `--html FILE` of allreduce and traffic: the run writes its own page.
boost::program_options::options_description html_options();
// The --html value, checked for writability before the run ("" when not given).
std::string html_from(const boost::program_options::variables_map& vm);
// Writes the page of one run (its JSON as written) to `path` (WriteError on failure).
void write_run_html(const std::string& path, const nlohmann::ordered_json& run, const std::string& name);

// The sweep directory's index.html: the figures found in `plot_dir` (PNG, each linked to
// its SVG), and a table of `rows` (the results.jsonl rows: point, status, options and
// statistics) sortable by any column, each point linked to points/NAME/view.html when
// that page exists. `write_pages`: first (re)write each ok point's page from its
// result.json.
void write_sweep_index(const std::string& dir, const std::vector<nlohmann::ordered_json>& rows,
                       const std::string& plot_dir, bool write_pages);
// The file name of a path (what follows its last '/'), as a page names a run.
std::string base_name(const std::string& p);

}  // namespace fm
