// The allreduce result as JSON (`faultmesh allreduce --json`): the results contract of
// tb/result_keys.h, kind allreduce.
#include "models/model_version.h"
#include "tb/allreduce_run.h"
#include "tb/config_schema.h"
#include "tb/result_keys.h"
#include "tb/traffic_run.h"

namespace fm {

nlohmann::ordered_json allreduce_json(const AllreduceResult& r) {
  namespace rk = result_key;
  nlohmann::ordered_json j = result_header(ResultKind::Allreduce);
  j[rk::kOk] = r.ok;
  j[rk::kStopReason] = r.stop_reason;
  if (!r.message.empty()) j[rk::kMessage] = r.message;
  j[rk::kAlgo] = coll::to_string(r.config.coll.algo);
  j[rk::kBytes] = r.config.coll.bytes;
  j[rk::kCycles] = r.cycles;
  j[rk::kStartCycle] = r.start_cycle;  // phases' start/end count from here
  j["max_cycles_limit"] = r.max_cycles;  // the max-cycles guard in force
  j[rk::kTimeUs] = r.time_us;
  j["step_time_us"] = r.step_time_us;
  j[rk::kAlgbwGBps] = r.algbw_GBps;
  j[rk::kBusbwGBps] = r.busbw_GBps;
  j[rk::kBoundCycles] = r.bound_cycles;
  j[rk::kBoundRatio] = r.bound_ratio;
  j[rk::kTopoBoundCycles] = r.topo_bound_cycles;
  j[rk::kTopoBoundRatio] = r.topo_bound_ratio;
  j[rk::kVerified] = r.verified ? nlohmann::ordered_json(*r.verified) : nlohmann::ordered_json(nullptr);
  j[rk::kLiveChips] = r.live_chips;
  j[rk::kParticipants] = r.participants;
  j[rk::kWordsPerChip] = r.words;
  j[rk::kTransfers] = r.transfers;
  j[rk::kMaxLinkWords] = r.max_link_words;
  nlohmann::ordered_json ph = nlohmann::ordered_json::array();
  for (const PhaseTime& p : r.phases) ph.push_back({{"name", p.name}, {"start", p.start}, {"end", p.end}});
  j[rk::kPhases] = ph;
  j[rk::kLinkUtilMean] = r.link_util_mean;
  j[rk::kLinkUtilMax] = r.link_util_max;
  nlohmann::ordered_json links = nlohmann::ordered_json::array();
  for (const LinkUtil& l : r.links)
    links.push_back({{"x", l.x}, {"y", l.y}, {"port", port_name(l.port)}, {"utilization", l.utilization}});
  j[rk::kLinkUtilization] = links;
  j[rk::kFlitsInjected] = r.totals.flits_injected;
  j[rk::kFlitsEjected] = r.totals.flits_ejected;
  j[rk::kFlitsDelivered] = r.flits_delivered;
  j[rk::kFlitsDropped] = {{"dead_router", r.drops.dead_router},
                          {"dead_link", r.drops.dead_link},
                          {"dead_destination", r.drops.dead_destination},
                          {"flushed", r.drops.flushed},
                          {"abort", r.discarded_abort},
                          {"total", r.drops.total() + r.discarded_abort}};
  j["flits_in_network"] = r.flits_in_network;  // left in buffers and on links at a stop
  j[rk::kConservationOk] = r.conservation_ok;
  j[rk::kRestarts] = r.restarts;
  nlohmann::ordered_json tl = nlohmann::ordered_json::array();
  for (const TimelineEvent& e : r.timeline) tl.push_back({{"cycle", e.cycle}, {"event", e.what}});
  j[rk::kTimeline] = tl;
  j[rk::kFaultsNotTriggered] = r.untriggered;
  nlohmann::ordered_json us = nlohmann::ordered_json::array();
  for (const auto& [c, u] : r.util_series) us.push_back({{"cycle", c}, {"utilization", u}});
  j[rk::kLinkUtilizationOverTime] = us;
  for (auto it = r.view.begin(); it != r.view.end(); ++it) j[it.key()] = it.value();
  j["hbm_bytes_moved"] = r.hbm_bytes;
  j["words_reduced"] = r.words_reduced;
  j["routing"] = routes_json(r.routes_info, r.route_check);
  j[rk::kConfig] = config_json(r.config, Command::Allreduce);
  j[rk::kScheduleFingerprint] = r.schedule_fingerprint;
  j[rk::kModelVersion] = kModelVersion;
  j[rk::kRecoveryVersion] = recovery_version(r.config);
  j[rk::kSimulator] = {{"wall_seconds", r.wall_seconds},
                       {"setup_seconds", r.setup_seconds},
                       {"recovery_planning_seconds", r.planning_seconds},
                       {"router_cycles_per_second", r.router_cycles_per_second},
                       {"peak_rss_kb", r.peak_rss_kb},
                       {"cpu", host_cpu()},
                       {"threads", r.threads},
                       {"parallel_cycles", r.parallel_cycles},
                       {"rebalances", r.rebalances}};
  return j;
}

}  // namespace fm
