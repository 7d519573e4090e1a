// The files and the summary a simulating command (traffic, allreduce) writes at the end
// of its run (sim/options.h).
#include <unistd.h>

#include <iostream>

#include "sim/io.h"
#include "sim/options.h"
#include "sim/summary.h"
#include "sim/view.h"
#include "tb/result_keys.h"

namespace fm {

void run_outputs_from(const po::variables_map& vm, const NetworkConfig& net, Outputs* out, WaveOptions* wave,
                      RunOptions* ro) {
  *out = outputs_from(vm);
  out->html = html_from(vm);
  *wave = wave_from(vm, &net);
  ro->progress = isatty(2) && !out->quiet;
  ro->wave = wave;
  ro->router_factory = rtl_routers_from(vm, net, *wave);
}

int finish_run(const Outputs& out, nlohmann::ordered_json j, const std::string& summary,
               const char* indent, const RunOptions& ro, const WaveOptions& wave,
               const std::string& wave_note, bool ok, const std::string& stop_reason,
               const std::string& message) {
  if (ro.router_factory) j[result_key::kConfig]["rtl-routers"] = true;
  if (!out.json.empty()) write_file_atomic(out.json, j.dump(2) + "\n");
  if (!out.csv.empty()) write_file_atomic(out.csv, csv_from_json(j));
  if (!out.html.empty()) {
    // The page is named after the run's JSON file when there is one.
    const std::string& named = out.json.empty() ? out.html : out.json;
    write_run_html(out.html, j, named.substr(named.find_last_of('/') + 1));
  }
  if (!out.quiet) std::cout << summary;
  if (ro.router_factory && !out.quiet) std::cout << indent << "routers         RTL (verilated rtl/fm_router.sv)\n";
  if (wave.enabled() && !out.quiet) std::cout << indent << "waveform        " << wave.path << "\n";
  if (!wave_note.empty()) std::cerr << "faultmesh: note: " << wave_note << "\n";
  if (!ok) {
    std::cerr << "faultmesh: run failed (" << stop_reason << "): " << message << "\n";
    return kExitRunFailed;
  }
  return kExitOk;
}

}  // namespace fm
