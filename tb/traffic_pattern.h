// Synthetic traffic: destination patterns (BookSim's names) and a Bernoulli packet
// source per node. docs/traffic.md defines each pattern.
#pragma once
#include "models/config.h"
#include "models/noc/fault_set.h"
#include "models/noc/ni.h"
#include "models/noc/topology.h"
#include "tb/rng.h"

namespace fm {

class TrafficPattern {
 public:
  // Dead chips (fault set) neither send nor receive; throws ConfigError when a hotspot
  // or a --source names a dead chip.
  TrafficPattern(const NetworkConfig& n, const TrafficConfig& t, const FaultSet& f);
  // Destination of the next packet from src, or -1 when src sends nothing under this
  // pattern (a permutation that maps src to itself).
  long dest(ChipId src, Rng& rng) const;
  // False when the pattern never gives src a destination other than itself.
  bool sends(ChipId src) const;

 private:
  long permutation(ChipId src) const;  // deterministic patterns
  ChipId uniform_other(ChipId src, Rng& rng) const;
  Topology2D topo_;
  TrafficConfig t_;
  const FaultSet& f_;
  std::vector<ChipId> live_;  // live chips in id order
  int bits_ = 0;  // log2(chips) for the bit permutations
  std::vector<ChipId> hot_;
};

// Bernoulli injection at `rate` flits/node/cycle: a packet is created in a cycle with
// probability rate / mean packet size. The gap to the next packet is drawn once
// (geometric), which is the same process and lets the NI sleep in between.
class TrafficSource : public PacketSource {
 public:
  TrafficSource(const TrafficPattern& pattern, const TrafficConfig& t, ChipId src, uint64_t seed);
  Cycle next_time() const override { return next_; }
  void pop(ChipId* dst, int* size) override;

 private:
  void advance(Cycle from);
  const TrafficPattern& pattern_;
  ChipId src_;
  int size_min_, size_max_;
  double p_;  // packet creation probability per cycle
  Rng rng_;
  Cycle next_ = kNever;
};

}  // namespace fm
