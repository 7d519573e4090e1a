// Up-front memory estimates (docs/errors.md, "Resource limits"): a run that would need
// more memory than the machine has is refused before anything is allocated, with the
// estimate and what it is made of, instead of being killed by the kernel hours in.
// The per-item costs are measured peak RSS of this simulator (docs/errors.md gives the
// measurements); the estimate is meant to be within about a factor 1.5 either way.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/config.h"
#include "models/noc/fault_set.h"

namespace fm {

// What a run is estimated to hold, part by part (name, bytes).
struct MemoryEstimate {
  std::vector<std::pair<std::string, uint64_t>> parts;
  uint64_t total() const;
  std::string describe() const;  // "3.1 GiB (router buffers 2.9 GiB, route tables ...)"
};

// The network of `n`: router buffers and state, links, network interfaces, the route
// tables (every router holds an entry per chip) and the program's fixed part.
MemoryEstimate estimate_network_memory(const NetworkConfig& n, const KernelOptions& k = {});
// Adds an allreduce's schedule (`transfers` entries, counted once it is compiled) and,
// when verifying, every chip's data words (and its input copy).
void add_collective_memory(const Config& c, uint64_t transfers, bool verify, MemoryEstimate* e);
// The whole of an allreduce of `c` on the fault set `f` (of c.net): the network, the
// schedule with its transfers counted but not built (coll::count_transfers) and, when
// `verify`, the data. Cheap (no route table, schedule or network is built), so a run is
// refused before it allocates anything. Throws ConfigError as building the schedule
// would (e.g. 2d with holes).
MemoryEstimate estimate_allreduce_memory(const Config& c, const FaultSet& f, bool verify);

// Memory the machine can give this process now (MemAvailable of /proc/meminfo), 0 when
// unknown (then nothing is refused).
uint64_t available_memory_bytes();
// Throws ConfigError when the estimate exceeds `limit` bytes (RunConfig::mem_limit; 0 =
// available_memory_bytes()), naming the estimate, its parts and the limit.
void check_memory(const MemoryEstimate& e, uint64_t limit);

std::string format_bytes(uint64_t b);  // "1.5 GiB", "312 MiB", "12 KiB"

}  // namespace fm
