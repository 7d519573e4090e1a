#include "tb/memory.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "models/collective/algorithms.h"
#include "models/collective/resume.h"
#include "models/noc/link.h"
#include "models/noc/router.h"

namespace fm {

namespace {
// Measured (docs/errors.md): peak RSS of `faultmesh traffic` and `allreduce` runs with
// one parameter varied, divided by the number of items. What the model's own types
// give is taken from them (Router::entry_bytes, Link::heap_bytes).
constexpr double kBase = 12.0 * (1 << 20);   // program, SystemC kernel, libraries
constexpr double kPerChip = 16 << 10;        // router, NI, links, SystemC process
constexpr double kPerRouteEntry = 9;         // 4-byte entry, held by the route set and the router
constexpr double kPerTransfer = 80;          // schedule entry, dependency lists, run state
constexpr double kPerDataWord = 9;           // a verified data word (one per flit of data)
// The resume planner's segments per chip and slice: 2d aborted, resumed as ft2d around a
// board, order both (docs/errors.md): 8x8 at 4 MiB about 2,000 segments, 32x32 at 16 MiB
// about 75,000, 8 and 18 per chip and slice; 24 leaves room.
constexpr double kPlanSegmentsPerChip = 24;

uint64_t clamp(double v) { return v >= 1.8e19 ? UINT64_MAX : (uint64_t)v; }
}  // namespace

uint64_t MemoryEstimate::total() const {
  uint64_t t = 0;
  for (const auto& [what, b] : parts) t = b > UINT64_MAX - t ? UINT64_MAX : t + b;
  return t;
}

std::string format_bytes(uint64_t b) {
  char s[48];
  const double v = (double)b;
  if (v >= 1024.0 * 1024 * 1024) std::snprintf(s, sizeof s, "%.1f GiB", v / (1024.0 * 1024 * 1024));
  else if (v >= 1024.0 * 1024) std::snprintf(s, sizeof s, "%.0f MiB", v / (1024.0 * 1024));
  else std::snprintf(s, sizeof s, "%.0f KiB", v / 1024.0);
  return s;
}

std::string MemoryEstimate::describe() const {
  std::ostringstream s;
  s << format_bytes(total()) << " (";
  for (size_t i = 0; i < parts.size(); ++i) s << (i ? ", " : "") << parts[i].first << " " << format_bytes(parts[i].second);
  s << ")";
  return s.str();
}

MemoryEstimate estimate_network_memory(const NetworkConfig& n, const KernelOptions& k) {
  const double chips = (double)n.width * n.height;
  const double ports = 4 + n.local_ports;
  MemoryEstimate e;
  // A VC's ring starts at 8 slots and grows only when it fills (models/noc/router.h), and
  // its deeper slots are never touched until then: a buffer sized for a long link's credit
  // round trip costs what it holds. Charged: the first ring of every VC. (A run whose
  // deep buffers fill, under congestion, holds up to buf slots per VC: more than this.)
  const double ring = std::min(n.buf, k.first_ring_slots);
  e.parts.push_back({"router buffers", clamp(chips * ports * n.vcs * ring * (double)Router::entry_bytes())});
  // Links longer than the inline rings: a flit slot per cycle of latency (rounded up to a
  // power of two), which a used link walks through entirely, and a credit ring that grows
  // to about one credit per cycle of credit latency in a stream.
  const double pipe = (double)Link::heap_bytes(n.link_latency, n.credit_latency);
  if (pipe > 0) e.parts.push_back({"link pipelines", clamp(chips * kNumNetPorts * pipe)});
  e.parts.push_back({"route tables", clamp(chips * chips * kPerRouteEntry)});
  e.parts.push_back({"routers, links and interfaces", clamp(chips * kPerChip + kBase)});
  return e;
}

void add_collective_memory(const Config& c, uint64_t transfers, bool verify, MemoryEstimate* e) {
  e->parts.push_back({"collective schedule", clamp((double)transfers * kPerTransfer)});
  if (verify) {
    const double words = std::ceil((double)c.coll.bytes / c.net.flit_bytes);
    e->parts.push_back({"verified data", clamp(words * c.net.chips() * kPerDataWord)});
  }
}

MemoryEstimate estimate_allreduce_memory(const Config& c, const FaultSet& f, bool verify) {
  // The schedule's parameters as the chips' descriptor gives them (CollectiveLibrary::get).
  const coll::AlgoParams p = coll::algo_params_of(c);
  MemoryEstimate e = estimate_network_memory(c.net, c.run.kernel);
  const uint64_t transfers = coll::count_transfers(f, p);
  add_collective_memory(c, transfers, verify, &e);
  if (!c.net.faults.timed.empty()) {
    // A failure during the run: the restarted collective's schedule beside the first
    // one's; with resume also its continuation and the resume planner, about 48 bytes per
    // chip and segment of the buffer (at most one segment per word) within its bound
    // (models/collective/resume.h). Counted once: a later failure's plan replaces it.
    const bool resume = c.recovery.mode == RecoveryConfig::Mode::Resume;
    e.parts.push_back({"restart schedules", clamp((resume ? 2.0 : 1.0) * (double)transfers * kPerTransfer)});
    if (resume) {
      // The segments: the boundaries of both schedules' shards (per slice, about
      // kPlanSegmentsPerChip for each chip) and chunks, at most one per word.
      const double words = (double)p.words, chips = (double)c.net.chips();
      const double slices = p.slices ? p.slices : coll::kAutoSlices;
      const double segments = std::min(words, kPlanSegmentsPerChip * slices * chips + 4.0 * words / p.chunk_words);
      e.parts.push_back({"resume planner", clamp(std::min(48.0 * chips * segments, coll::kPlanMemoryLimit))});
    }
  }
  return e;
}

uint64_t available_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024;
  return 0;
}

void check_memory(const MemoryEstimate& e, uint64_t limit) {
  const bool automatic = limit == 0;
  if (automatic) limit = available_memory_bytes();
  if (limit == 0 || e.total() <= limit) return;
  throw ConfigError("this run needs about " + e.describe() + ", more than " +
                    (automatic ? "the " + format_bytes(limit) + " this machine has available"
                               : "--mem-limit " + format_bytes(limit)) +
                    "; make the mesh, --vcs, --buf or the gradient smaller (or raise --mem-limit "
                    "if the estimate is wrong for this machine)");
}

}  // namespace fm
