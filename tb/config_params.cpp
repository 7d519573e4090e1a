// The rows of the declared option schema (tb/config_schema.h): one per simulation
// parameter, in the order of the result's config. The machinery that reads, checks,
// echoes and documents them is tb/config_schema.cpp.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>

#include "models/collective/algorithms.h"  // kMaxSlices
#include "models/noc/fault_set.h"
#include "tb/util/parse.h"
#include "tb/config_schema.h"

namespace fm {

namespace {
using Json = nlohmann::ordered_json;

constexpr unsigned kRoutes = (unsigned)Command::Routes, kTraffic = (unsigned)Command::Traffic,
                   kAllreduce = (unsigned)Command::Allreduce;
constexpr unsigned kNet = kRoutes | kTraffic | kAllreduce;  // every command with a network
constexpr unsigned kRuns = kTraffic | kAllreduce;           // every simulating command

std::string wxh(int w, int h) { return std::to_string(w) + "x" + std::to_string(h); }
std::string coord(const Coord& k) { return std::to_string(k.x) + "," + std::to_string(k.y); }
Json coords(const std::vector<Coord>& v) {
  Json a = Json::array();
  for (const Coord& k : v) a.push_back(coord(k));
  return a;
}
// "x,y" outside the mesh, as validate() reports it for --hotspot and --source.
std::string outside(const char* name, const std::vector<Coord>& v, const NetworkConfig& n) {
  for (const Coord& h : v)
    if (h.x < 0 || h.y < 0 || h.x >= n.width || h.y >= n.height)
      return "--" + std::string(name) + " " + coord(h) + ": outside the mesh (x 0.." + std::to_string(n.width - 1) +
             ", y 0.." + std::to_string(n.height - 1) + ")";
  return "";
}

// A list of chips (hotspots, sources, failed chips or boards): each value "x,y" is
// appended to the list `Ref` names, and the echo is the list as "x,y" strings.
std::vector<Coord>& hotspots(Config& c) { return c.traffic.hotspots; }
std::vector<Coord>& sources(Config& c) { return c.traffic.sources; }
std::vector<Coord>& failed_chips(Config& c) { return c.net.faults.chips; }
std::vector<Coord>& failed_boards(Config& c) { return c.net.faults.boards; }
template <std::vector<Coord>& (*Ref)(Config&)>
std::string add_coord(const std::string& s, Config* c) {
  Coord k;
  if (!parse_coord(s, &k)) return "expected x,y";
  Ref(*c).push_back(k);
  return "";
}
template <std::vector<Coord>& (*Ref)(Config&)>
Json echo_coords(const Config& c) {
  return coords(Ref(const_cast<Config&>(c)));  // read only
}

// A choice row's parse: the value is one of the enum's names (models/kinds.h, EnumNames).
template <typename E>
std::string choice(const std::string& s, E* out) {
  return parse_enum(s, out) ? "" : std::string("allowed ") + enum_list<E>();
}

// "auto" (0) or a whole number 1..hi, digits only.
bool auto_or_count(const std::string& s, uint64_t hi, uint64_t* out) {
  if (s == "auto") { *out = 0; return true; }
  if (s.empty() || s.size() > 19) return false;
  for (char ch : s)
    if (!std::isdigit((unsigned char)ch)) return false;
  const uint64_t v = std::strtoull(s.c_str(), nullptr, 10);
  if (v < 1 || v > hi) return false;
  *out = v;
  return true;
}
Json auto_or(uint64_t v) { return v ? Json(v) : Json("auto"); }
// The chunk --chunk auto picks: bytes/256 clamped to 4..64 KiB, whole flits, so small
// collectives still pipeline.
uint64_t auto_chunk(uint64_t bytes, uint64_t flit) {
  const uint64_t want = std::min<uint64_t>(64 << 10, std::max<uint64_t>(4 << 10, bytes / 256));
  return std::max<uint64_t>(flit, want / flit * flit);
}

// Row builders: the fields every row has, then the kind's own.
Param row(const char* name, Section s, unsigned cmds, const char* member, ParamKind k, const char* help) {
  Param p{name, s, cmds, member, k, help};
  return p;
}
Param int_row(const char* name, Section s, unsigned cmds, const char* member, int& (*ref)(Config&), double lo,
              double hi, const char* unit, const char* help) {
  Param p = row(name, s, cmds, member, ParamKind::Int, help);
  p.int_ref = ref, p.lo = lo, p.hi = hi, p.unit = unit;
  return p;
}
Param real_row(const char* name, Section s, unsigned cmds, const char* member, double& (*ref)(Config&), double lo,
               bool lo_open, double hi, const char* unit, const char* help) {
  Param p = row(name, s, cmds, member, ParamKind::Real, help);
  p.real_ref = ref, p.lo = lo, p.lo_open = lo_open, p.hi = hi, p.unit = unit;
  return p;
}
Param count_row(const char* name, Section s, unsigned cmds, const char* member, uint64_t& (*ref)(Config&), double lo,
                const char* unit, const char* help) {
  Param p = row(name, s, cmds, member, ParamKind::Cycles, help);
  p.cycles_ref = ref, p.lo = lo, p.unit = unit;
  return p;
}
Param text_row(const char* name, Section s, unsigned cmds, const char* member, const char* values,
               std::string (*parse)(const std::string&, Config*), Json (*echo)(const Config&), const char* help) {
  Param p = row(name, s, cmds, member, ParamKind::Text, help);
  p.values = values, p.parse = parse, p.echo = echo;
  return p;
}
Param list_row(const char* name, Section s, unsigned cmds, const char* member, const char* values,
               std::string (*parse)(const std::string&, Config*), Json (*echo)(const Config&), const char* help) {
  Param p = text_row(name, s, cmds, member, values, parse, echo, help);
  p.kind = ParamKind::List;
  return p;
}
template <typename F>
Param with(Param p, F f) {
  f(p);
  return p;
}

#define FM_REF(T, expr) +[](Config& c) -> T& { return c.expr; }
// A row choosing one value of an enum: its allowed list, parser and echo from the enum's
// name table.
#define FM_ENUM_ROW(name, section, cmds, member, T, expr, help)                                      \
  text_row(name, section, cmds, member, enum_list<T>(),                                             \
           [](const std::string& s, Config* c) { return choice(s, &c->expr); },                     \
           [](const Config& c) { return Json(enum_name(c.expr)); }, help)

std::vector<Param> make_params() {
  using S = Section;
  std::vector<Param> t;
  // ---- Network and router (every command with a network) ----
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
  // ---- Traffic (traffic, latency-sweep, bench) ----
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
  // ---- Run phases and guards ----
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
  // ---- Collective (allreduce) ----
  t.push_back(FM_ENUM_ROW("algo", S::Collective, kAllreduce, "coll.algo", coll::Algo, coll.algo,
                          "the allreduce algorithm (docs/collectives.md)"));
  t.push_back(FM_ENUM_ROW("order", S::Collective, kAllreduce, "coll.order", coll::Order, coll.order,
                          "2-D phase order; both: half the data each way at once (the fastest measured, "
                          "docs/collectives.md, Defaults)"));
  t.back().allreduce_default = "both";
  t.push_back(with(
      text_row("bytes", S::Collective, kAllreduce, "coll.bytes", "bytes >= 1, whole elements, at most 2^32 flits, within --hbm-bytes",
               [](const std::string& s, Config* c) -> std::string {
                 if (!parse_bytes(s, &c->coll.bytes))
                   return "expected a positive whole number of bytes, e.g. 64MiB, 100MB, 4096";
                 return c->coll.bytes / (uint64_t)std::max(1, c->net.flit_bytes) >= (1ULL << 32)
                            ? "at most 2^32 flits of data per chip"
                            : "";
               },
               [](const Config& c) { return Json(c.coll.bytes); }, "gradient bytes per chip, e.g. 64MiB, 100MB, 4096"),
      [](Param& p) {
        p.default_text = "16MiB";
        p.check = [](const Config& c) -> std::string {
          return c.coll.bytes ? "" : "--bytes 0: expected a positive whole number of bytes";
        };
      }));
  t.push_back(FM_ENUM_ROW("dtype", S::Collective, kAllreduce, "coll.dtype", DType, coll.dtype,
                          "element type (its size divides --bytes)"));
  t.push_back(with(
      text_row("chunk", S::Collective, kAllreduce, "coll.chunk_bytes", "auto or bytes, a multiple of --flit-bytes below 4 GiB",
               [](const std::string& s, Config* c) -> std::string {
                 const uint64_t fb = (uint64_t)std::max(1, c->net.flit_bytes);
                 if (s == "auto") {
                   c->coll.chunk_bytes = auto_chunk(c->coll.bytes, fb);
                   return "";
                 }
                 uint64_t v = 0;
                 if (!parse_bytes(s, &v) || v % fb || v >= (1ULL << 32))
                   return "must be a positive multiple of --flit-bytes (" + std::to_string(fb) + ") below 4 GiB";
                 c->coll.chunk_bytes = v;
                 return "";
               },
               [](const Config& c) { return Json(c.coll.chunk_bytes); },
               "pipelining chunk of every schedule; auto: bytes/256 clamped to 4..64 KiB, so small "
               "collectives still pipeline"),
      [](Param& p) { p.default_text = "auto"; }));
  t.push_back(with(
      text_row("slices", S::Collective, kAllreduce, "coll.slices", "auto or 1..64",
               [](const std::string& s, Config* c) -> std::string {
                 uint64_t v = 0;
                 if (!auto_or_count(s, coll::kMaxSlices, &v))
                   return "allowed auto or 1.." + std::to_string(coll::kMaxSlices);
                 c->coll.slices = (uint32_t)v;
                 return "";
               },
               [](const Config& c) { return auto_or(c.coll.slices); },
               "2-D family: the buffer cut into N slices run one after another, so a slice's later phases (and "
               "ft2d's fold) overlap the next slice's rings (auto: 4)"),
      [](Param& p) {
        p.check = [](const Config& c) -> std::string {
          return c.coll.slices > coll::kMaxSlices ? "--slices " + std::to_string(c.coll.slices) + ": allowed auto or 1.." +
                                                        std::to_string(coll::kMaxSlices)
                                                  : "";
        };
      }));
  t.push_back(FM_ENUM_ROW("line", S::Collective, kAllreduce, "coll.line", coll::Line, coll.line,
      "2-D family lines: ring (natural ring where it closes, else alternate-node) | chain (reduce toward each "
      "owner from both ends, copy back: S per link direction) | auto (ring where it closes, chain where not)"));
  t.back().allreduce_default = "auto";
  t.push_back(FM_ENUM_ROW("verify", S::Collective, kAllreduce, "coll.verify", Verify, coll.verify,
      "flits carry data words and every chip's sum is checked (auto: on when all chips' words "
      "fit in 1 GiB); --verify alone: on"));
  t.back().implicit = "on";
  // ---- Chip ----
  t.push_back(int_row("packet-words", S::Chip, kAllreduce, "chip.packet_words", FM_REF(int, chip.packet_words), 1,
                      1024, "flits", "data flits per packet (plus one header flit)"));
  t.push_back(FM_ENUM_ROW("send-order", S::Chip, kAllreduce, "chip.send_order", ChipConfig::SendOrder,
      chip.send_order, "which ready packet a lane starts first: schedule (earliest transfer in the schedule) | fifo (first read "
      "from HBM)"));
  t.push_back(real_row("hbm-bw", S::Chip, kAllreduce, "chip.hbm_gbps", FM_REF(double, chip.hbm_gbps), 0, true, 1e6,
                       "GB/s", "HBM bandwidth per chip"));
  t.push_back(with(text_row("hbm-bytes", S::Chip, kAllreduce, "chip.hbm_bytes", "bytes >= 1",
                            [](const std::string& s, Config* c) -> std::string {
                              return parse_bytes(s, &c->chip.hbm_bytes) ? "" : "expected bytes, e.g. 32GiB";
                            },
                            [](const Config& c) { return Json(c.chip.hbm_bytes); }, "HBM capacity per chip"),
                   [](Param& p) {
                     p.default_text = "32GiB";
                     p.check = [](const Config& c) -> std::string {
                       return c.chip.hbm_bytes ? "" : "--hbm-bytes 0: expected bytes, e.g. 32GiB";
                     };
                   }));
  t.push_back(real_row("reduce-bw", S::Chip, kAllreduce, "chip.reduce_gbps", FM_REF(double, chip.reduce_gbps), 0,
                       true, 1e6, "GB/s", "reduction unit throughput, of incoming data"));
  // Up to 10 s: more than any training step's compute and within what a run can simulate
  // (0.5 s of wall time per ms on a 4x4 mesh); 1e300 overflowed the cycle count.
  t.push_back(real_row("compute-us", S::Chip, kAllreduce, "chip.compute_us", FM_REF(double, chip.compute_us), 0, false,
                       1e7, "microseconds",
                       "compute time of a training step before the allreduce (simulated cycle by cycle)"));
  // ---- Guards ----
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
  // ---- Faults (net.faults) ----
  auto coord_list = [](const char* name, const char* member, const char* values,
                       std::string (*parse)(const std::string&, Config*), Json (*echo)(const Config&),
                       const char* help) {
    return list_row(name, Section::Network, kNet, member, values, parse, echo, help);
  };
  t.push_back(coord_list(
      "fail-chip", "net.faults.chips", "x,y; repeatable",
      add_coord<failed_chips>, echo_coords<failed_chips>, "failed chip x,y (repeatable)"));
  t.push_back(coord_list(
      "fail-board", "net.faults.boards", "bx,by; repeatable",
      add_coord<failed_boards>, echo_coords<failed_boards>,
      "failed board bx,by in board coordinates: all its chips (repeatable)"));
  t.push_back(coord_list(
      "fail-link", "net.faults.links", "x,y:D or x,y:D:oneway, D = N | E | S | W; repeatable",
      [](const std::string& s, Config* c) -> std::string {
        LinkFault l;
        if (!parse_link_fault(s, &l)) return "expected x,y:D or x,y:D:oneway with D one of N, E, S, W";
        c->net.faults.links.push_back(l);
        return "";
      },
      [](const Config& c) {
        Json a = Json::array();
        for (const LinkFault& l : c.net.faults.links) a.push_back(to_string(l));
        return a;
      },
      "failed link x,y:D (D = N|E|S|W; both directions) or x,y:D:oneway (repeatable)"));
  // Files: read after validate(), their places checked against the valid mesh line by
  // line; their faults are echoed in the lists above and below.
  t.push_back(with(text_row("fault-file", S::Network, kNet, "net.faults", "a file",
                            [](const std::string& s, Config* c) -> std::string {
                              read_fault_file(s, &c->net.faults, &c->net);  // throws ConfigError naming the line
                              return "";
                            },
                            nullptr,
                            "file of faults, one per line: chip x,y | board bx,by | link x,y:D [oneway]; # comments"),
                   [](Param& p) { p.late = true, p.echoed = false; }));
  // One failure of the schedule; `where` names it in errors ("--fail-at X", "FILE line N").
  static std::string (*const add_timed)(const std::string&, Config*, const std::string&) =
      [](const std::string& f, Config* c, const std::string& where) -> std::string {
    TimedFault t;
    std::string e = parse_timed_fault(f, &t);
    if (e.empty()) {
      FaultConfig one;
      one.timed.push_back(t);
      e = place_error(c->net, with_timed(one, {0}));
    }
    if (!e.empty()) throw ConfigError(where + ": " + e);
    c->net.faults.timed.push_back(t);
    return "";
  };
  t.push_back(with(text_row("fail-schedule", S::Recovery, kAllreduce, "net.faults.timed", "a file",
                            [](const std::string& path, Config* c) -> std::string {
                              std::ifstream in;
                              open_input_file(path, "--fail-schedule " + path, &in);
                              std::string line;
                              int failures = 0;
                              for (int no = 1; std::getline(in, line); ++no) {
                                if (const size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
                                const size_t a = line.find_first_not_of(" \t\r"), b = line.find_last_not_of(" \t\r");
                                if (a == std::string::npos) continue;  // blank or comment
                                add_timed(line.substr(a, b - a + 1), c,
                                          "--fail-schedule " + path + " line " + std::to_string(no));
                                ++failures;
                              }
                              // A schedule without a failure would run fault-free with no word said: a
                              // wrong file, or one not written yet.
                              if (failures == 0)
                                throw ConfigError("--fail-schedule " + path +
                                                  ": no failure in the file (only blank and comment lines); one "
                                                  "--fail-at value per line, e.g. 2000:board:1,1");
                              return "";
                            },
                            nullptr,
                            "a file of failures during the run, one --fail-at value per line, # comments "
                            "(docs/faults.md)"),
                   [](Param& p) { p.late = true, p.echoed = false; }));
  t.push_back(with(list_row("fail-at", S::Recovery, kAllreduce, "net.faults.timed", "WHEN:chip:x,y | WHEN:board:bx,by | WHEN:link:x,y:D[:oneway]; repeatable",
                            [](const std::string& f, Config* c) { return add_timed(f, c, "--fail-at " + f); },
                            [](const Config& c) {
                              Json a = Json::array();
                              for (const TimedFault& f : c.net.faults.timed) a.push_back(to_string(f));
                              return a;
                            },
                            "a failure during the run: WHEN:chip:x,y | WHEN:board:bx,by | WHEN:link:x,y:D[:oneway], "
                            "WHEN a cycle (120000), a share of the data reduced (50%) or the start of a phase "
                            "(@reduce-scatter-y, @all-gather-x+500: that many cycles later); repeatable "
                            "(docs/faults.md)"),
                   [](Param& p) { p.late = true; }));
  // ---- Recovery ----
  t.push_back(count_row("detect-cycles", S::Recovery, kAllreduce, "recovery.detect", FM_REF(uint64_t, recovery.detect),
                        0, "cycles", "cycles from a failure until the neighbours report it"));
  t.push_back(count_row("drain-quiet", S::Recovery, kAllreduce, "recovery.quiet", FM_REF(uint64_t, recovery.quiet), 8,
                        "cycles", "recovery: flush the network once no flit has moved for this many cycles"));
  t.push_back(count_row("drain-max", S::Recovery, kAllreduce, "recovery.max_drain",
                        FM_REF(uint64_t, recovery.max_drain), 1, "cycles",
                        "recovery: flush the network at the latest after this many cycles of draining"));
  t.push_back(count_row("table-write-cycles", S::Recovery, kAllreduce, "recovery.write_cycles",
                        FM_REF(uint64_t, recovery.write_cycles), 1, "cycles",
                        "recovery: cycles per route-table register write (routers are written in parallel)"));
  t.push_back(FM_ENUM_ROW("restart-algo", S::Recovery, kAllreduce, "recovery.restart_algo", coll::Algo,
                          recovery.restart_algo, "the algorithm the collective restarts with after a failure"));
  t.push_back(FM_ENUM_ROW("recovery", S::Recovery, kAllreduce, "recovery.mode", RecoveryConfig::Mode, recovery.mode,
      "after a failure: restart (every chip restores its gradient, the collective runs from the start) | resume "
      "(keep the transfers already done on the same data, restore only contaminated ranges)"));
  // ---- Host resources: they never change a result, so results do not echo them ----
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

#undef FM_REF

}  // namespace

const std::vector<Param>& params() {
  static const std::vector<Param> t = make_params();
  return t;
}


}  // namespace fm
