// The one configuration struct of faultmesh. Every module reads its parameters from
// here; the CLI (sim/options.cpp) fills it from options and config files through the
// declared schema of tb/config_schema.h, and results files echo it back in full so that
// a run can be reproduced from its output.
#pragma once
#include <algorithm>
#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/kinds.h"
#include "models/noc/types.h"

namespace fm {

enum class Topology { Mesh, Torus };
enum class Arbiter { RoundRobin, ISlip };
// Routing schemes (docs/routing.md). Auto: XY when nothing has failed, Lash otherwise.
enum class Routing { XY, YX, Lash, FRing, Auto };
enum class Pattern {
  Uniform, Transpose, BitComplement, BitReverse, Shuffle, Tornado, Neighbour, Hotspot
};

// The names of these enums (models/kinds.h, EnumNames).
template <>
struct EnumNames<Topology> {
  static constexpr EnumName<Topology> table[] = {{Topology::Mesh, "mesh"}, {Topology::Torus, "torus"}};
};
template <>
struct EnumNames<Arbiter> {
  static constexpr EnumName<Arbiter> table[] = {{Arbiter::RoundRobin, "rr"}, {Arbiter::ISlip, "islip"}};
};
template <>
struct EnumNames<Routing> {
  static constexpr EnumName<Routing> table[] = {{Routing::XY, "xy"},     {Routing::XY, "dor"},
                                                {Routing::YX, "yx"},     {Routing::Lash, "lash"},
                                                {Routing::FRing, "fring"}, {Routing::Auto, "auto"}};
};
template <>
struct EnumNames<Pattern> {
  static constexpr EnumName<Pattern> table[] = {
      {Pattern::Uniform, "uniform"},   {Pattern::Transpose, "transpose"},
      {Pattern::BitComplement, "bitcomp"}, {Pattern::BitReverse, "bitrev"},
      {Pattern::Shuffle, "shuffle"},   {Pattern::Tornado, "tornado"},
      {Pattern::Neighbour, "neighbour"}, {Pattern::Neighbour, "neighbor", false},
      {Pattern::Hotspot, "hotspot"}};
};

struct Coord {
  int x = 0, y = 0;
  bool operator==(const Coord& o) const { return x == o.x && y == o.y; }
};

// A failed link: the link leaving chip `at` through network port `dir`; with `both`
// also the link coming back the other way.
struct LinkFault {
  Coord at;
  Port dir = kNorth;
  bool both = true;
};

// A failure during the run (--fail-at, docs/faults.md): a chip, a board or a link dies
// at cycle `cycle`, or when `percent` of the collective's data has been applied.
struct TimedFault {
  enum Kind : uint8_t { kChip, kBoard, kLink };
  Kind kind = kChip;
  Coord at;              // chip or board coordinates (kChip, kBoard)
  LinkFault link;        // kLink
  Cycle cycle = kNever;  // trigger by cycle ...
  double percent = -1;   // ... or by progress, in [0, 100) ...
  std::string phase;     // ... or when the running collective starts this phase (normalised
                         // name, phase_key()), `cycle` cycles later (then an offset, default 0)
  bool by_phase() const { return !phase.empty(); }
};

// What has failed (models/noc/fault_set.h turns this into per-chip, per-link state).
struct FaultConfig {
  std::vector<Coord> chips;    // --fail-chip x,y
  std::vector<Coord> boards;   // --fail-board bx,by (board coordinates)
  std::vector<LinkFault> links;  // --fail-link x,y:D[:oneway]
  std::vector<TimedFault> timed;  // --fail-at: failures during the run
  // Nothing failed before the run (failures during the run do not count here).
  bool empty() const { return chips.empty() && boards.empty() && links.empty(); }
};

// Bad input found while building the model (an impossible mesh, a partitioned fault
// set, a route set a scheme cannot make): the CLI reports it as bad input (exit 2).
struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Opens a file the user named as input for reading (`what` names it in errors:
// "--config c.ini", "sweep spec s.ini"). Throws ConfigError "WHAT: cannot read the file"
// when it cannot be opened, and "WHAT: is a directory, expected a file" for a directory,
// which opens on Linux and reads as empty (a run with none of the file's settings).
// Pipes and devices (--config <(...)) are read like files.
void open_input_file(const std::string& path, const std::string& what, std::ifstream* in);

// Network and router parameters. Defaults and where they come from: docs/router-microarchitecture.md.
struct NetworkConfig {
  int width = 8, height = 8;           // chips along x and y
  Topology topology = Topology::Mesh;  // torus adds wraparound links in both dimensions
  int board_w = 2, board_h = 2;        // chips per board along x and y (TPU-v3: 2x2)
  int local_ports = 1;                 // local lanes between router and chip, 1..4 (lane_of())
  int vcs = 2;                         // virtual channels per port, 1..16
  int buf = 8;                         // flits per VC buffer, 1..kMaxBuf (vcs x buf <= kMaxPortFlits)
  int pipeline = 3;                    // router pipeline depth in cycles, 1..4
  int link_latency = 1;                // cycles from sending a flit to its arrival, >= 1
  int credit_latency = 1;              // cycles from sending a credit to its arrival, >= 1
  int flit_bytes = 64;                 // bytes per flit = link width (one flit/cycle/link)
  double link_gbps = 100.0;            // GB/s per link direction (ICI: 100 GB/s = 1e11 B/s)
  Arbiter arbiter = Arbiter::RoundRobin;
  Routing routing = Routing::Auto;
  FaultConfig faults;

  int chips() const { return width * height; }
  bool torus() const { return topology == Topology::Torus; }
  // VC buffer depth covering one VC's credit round trip (pipeline + link + credit
  // latency + 1 cycles, rounded up to 8 flits, at least 8): one VC alone then keeps a
  // link busy, as real routers size their buffers for their longest link. The
  // allreduce's default (--buf); 8 at 1-cycle links, 408 at 200-cycle ones.
  int round_trip_buf() const {
    const int rtt = pipeline + link_latency + credit_latency + 1;
    return std::max(8, (rtt + 7) / 8 * 8);
  }
  // One flit crosses a link per cycle, so the cycle time follows from width and bandwidth.
  double cycle_ns() const { return flit_bytes / link_gbps; }
};

// Synthetic traffic (tb/traffic_pattern.h).
struct TrafficConfig {
  Pattern pattern = Pattern::Uniform;
  double rate = 0.1;        // offered load, flits per node per cycle, in [0, 1]
  int packet_min = 4;       // packet size in flits: fixed (min == max) or uniform range
  int packet_max = 4;
  std::vector<Coord> hotspots;   // destinations favoured by the hotspot pattern
  double hotspot_fraction = 0.5; // share of packets sent to a hotspot
  std::vector<Coord> sources;    // only these chips inject (empty: every chip)
};

// Phases and guards of one run (tb/traffic_run.h).
// The clock kernel's choices (models/noc/clock.h). None changes a result (the same
// results at any setting, checked by sim/check_identical.sh); they choose where and how a
// cycle is evaluated, and tests and measurements set them to reach paths a small run
// would not take on its own.
struct KernelOptions {
  // The fewest awake units for a cycle to run on the worker threads (0: the measured
  // default, Clock::kParallelMin; 1: every cycle, small meshes too).
  uint64_t parallel_min = 0;
  // Each eligible cycle on the workers or the calling thread, whichever the kernel
  // measures faster (Measured), or on the workers whatever it costs (Always: to measure
  // the barriers).
  enum class Parallel { Measured, Always } parallel = Parallel::Measured;
  // The prefetch hints: measured (Auto), always (On) or never (Off), at any size.
  enum class Prefetch { Auto, On, Off } prefetch = Prefetch::Auto;
  // A router VC ring's first size (Router::InVc::cap): 8 slots (256 bytes, four cache
  // lines); buffers of at most 8 flits (the default) never grow. Storage only: tests set
  // it to the buffer depth (rings that never grow) and require the same results byte
  // for byte. Not a command-line option.
  int first_ring_slots = 8;
};

template <>
struct EnumNames<KernelOptions::Parallel> {
  static constexpr EnumName<KernelOptions::Parallel> table[] = {{KernelOptions::Parallel::Measured, "measured"},
                                                                {KernelOptions::Parallel::Always, "always"}};
};
template <>
struct EnumNames<KernelOptions::Prefetch> {
  static constexpr EnumName<KernelOptions::Prefetch> table[] = {
      {KernelOptions::Prefetch::Auto, "auto"}, {KernelOptions::Prefetch::On, "on"}, {KernelOptions::Prefetch::Off, "off"}};
};

struct RunConfig {
  Cycle warmup = 2000;         // cycles of injection before measurement starts
  Cycle cycles = 20000;        // measurement window (cycles of injection after warm-up)
  Cycle max_drain = 1000000;   // guard: most cycles spent draining after injection stops
  Cycle watchdog = 10000;      // guard: cycles without any flit moving while flits wait
  Cycle max_cycles = 0;        // guard (allreduce): stop after this many cycles; 0 = auto
                               // (allreduce_cycle_limit(), tb/allreduce_run.h)
  Cycle util_window = 1024;    // allreduce: link utilization sampled per window (multiple of 256)
  int threads = 0;             // worker threads per cycle (0: the machine's cores; models/noc/clock.h)
  KernelOptions kernel;        // how the clock kernel evaluates a cycle (never changes a result)
  uint64_t mem_limit = 0;      // refuse runs estimated above this many bytes (0: MemAvailable; tb/memory.h)
  uint64_t seed = 1;
};

// One TPU-like chip (models/chip/, docs/chip.md): HBM and the collective engine.
struct ChipConfig {
  double hbm_gbps = 900.0;        // HBM bandwidth, GB/s (TPU-v3: 900 GB/s per chip)
  uint64_t hbm_bytes = 32ULL << 30;  // HBM capacity (TPU-v3: 32 GiB per chip, 16 per core)
  double reduce_gbps = 1000.0;    // reduction unit throughput, GB/s of incoming data added
  int packet_words = 32;          // data flits per packet (plus one header flit), 1..1024
  double compute_us = 0.0;        // compute time of a training step before the collective
  // Which ready packet an NI lane starts first: Schedule (the transfer earliest in the
  // collective's schedule, as a DMA engine serving its descriptor list in order would)
  // or Fifo (the one read from HBM first). docs/chip.md, "Send order".
  enum class SendOrder { Schedule, Fifo } send_order = SendOrder::Schedule;
};

enum class DType { Fp32, Bf16 };
enum class Verify { Auto, On, Off };
template <>
struct EnumNames<ChipConfig::SendOrder> {
  static constexpr EnumName<ChipConfig::SendOrder> table[] = {{ChipConfig::SendOrder::Schedule, "schedule"},
                                                              {ChipConfig::SendOrder::Fifo, "fifo"}};
};
template <>
struct EnumNames<DType> {
  static constexpr EnumName<DType> table[] = {{DType::Fp32, "fp32"}, {DType::Bf16, "bf16"}};
};
template <>
struct EnumNames<Verify> {
  static constexpr EnumName<Verify> table[] = {{Verify::On, "on"}, {Verify::Off, "off"}, {Verify::Auto, "auto"}};
};

// The collective the host launches (docs/collectives.md).
struct CollectiveConfig {
  coll::Algo algo = coll::Algo::TwoD;
  // The allreduce command defaults to order both and line auto (tb/config_params.cpp).
  coll::Order order = coll::Order::XY;
  uint64_t bytes = 16ULL << 20;    // gradient size per chip
  DType dtype = DType::Fp32;
  uint64_t chunk_bytes = 64 << 10; // pipelining granularity of every schedule
  uint32_t slices = 0;             // 2-D family: slices run in turn (0: auto, docs/collectives.md)
  coll::Line line = coll::Line::Ring;  // 2-D family: ring or chain lines (docs/collectives.md)
  // Auto: verify when the data words of all chips fit in 1 GiB.
  Verify verify = Verify::Auto;
};

// Recovery from failures during a run (models/fault/fault_controller.h, docs/faults.md).
struct RecoveryConfig {
  Cycle detect = 2000;    // cycles until the neighbours' missing heartbeats/credits report a fault
  Cycle quiet = 200;      // drain: flush once no flit has moved for this many cycles
  Cycle max_drain = 100000;  // drain: flush at the latest after this many cycles
  Cycle write_cycles = 1; // cycles per route-table register write (routers in parallel)
  coll::Algo restart_algo = coll::Algo::FT2D;  // the collective restarted on the live set
  // restart: every live chip restores its whole gradient and the new collective runs from
  // the start; resume: the transfers of the new collective that the aborted one already
  // did on the same data count as done and only contaminated ranges are restored
  // (models/collective/resume.h, docs/faults.md "Resume").
  enum class Mode { Restart, Resume } mode = Mode::Resume;
};
template <>
struct EnumNames<RecoveryConfig::Mode> {
  static constexpr EnumName<RecoveryConfig::Mode> table[] = {{RecoveryConfig::Mode::Restart, "restart"},
                                                             {RecoveryConfig::Mode::Resume, "resume"}};
};

struct Config {
  NetworkConfig net;
  TrafficConfig traffic;
  RunConfig run;
  ChipConfig chip;
  CollectiveConfig coll;
  RecoveryConfig recovery;
};

// Every parameter's option, default, range and echo are declared in tb/config_schema.h,
// which also validates a Config (validate()).

// Whether a run verifies: Verify::On/Off as given, Auto when the data words of all
// chips fit in 1 GiB.
bool verifies(const Config& c);
// Packet sizes of `--packet A-B` (or N = N-N) that validate() accepts, and its message's
// allowed part ("allowed N or A-B with ..."), for the CLI to echo the text as typed.
bool packet_sizes_ok(int min_flits, int max_flits);
extern const char* const kPacketAllowed;

inline const char* to_string(Topology t) { return enum_name(t); }
inline const char* to_string(Arbiter a) { return enum_name(a); }
inline const char* to_string(Routing r) { return enum_name(r); }
inline const char* to_string(Pattern p) { return enum_name(p); }
// "x,y" with two integers; false when malformed.
bool parse_coord(const std::string& s, Coord* out);
// Parsers return false on an unknown name.
inline bool parse_topology(const std::string& s, Topology* out) { return parse_enum(s, out); }
inline bool parse_arbiter(const std::string& s, Arbiter* out) { return parse_enum(s, out); }
inline bool parse_routing(const std::string& s, Routing* out) { return parse_enum(s, out); }
inline bool parse_pattern(const std::string& s, Pattern* out) { return parse_enum(s, out); }

}  // namespace fm
