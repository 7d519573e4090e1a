#include "sim/summary.h"

#include "tb/util/json_io.h"

#include <cstdio>
#include <sstream>
#include <vector>

namespace fm {

std::string csv_from_json(const nlohmann::ordered_json& j) {
  std::vector<std::string> keys, vals;
  flatten_json(j, [&](const std::string& k, const nlohmann::ordered_json& v) {
    keys.push_back(k);
    vals.push_back(csv_text(v, false));
  });
  std::string out;
  for (size_t i = 0; i < keys.size(); ++i) out += (i ? "," : "") + csv_quote(keys[i]);
  out += "\n";
  for (size_t i = 0; i < vals.size(); ++i) out += (i ? "," : "") + csv_quote(vals[i]);
  return out + "\n";
}

std::string human_summary(const TrafficResult& r) {
  const Config& c = r.config;
  char b[4096];
  std::ostringstream s;
  std::snprintf(b, sizeof b,
                "faultmesh traffic: %dx%d %s, %d VCs x %d flits, pipeline %d, link latency %d, "
                "%s routing, %s arbiters\n"
                "  pattern %s at %.4g flits/node/cycle, packets of %d-%d flits, seed %llu\n",
                c.net.width, c.net.height, to_string(c.net.topology), c.net.vcs, c.net.buf,
                c.net.pipeline, c.net.link_latency, to_string(c.net.routing),
                to_string(c.net.arbiter), to_string(c.traffic.pattern), c.traffic.rate,
                c.traffic.packet_min, c.traffic.packet_max, (unsigned long long)c.run.seed);
  s << b;
  std::snprintf(b, sizeof b,
                "  cycles          %llu (warm-up %llu, measure %llu, drain %llu)\n"
                "  throughput      offered %.4f, accepted %.4f flits/node/cycle\n"
                "  packet latency  avg %.2f  p50 %u  p99 %u  max %u cycles (%llu packets measured)\n"
                "  network latency avg %.2f  p50 %u  p99 %u  max %u cycles, avg hops %.2f\n"
                "  links           utilization mean %.3f, max %.3f\n"
                "  flits           injected %llu, ejected %llu\n"
                "  speed           %.3g router-cycles/s, %.3g flit-hops/s, %.2f s wall\n",
                (unsigned long long)r.total_cycles, (unsigned long long)r.warmup_cycles,
                (unsigned long long)r.measure_cycles, (unsigned long long)r.drain_cycles,
                r.offered_flit_rate, r.accepted_flit_rate, r.avg_packet_latency,
                r.p50_packet_latency, r.p99_packet_latency, r.max_packet_latency,
                (unsigned long long)r.measured_packets, r.avg_network_latency,
                r.p50_network_latency, r.p99_network_latency, r.max_network_latency, r.avg_hops,
                r.link_util_mean, r.link_util_max, (unsigned long long)r.totals.flits_injected,
                (unsigned long long)r.totals.flits_ejected, r.router_cycles_per_second,
                r.flit_hops_per_second, r.wall_seconds);
  s << b;
  if (r.ok) s << "  result          OK: drained, every injected flit ejected\n";
  else s << "  result          FAILED (" << r.stop_reason << "): " << r.message << "\n";
  return s.str();
}

}  // namespace fm
