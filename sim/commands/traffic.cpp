// faultmesh traffic: synthetic traffic on a mesh or torus, with its latency, throughput
// and link load (tb/traffic_run.h).
#include "sim/cli.h"
#include "sim/io.h"
#include "sim/options.h"
#include "sim/summary.h"
#include "sim/view.h"
#include "tb/traffic_run.h"

namespace fm {

int cmd_traffic(const std::vector<std::string>& args) {
  po::options_description desc;
  desc.add(network_options()).add(traffic_options()).add(output_options()).add(html_options())
      .add(wave_options()).add(rtl_router_options());
  po::variables_map vm;
  if (!parse_args(args, desc,
                  "usage: faultmesh traffic [options]\n"
                  "Synthetic traffic: warm-up, measurement window, then drain until every "
                  "packet is delivered.",
                  &vm))
    return kExitOk;
  const Config cfg = config_from(vm);
  Outputs out;
  WaveOptions wave;
  RunOptions ro;
  run_outputs_from(vm, cfg.net, &out, &wave, &ro);
  const TrafficResult r = run_traffic(cfg, ro);
  return finish_run(out, result_json(r), human_summary(r), "  ", ro, wave, r.wave_note, r.ok,
                    r.stop_reason, r.message);
}

}  // namespace fm
