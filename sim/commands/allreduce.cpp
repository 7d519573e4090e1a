// faultmesh allreduce: one allreduce on a machine of TPU-like chips, fault-free or
// around holes, with its time, bandwidths, bounds, phases and link utilization.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <sstream>

#include "models/collective/algorithms.h"
#include "models/model_version.h"
#include "models/noc/fault_set.h"
#include "sim/cli.h"
#include "sim/io.h"
#include "sim/options.h"
#include "sim/summary.h"
#include "sim/view.h"
#include "tb/allreduce_run.h"

namespace fm {

namespace {

std::string allreduce_summary(const AllreduceResult& r) {
  std::ostringstream s;
  const Config& c = r.config;
  s.setf(std::ios::fixed);
  s.precision(3);
  s << "allreduce       " << coll::to_string(c.coll.algo) << " on " << c.net.width << "x"
    << c.net.height << " " << to_string(c.net.topology) << ", " << r.live_chips << " live chips, "
    << r.participants << " participants, " << c.coll.bytes << " bytes per chip\n";
  s << "time            " << r.cycles << " cycles = " << r.time_us << " us  (cycle "
    << c.net.cycle_ns() << " ns)\n";
  s << "bandwidth       algbw " << r.algbw_GBps << " GB/s, busbw " << r.busbw_GBps << " GB/s\n";
  s << "bounds          algorithm " << (uint64_t)std::ceil(r.bound_cycles) << " cycles (ratio "
    << r.bound_ratio << "), topology " << (uint64_t)std::ceil(r.topo_bound_cycles)
    << " cycles (ratio " << r.topo_bound_ratio << ")\n";
  for (const PhaseTime& p : r.phases)
    s << "phase           " << p.name << ": cycles " << p.start << " .. " << p.end << "\n";
  s << "links           utilization mean " << r.link_util_mean << ", max " << r.link_util_max << "\n";
  s << "flits           injected " << r.totals.flits_injected << ", delivered " << r.flits_delivered
    << ", dropped " << r.drops.total() + r.discarded_abort << " (dead router " << r.drops.dead_router
    << ", dead link " << r.drops.dead_link << ", dead destination " << r.drops.dead_destination
    << ", flushed " << r.drops.flushed << ", aborted " << r.discarded_abort << "): "
    << (r.conservation_ok ? "conserved"
        : "NOT conserved")
    << (r.flits_in_network ? " (" + std::to_string(r.flits_in_network) + " still in the network at the stop)" : "")
    << "\n";
  for (const TimelineEvent& e : r.timeline) s << "timeline        cycle " << e.cycle << ": " << e.what << "\n";
  for (const std::string& f : r.untriggered)
    s << "not triggered   --fail-at " << f << " (the collective finished first)\n";
  s << "verified        " << (r.verified ? (*r.verified ? "yes: every participant holds the exact sum" : "NO") : "not checked (--verify on to check)") << "\n";
  if (c.chip.compute_us > 0) s << "step time       " << r.step_time_us << " us (compute " << c.chip.compute_us << " + allreduce)\n";
  s << "speed           " << r.router_cycles_per_second << " router-cycles/s, " << r.wall_seconds
    << " s wall, peak RSS " << r.peak_rss_kb / 1024 << " MiB\n";
  s << "result          " << (r.ok ? "OK" : "FAILED (" + r.stop_reason + "): " + r.message) << "\n";
  return s.str();
}

}  // namespace

int cmd_allreduce(const std::vector<std::string>& args) {
  const po::options_description desc = allreduce_command_options();
  po::variables_map vm;
  if (!parse_args(args, desc,
                  "usage: faultmesh allreduce [options]\n"
                  "One allreduce of --bytes per chip over the live chips, at flit level; "
                  "prints time, bandwidth, bounds, phases and link utilization.",
                  &vm))
    return kExitOk;
  Config cfg = allreduce_config_from(vm);
  if (vm["fingerprint"].as<bool>()) {
    nlohmann::ordered_json j;
    j["schedule_fingerprint"] = schedule_fingerprint(cfg);
    j["model_version"] = kModelVersion;
    j["recovery_version"] = recovery_version(cfg);
    std::cout << j.dump() << "\n";
    return kExitOk;
  }
  Outputs out;
  WaveOptions wave;
  RunOptions ro;
  run_outputs_from(vm, cfg.net, &out, &wave, &ro);
  const AllreduceResult r = run_allreduce(cfg, ro);
  return finish_run(out, allreduce_json(r), allreduce_summary(r), "", ro, wave, r.wave_note, r.ok,
                    r.stop_reason, r.message);
}

}  // namespace fm
