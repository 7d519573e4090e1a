// The rows of the declared option schema (tb/config_schema.h): one per simulation
// parameter, in the order of the result's config. The machinery that reads, checks,
// echoes and documents them is tb/config_schema.cpp. This file holds the rows of the
// network, the traffic, the run phases and guards and the host resources, and params(),
// which joins every group; tb/config_params_impl.h lists the groups and their files.
#include <iterator>

#include "tb/config_params_impl.h"

namespace fm {
namespace params_detail {

namespace {

std::string wxh(int w, int h) { return std::to_string(w) + "x" + std::to_string(h); }

// "x,y" outside the mesh, as validate() reports it for --hotspot and --source.
std::string outside(const char* name, const std::vector<Coord>& v, const NetworkConfig& n) {
  for (const Coord& h : v)
    if (h.x < 0 || h.y < 0 || h.x >= n.width || h.y >= n.height)
      return "--" + std::string(name) + " " + coord(h) + ": outside the mesh (x 0.." + std::to_string(n.width - 1) +
             ", y 0.." + std::to_string(n.height - 1) + ")";
  return "";
}

std::vector<Coord>& hotspots(Config& c) { return c.traffic.hotspots; }
std::vector<Coord>& sources(Config& c) { return c.traffic.sources; }

}  // namespace

// Network and router: every command with a network.
std::vector<Param> network_rows() {
  using S = Section;
  std::vector<Param> t;
  t.push_back(with(
      text_row("mesh", S::Network, kNet, "net.width, net.height", "WxH, each 2..4096, at most 16384 chips",
               [](const std::string& s, Config* c) -> std::string {
                 return parse_wxh(s, &c->net.width, &c->net.height)
                            ? ""
                            : "expected WxH, W and H whole numbers 2..4096, e.g. 16x16";
               },
               [](const Config& c) { return Json(wxh(c.net.width, c.net.height)); }, "chips along x and y"),
      [](Param& p) {
        p.check = [](const Config& c) -> std::string {
          const NetworkConfig& n = c.net;
          if (n.width < 2 || n.height < 2 || n.width > 4096 || n.height > 4096)
            return "--mesh " + wxh(n.width, n.height) + ": each dimension must be 2..4096";
          if ((long)n.width * n.height > 16384)
            return "--mesh " + wxh(n.width, n.height) +
                   ": at most 16384 chips are supported (route tables grow with chips squared)";
          return "";
        };
      }));
  t.push_back(FM_ENUM_ROW("topology", S::Network, kNet, "net.topology", Topology, net.topology,
                          "a torus adds wraparound links in both dimensions"));
  t.push_back(with(
      text_row("board", S::Network, kNet, "net.board_w, net.board_h", "WxH that fits in the mesh",
               [](const std::string& s, Config* c) -> std::string {
                 return parse_wxh(s, &c->net.board_w, &c->net.board_h)
                            ? ""
                            : "expected WxH, W and H whole numbers >= 1 that fit in the mesh, e.g. 2x2";
               },
               [](const Config& c) { return Json(wxh(c.net.board_w, c.net.board_h)); },
               "chips per board WxH (a failed board takes all its chips)"),
      [](Param& p) {
        p.check = [](const Config& c) -> std::string {
          const NetworkConfig& n = c.net;
          if (n.board_w < 1 || n.board_h < 1 || n.board_w > n.width || n.board_h > n.height)
            return "--board " + wxh(n.board_w, n.board_h) + ": board dimensions must be >= 1 and fit in the mesh (" +
                   wxh(n.width, n.height) + ")";
          return "";
        };
      }));
  t.push_back(with(int_row("vcs", S::Network, kNet, "net.vcs", FM_REF(int, net.vcs), 1, kMaxVcs, "",
                           "virtual channels per port (a torus needs >= 2)"),
                   [](Param& p) { p.allreduce_default = "4"; }));
  t.push_back(with(int_row("local-ports", S::Network, kNet, "net.local_ports", FM_REF(int, net.local_ports), 1,
                           kMaxLocalPorts, "", "local lanes between router and chip (4: one per ICI direction)"),
                   [](Param& p) { p.allreduce_default = "4"; }));
  t.push_back(with(int_row("buf", S::Network, kNet, "net.buf", FM_REF(int, net.buf), 1, kMaxBuf, "flits",
                           "buffer depth per VC (VCs x depth at most 32,768 flits per port); allreduce default: one VC's credit "
                           "round trip, pipeline + link + credit latency + 1 rounded up to 8 (408 at 200-cycle links)"),
                   [](Param& p) {
                     p.allreduce_default = "the credit round trip";
                     p.allreduce_derive = [](const Config& c) { return c.net.round_trip_buf(); };
                     p.check = [](const Config& c) -> std::string {
                       if ((long)c.net.vcs * c.net.buf <= kMaxPortFlits) return "";
                       return "--vcs " + std::to_string(c.net.vcs) + " x --buf " + std::to_string(c.net.buf) + " = " +
                              std::to_string((long)c.net.vcs * c.net.buf) + " flits per port: allowed at most " +
                              std::to_string(kMaxPortFlits) + " (e.g. --buf " + std::to_string(kMaxPortFlits / c.net.vcs) + ")";
                     };
                   }));
  t.push_back(int_row("pipeline", S::Network, kNet, "net.pipeline", FM_REF(int, net.pipeline), 1, 4, "cycles",
                      "router pipeline depth (docs/router-microarchitecture.md)"));
  t.push_back(with(int_row("link-latency", S::Network, kNet, "net.link_latency", FM_REF(int, net.link_latency), 1,
                           1000, "cycles", "ICI link flit latency (allreduce: 200 = 128 ns a hop; docs/collectives.md, Defaults)"),
                   [](Param& p) { p.allreduce_default = "200"; }));
  t.push_back(with(int_row("credit-latency", S::Network, kNet, "net.credit_latency", FM_REF(int, net.credit_latency),
                           1, 1000, "cycles", "credit return latency"),
                   [](Param& p) {
                     p.default_text = "= --link-latency";
                     p.follows = "link-latency";
                   }));
  t.push_back(int_row("flit-bytes", S::Network, kNet, "net.flit_bytes", FM_REF(int, net.flit_bytes), 1, 4096,
                      "bytes", "flit size = link width"));
  t.push_back(real_row("link-bw", S::Network, kNet, "net.link_gbps", FM_REF(double, net.link_gbps), 0, true, 1e6,
                       "GB/s", "link bandwidth per direction; cycle time = flit-bytes / link-bw"));
  t.push_back(FM_ENUM_ROW("arbiter", S::Network, kNet, "net.arbiter", Arbiter, net.arbiter,
                          "allocator pointer policy: round-robin or iSLIP"));
  t.push_back(FM_ENUM_ROW("routing", S::Network, kNet, "net.routing", Routing, net.routing,
                          "route-table scheme, dor = xy; auto: xy without faults, lash with (docs/routing.md)"));
  return t;
}

// Traffic: traffic, latency-sweep, bench.
std::vector<Param> traffic_rows() {
  using S = Section;
  std::vector<Param> t;
  t.push_back(FM_ENUM_ROW("pattern", S::Traffic, kTraffic, "traffic.pattern", Pattern, traffic.pattern,
                          "destination pattern (docs/traffic.md)"));
  t.push_back(real_row("rate", S::Traffic, kTraffic, "traffic.rate", FM_REF(double, traffic.rate), 0, false, 1,
                       "flits/node/cycle", "offered load (Bernoulli)"));
  t.push_back(with(
      text_row("packet", S::Traffic, kTraffic, "traffic.packet_min, traffic.packet_max", "N or A-B, 1 <= A <= B <= 65535 flits",
               [](const std::string& s, Config* c) -> std::string {
                 TrafficConfig& t = c->traffic;
                 if (!parse_int_range(s, &t.packet_min, &t.packet_max)) return "expected N or A-B flits";
                 return packet_sizes_ok(t.packet_min, t.packet_max) ? "" : kPacketAllowed;  // echoed as typed
               },
               [](const Config& c) {
                 const TrafficConfig& t = c.traffic;
                 return Json(t.packet_min == t.packet_max
                                 ? std::to_string(t.packet_min)
                                 : std::to_string(t.packet_min) + "-" + std::to_string(t.packet_max));
               },
               "packet size in flits: N or A-B (uniform)"),
      [](Param& p) {
        p.check = [](const Config& c) -> std::string {
          const TrafficConfig& t = c.traffic;
          return packet_sizes_ok(t.packet_min, t.packet_max) ? ""
                 : "--packet " + std::to_string(t.packet_min) + "-" + std::to_string(t.packet_max) + ": " +
                       kPacketAllowed;
        };
      }));
  t.push_back(with(list_row(
                       "hotspot", S::Traffic, kTraffic, "traffic.hotspots", "x,y in the mesh; repeatable",
                       add_coord<hotspots>, echo_coords<hotspots>,
                       "hotspot chip x,y (repeatable; for --pattern hotspot)"),
                   [](Param& p) { p.check = [](const Config& c) { return outside("hotspot", c.traffic.hotspots, c.net); }; }));
  t.push_back(real_row("hotspot-fraction", S::Traffic, kTraffic, "traffic.hotspot_fraction",
                       FM_REF(double, traffic.hotspot_fraction), 0, false, 1, "", "share of packets sent to a hotspot"));
  t.push_back(with(list_row(
                       "source", S::Traffic, kTraffic, "traffic.sources", "x,y in the mesh; repeatable",
                       add_coord<sources>, echo_coords<sources>,
                       "only chip x,y injects (repeatable; default every chip)"),
                   [](Param& p) { p.check = [](const Config& c) { return outside("source", c.traffic.sources, c.net); }; }));
  return t;
}

// Run phases: warm-up, measurement and drain of a traffic run, and the utilisation window.
std::vector<Param> run_phase_rows() {
  using S = Section;
  std::vector<Param> t;
  t.push_back(count_row("warmup", S::Run, kTraffic, "run.warmup", FM_REF(uint64_t, run.warmup), 0, "cycles",
                        "warm-up cycles of injection before measurement"));
  t.push_back(count_row("cycles", S::Run, kTraffic, "run.cycles", FM_REF(uint64_t, run.cycles), 1, "cycles",
                        "measurement window (injection continues through it)"));
  t.push_back(count_row("max-drain", S::Run, kTraffic, "run.max_drain", FM_REF(uint64_t, run.max_drain), 0, "cycles",
                        "guard: most cycles to drain after injection stops"));
  t.push_back(with(count_row("util-window", S::Run, kRuns, "run.util_window", FM_REF(uint64_t, run.util_window), 256,
                             "cycles", "link utilisation sampled per window of this many cycles, a multiple of 256 "
                                       "(the HTML page's time steps, docs/view.md)"),
                   [](Param& p) {
                     p.check = [](const Config& c) -> std::string {
                       return c.run.util_window % 256 || c.run.util_window > (1u << 30)
                                  ? "--util-window " + std::to_string(c.run.util_window) +
                                        ": allowed a multiple of 256 cycles up to 2^30"
                                  : "";
                     };
                   }));
  return t;
}

// Guards: what stops a run that does not finish, and the traffic seed.
std::vector<Param> guard_rows() {
  using S = Section;
  std::vector<Param> t;
  t.push_back(count_row("watchdog", S::Run, kRuns, "run.watchdog", FM_REF(uint64_t, run.watchdog), 1, "cycles",
                        "guard: stop when no flit moves for this many cycles while work waits"));
  t.push_back(with(
      text_row("max-cycles", S::Run, kAllreduce, "run.max_cycles", "auto or cycles >= 1",
               [](const std::string& s, Config* c) -> std::string {
                 return auto_or_count(s, UINT64_MAX, &c->run.max_cycles)
                            ? ""
                            : "allowed auto or a whole number of cycles >= 1";
               },
               [](const Config& c) { return auto_or(c.run.max_cycles); },
               "guard: stop when the allreduce has not finished after this many cycles (auto: 16x the busiest "
               "chip's own traffic, docs/errors.md)"),
      [](Param& p) { p.default_text = "auto"; }));
  t.push_back(count_row("seed", S::Run, kTraffic, "run.seed", FM_REF(uint64_t, run.seed), 0, "",
                        "random seed of the traffic"));
  return t;
}

// Host resources: they never change a result, so results do not echo them.
std::vector<Param> host_rows() {
  using S = Section;
  std::vector<Param> t;
  t.push_back(with(text_row("threads", S::Network, kRuns | kRoutes, "run.threads", "auto or 1..256",
                            [](const std::string& s, Config* c) -> std::string {
                              uint64_t v = 0;
                              if (!auto_or_count(s, 256, &v)) return "allowed auto or a whole number 1..256";
                              c->run.threads = (int)v;
                              return "";
                            },
                            nullptr,
                            "worker threads evaluating each cycle, 1..256, or auto (the machine's cores); results "
                            "are the same for every count (docs/performance.md)"),
                   [](Param& p) {
                     p.default_text = "auto", p.echoed = false;
                     p.check = [](const Config& c) -> std::string {
                       return c.run.threads < 0 || c.run.threads > 256
                                  ? "--threads " + std::to_string(c.run.threads) +
                                        ": allowed auto or a whole number 1..256"
                                  : "";
                     };
                   }));
  // The clock kernel's choices (models/config.h KernelOptions): for tests and
  // measurements that need a path a run would not take on its own.
  t.push_back(with(text_row("parallel-min", S::Network, kRuns, "run.kernel.parallel_min", "auto or 1..",
                            [](const std::string& s, Config* c) -> std::string {
                              uint64_t v = 0;
                              if (!auto_or_count(s, UINT32_MAX, &v)) return "allowed auto or a whole number 1..4294967295";
                              c->run.kernel.parallel_min = v;
                              return "";
                            },
                            nullptr,
                            "the fewest awake units for a cycle to run on the worker threads (auto: the measured "
                            "default; 1: every cycle, to check that small runs give the one-thread results)"),
                   [](Param& p) { p.default_text = "auto", p.echoed = false; }));
  t.push_back(with(FM_ENUM_ROW("parallel", S::Network, kRuns, "run.kernel.parallel", KernelOptions::Parallel,
                               run.kernel.parallel,
                               "with 2+ threads, each eligible cycle on the workers or the calling thread, whichever "
                               "measures faster (measured), or on the workers whatever it costs (always: to measure "
                               "the barriers; docs/performance.md)"),
                   [](Param& p) { p.echoed = false; }));
  t.push_back(with(FM_ENUM_ROW("prefetch", S::Network, kRuns, "run.kernel.prefetch", KernelOptions::Prefetch,
                               run.kernel.prefetch,
                               "the clock kernel's prefetch hints: measured on large runs (auto), or on or off at "
                               "any size (docs/performance.md)"),
                   [](Param& p) { p.echoed = false; }));
  t.push_back(with(text_row("mem-limit", S::Network, kRuns | kRoutes, "run.mem_limit", "auto or bytes",
                            [](const std::string& s, Config* c) -> std::string {
                              if (s == "auto") {
                                c->run.mem_limit = 0;
                                return "";
                              }
                              return parse_bytes(s, &c->run.mem_limit) ? "" : "allowed auto or bytes, e.g. 8GiB";
                            },
                            nullptr,
                            "refuse a run estimated to need more memory than this, e.g. 8GiB (auto: what the "
                            "machine has available now; docs/errors.md)"),
                   [](Param& p) { p.default_text = "auto", p.echoed = false; }));
  return t;
}

}  // namespace params_detail

namespace {

// Every group's rows in the schema's order (tb/config_params_impl.h).
std::vector<Param> make_params() {
  using namespace params_detail;
  std::vector<Param> t;
  for (std::vector<Param> (*group)() : {network_rows, traffic_rows, run_phase_rows, collective_rows, chip_rows,
                                         guard_rows, fault_rows, recovery_rows, host_rows}) {
    std::vector<Param> rows = group();
    t.insert(t.end(), std::make_move_iterator(rows.begin()), std::make_move_iterator(rows.end()));
  }
  return t;
}

}  // namespace

const std::vector<Param>& params() {
  static const std::vector<Param> t = make_params();
  return t;
}

}  // namespace fm
