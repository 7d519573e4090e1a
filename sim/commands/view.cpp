// faultmesh view: one self-contained HTML page of a run, or of two side by side
// (sim/view.h, docs/view.md).
#include <iostream>

#include "sim/cli.h"
#include "sim/io.h"
#include "sim/options.h"
#include "sim/po_error.h"
#include "sim/view.h"

namespace fm {

using Json = nlohmann::json;

int cmd_view(const std::vector<std::string>& args) {
  po::options_description desc;
  desc.add_options()("out,o", po::value<std::string>(), "the HTML file to write")("help,h", "show this help");
  const char* usage = "faultmesh view RUN.json [RUN2.json] -o PAGE.html";
  po::variables_map vm;
  std::vector<std::string> files;
  try {
    po::parsed_options parsed = po::command_line_parser(args).options(desc).run();
    files = take_arguments(&parsed, 2, usage);
    po::store(parsed, vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(po_error_text(e) + " (see faultmesh view --help)");
  }
  if (vm.count("help")) {
    std::cout << "usage: " << usage << "\n"
              << "One self-contained HTML page of one run, or of two side by side on one time axis\n"
                 "(e.g. fault-free and faulted): the mesh with its dead chips, boards and links, each\n"
                 "link direction coloured by utilization in the window a time scrubber selects, the\n"
                 "timeline and phases, the key figures (docs/view.md).\n\n"
              << desc << "\n";
    return kExitOk;
  }
  if (files.empty()) throw UsageError("view: no run given; usage: " + std::string(usage));
  if (!vm.count("out")) throw UsageError("view: no output file given (-o PAGE.html); usage: " + std::string(usage));
  const std::string out = vm["out"].as<std::string>();
  check_writable(out, "-o");
  std::vector<Json> runs;
  std::vector<std::string> names;
  for (const std::string& f : files) {
    if (same_file(f, out)) throw UsageError("view: -o " + out + " would overwrite the run " + f);
    runs.push_back(read_run_json(f));
    names.push_back(base_name(f));
  }
  write_file_atomic(out, view_html(runs, names));
  std::cout << out << "\n";
  return kExitOk;
}

}  // namespace fm
