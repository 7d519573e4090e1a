// faultmesh latency-sweep: the latency-throughput curve. Steps the offered load, runs
// each point in its own process (several at once), and reports the saturation point:
// the first rate whose average packet latency exceeds --sat-factor times the latency at
// the lowest rate, whose accepted rate falls more than 5% below its offered rate, or
// whose run does not drain.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "sim/cli.h"
#include "sim/io.h"
#include "sim/options.h"
#include "sim/summary.h"
#include "tb/util/parse.h"
#include "tb/isolated.h"
#include "tb/memory.h"
#include "tb/result_keys.h"
#include "tb/traffic_run.h"

namespace fm {

namespace {

// "A:B:STEP" (inclusive) or "r1,r2,...".
std::vector<double> parse_rates(const std::string& s) {
  std::vector<double> v;
  auto bad = [&] {
    return UsageError("--rates " + s + ": expected A:B:STEP or a comma list, each rate in (0, 1]");
  };
  try {
    if (s.find(':') != std::string::npos) {
      double a, b, st;
      if (!parse_step_range(s, &a, &b, &st) || !(st > 0) || b < a) throw bad();
      for (int i = 0; a + i * st <= b + 1e-9 && i < 1000; ++i) v.push_back(a + i * st);
    } else {
      std::istringstream in(s);
      std::string tok;
      while (std::getline(in, tok, ',')) {
        size_t k;
        v.push_back(std::stod(tok, &k));
        if (k != tok.size()) throw bad();
      }
    }
  } catch (const UsageError&) {
    throw;
  } catch (...) {
    throw bad();
  }
  if (v.empty()) throw bad();
  for (double r : v) if (!(r > 0 && r <= 1.0 + 1e-12)) throw bad();
  return v;
}

// How many of a batch of `batch` points may run at once: each is a process with its own
// network, and config_from checked only one against the memory limit. When the batch
// does not fit, fewer run at once (the batches stay as --jobs makes them, so the points
// run and the results are the same) and a note says so.
int points_at_once(const Config& c, size_t batch) {
  const uint64_t per = estimate_network_memory(c.net).total();
  const bool automatic = c.run.mem_limit == 0;
  const uint64_t limit = automatic ? available_memory_bytes() : c.run.mem_limit;
  if (limit == 0 || per == 0 || per * batch <= limit) return (int)batch;
  const int n = (int)std::max<uint64_t>(1, limit / per);
  std::cerr << "faultmesh: note: running " << n << " point(s) at once, not " << batch << ": " << batch
            << " would need about " << format_bytes(per * batch) << " (" << format_bytes(per)
            << " each), more than "
            << (automatic ? "the " + format_bytes(limit) + " this machine has available"
                          : "--mem-limit " + format_bytes(limit))
            << "\n";
  return n;
}

}  // namespace

int cmd_latency_sweep(const std::vector<std::string>& args) {
  po::options_description sweep("Sweep");
  sweep.add_options()
    ("rates", po::value<std::string>()->default_value("0.05:1:0.05"),
     "offered loads: A:B:STEP or r1,r2,... (flits/node/cycle)")
    ("jobs", po::value<int>()->default_value(2), "points simulated at once, 1..64 (fewer when that many exceed --mem-limit)")
    ("sat-factor", po::value<double>()->default_value(3.0, "3"),
     "saturated when latency > this x the lowest-rate latency (> 1)")
    ("full", po::bool_switch(), "run every rate (default: stop after the first saturated batch)");
  po::options_description desc;
  desc.add(network_options()).add(traffic_options()).add(sweep).add(output_options());
  po::variables_map vm;
  if (!parse_args(args, desc,
                  "usage: faultmesh latency-sweep [options]\n"
                  "Latency vs. offered load; --rate is ignored, --rates steps it.",
                  &vm))
    return kExitOk;
  const Config base = config_from(vm);
  const Outputs out = outputs_from(vm);
  const std::vector<double> rates = parse_rates(vm["rates"].as<std::string>());
  const int jobs = vm["jobs"].as<int>();
  if (jobs < 1 || jobs > 64) throw UsageError("--jobs " + std::to_string(jobs) + ": allowed 1..64");
  const double factor = vm["sat-factor"].as<double>();
  if (!(factor > 1)) throw UsageError("--sat-factor: allowed > 1");
  const int parallel = points_at_once(base, std::min<size_t>(jobs, rates.size()));

  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  double zero_load = 0, sat_rate = -1, best_accepted = 0, last_ok_rate = -1;
  if (!out.quiet)
    std::printf("%8s %9s %9s %10s %6s %6s  %s\n", "rate", "offered", "accepted", "avg lat",
                "p99", "max", "status");
  for (size_t i = 0; i < rates.size() && (sat_rate < 0 || vm["full"].as<bool>()); i += jobs) {
    std::vector<std::function<std::string()>> batch;
    for (size_t k = i; k < rates.size() && k < i + (size_t)jobs; ++k) {
      Config c = base;
      c.traffic.rate = rates[k];
      batch.push_back([c] { return result_json(run_traffic(c)).dump(); });
    }
    const auto res = run_isolated_all(batch, parallel);
    for (size_t k = 0; k < res.size(); ++k) {
      if (res[k].exit_code != 0) throw std::runtime_error("sweep point failed: " + res[k].output);
      namespace rk = result_key;
      auto j = nlohmann::ordered_json::parse(res[k].output);
      const double lat = j[rk::kAvgPacketLatency].get<double>();
      const double off = j[rk::kOfferedFlitRate].get<double>();
      const double acc = j[rk::kAcceptedFlitRate].get<double>();
      if (i + k == 0) zero_load = lat;
      std::string status = "ok";
      if (!j[rk::kOk].get<bool>()) status = "saturated (" + j[rk::kStopReason].get<std::string>() + ")";
      else if (lat > factor * zero_load) status = "saturated (latency)";
      else if (acc < 0.95 * off) status = "saturated (accepted < offered)";
      const bool sat = status != "ok";
      if (sat && sat_rate < 0) sat_rate = rates[i + k];
      if (!sat && sat_rate < 0) last_ok_rate = rates[i + k];
      best_accepted = std::max(best_accepted, acc);
      if (!out.quiet)
        std::printf("%8.4f %9.4f %9.4f %10.2f %6u %6u  %s\n", rates[i + k], off, acc, lat,
                    j[rk::kP99PacketLatency].get<unsigned>(), j[rk::kMaxPacketLatency].get<unsigned>(),
                    status.c_str());
      j["status"] = status;
      points.push_back(j);
    }
    std::fflush(stdout);
  }
  nlohmann::ordered_json summary;
  summary["zero_load_latency"] = zero_load;
  summary["saturation_rate"] = sat_rate < 0 ? nlohmann::ordered_json() : nlohmann::ordered_json(sat_rate);
  summary["last_unsaturated_rate"] = last_ok_rate < 0 ? nlohmann::ordered_json() : nlohmann::ordered_json(last_ok_rate);
  summary["saturation_throughput"] = best_accepted;
  summary["sat_factor"] = factor;
  if (!out.quiet) {
    if (sat_rate < 0) std::printf("no saturation up to rate %.4f; ", rates.back());
    else std::printf("saturation at offered %.4f (last unsaturated %.4f); ", sat_rate, last_ok_rate);
    std::printf("saturation throughput %.4f flits/node/cycle\n", best_accepted);
  }
  if (!out.json.empty()) {
    nlohmann::ordered_json j;
    j["summary"] = summary;
    j["points"] = points;
    write_file_atomic(out.json, j.dump(2) + "\n");
  }
  if (!out.csv.empty()) {
    std::string csv;
    for (size_t k = 0; k < points.size(); ++k) {
      const std::string one = csv_from_json(points[k]);
      csv += k == 0 ? one : one.substr(one.find('\n') + 1);
    }
    write_file_atomic(out.csv, csv);
  }
  return kExitOk;
}

}  // namespace fm
