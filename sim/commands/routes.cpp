// faultmesh routes: builds the route tables of a scheme for a fault set, runs the
// checker on them (the same one that runs before every simulation) and reports.
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>

#include "models/routing/checker.h"
#include "models/routing/routes.h"
#include "sim/cli.h"
#include "sim/io.h"
#include "sim/options.h"
#include "tb/traffic_run.h"

namespace fm {

// ASCII map, north at the top: each live chip's next hop toward d.
std::string draw_routes(const FaultSet& f, const std::vector<RouteTable>& tables, ChipId d) {
  const Topology2D& t = f.topology();
  std::string out = "  routes toward (" + std::to_string(t.x(d)) + "," + std::to_string(t.y(d)) +
                    "), north up:\n";
  for (int y = t.height() - 1; y >= 0; --y) {
    char row[16];
    std::snprintf(row, sizeof row, "  %3d  ", y);
    out += row;
    for (int x = 0; x < t.width(); ++x) {
      const ChipId c = t.id(x, y);
      char ch = '?';
      if (c == d) ch = 'D';
      else if (f.chip_dead(c)) ch = '#';
      else switch (tables[c].lookup(d).port) {
          case kNorth: ch = '^'; break;
          case kSouth: ch = 'v'; break;
          case kEast: ch = '>'; break;
          case kWest: ch = '<'; break;
        }
      out += ch;
      out += ' ';
    }
    out += "\n";
  }
  out += "       ";
  for (int x = 0; x < t.width(); ++x) out += std::to_string(x % 10) + " ";
  return out + "\n";
}

int cmd_routes(const std::vector<std::string>& args) {
  po::options_description extra("Report");
  extra.add_options()
    ("top", po::value<int>()->default_value(5), "most loaded links to list, 0..100")
    ("draw-to", po::value<std::string>(),
     "draw every live chip's next hop toward chip x,y (^ v < > ; # dead, D the destination)");
  po::options_description desc;
  desc.add(network_options(Command::Routes)).add(extra).add(output_options());
  po::variables_map vm;
  if (!parse_args(args, desc,
                  "usage: faultmesh routes [options]\n"
                  "Route tables for a fault set: connectivity, deadlock freedom (channel "
                  "dependency graph), path stretch, link loads under uniform traffic.",
                  &vm))
    return kExitOk;
  const Config cfg = config_from(vm, Command::Routes);
  const Outputs out = outputs_from(vm);
  const int top = vm["top"].as<int>();
  if (top < 0 || top > 100) throw UsageError("--top " + std::to_string(top) + ": allowed 0..100");
  const NetworkConfig& n = cfg.net;
  const FaultSet faults(n);
  // --draw-to is checked before anything is built or written: bad input leaves no file.
  std::optional<ChipId> draw_to;
  if (vm.count("draw-to")) {
    const std::string s = vm["draw-to"].as<std::string>();
    int x, y;
    char comma;
    std::istringstream in(s);
    if (!(in >> x >> comma >> y) || comma != ',' || !in.eof())
      throw UsageError("--draw-to " + s + ": expected x,y");
    if (x < 0 || y < 0 || x >= n.width || y >= n.height || faults.chip_dead(faults.topology().id(x, y)))
      throw UsageError("--draw-to " + s + ": not a live chip of the mesh");
    draw_to = faults.topology().id(x, y);
  }
  const RouteSet rs = build_routes(n, faults);
  const RouteCheck c = check_routes(faults, rs.tables, n.vcs, top);

  nlohmann::ordered_json j = routes_json(rs, c);
  j["live_chips"] = faults.live_chips();
  j["config"] = config_json(cfg, Command::Routes);
  if (!out.json.empty()) write_file_atomic(out.json, j.dump(2) + "\n");
  if (draw_to) std::cout << draw_routes(faults, rs.tables, *draw_to);
  if (!out.quiet) {
    std::printf("faultmesh routes: %dx%d %s, %d VCs, routing %s\n", n.width, n.height,
                to_string(n.topology), n.vcs, rs.scheme.c_str());
    std::printf("  live chips      %d of %d; dead: %s\n", faults.live_chips(), n.chips(),
                faults.live_chips() == n.chips() ? "none" : faults.describe().c_str());
    std::printf("  connected       %s\n", c.connected ? "yes: every live pair reaches its destination" : "NO");
    if (c.connected) {
      std::printf("  deadlock free   %s\n", c.deadlock_free ? "yes: channel dependency graph acyclic" : "NO");
      std::printf("  VCs used        %d of %d in %d group(s); %d destination(s) on non-minimal fallback trees\n",
                  c.vcs_used, n.vcs, rs.groups, rs.fallback_dests);
      std::printf("  path length     avg %.3f (minimal on live links %.3f, fault-free %.3f), stretch %.4f\n",
                  c.avg_path_length, c.avg_min_length, c.avg_faultfree_length, c.avg_path_stretch);
      std::printf("                  max %d (minimal %d)\n", c.max_path_length, c.max_min_length);
      if (!c.top_links.empty()) {
        std::printf("  most loaded links, uniform traffic at 1 flit/node/cycle (flits/cycle):\n");
        for (const LinkLoad& l : c.top_links) std::printf("    (%d,%d) %s  %.3f\n", l.x, l.y, port_name(l.port), l.load);
        std::printf("  => uniform saturation throughput <= %.4f flits/node/cycle\n", 1.0 / c.max_link_load);
      }
    }
    if (!c.problem.empty()) std::printf("  problem         %s\n", c.problem.c_str());
    std::printf("  verdict         %s\n", c.ok() ? "OK" : "FAILED");
  }
  return c.ok() ? kExitOk : kExitRunFailed;
}

}  // namespace fm
