#include "tb/traffic_pattern.h"

#include <algorithm>

namespace fm {

TrafficPattern::TrafficPattern(const NetworkConfig& n, const TrafficConfig& t, const FaultSet& f)
    : topo_(n), t_(t), f_(f) {
  while ((1 << bits_) < topo_.chips()) ++bits_;
  for (int c = 0; c < topo_.chips(); ++c) if (!f.chip_dead(c)) live_.push_back(c);
  auto dead = [&](const char* opt, const Coord& c) {
    if (f.chip_dead(topo_.id(c.x, c.y)))
      throw ConfigError(std::string(opt) + " " + std::to_string(c.x) + "," + std::to_string(c.y) +
                        ": that chip has failed");
  };
  for (const Coord& h : t.hotspots) {
    dead("--hotspot", h);
    hot_.push_back(topo_.id(h.x, h.y));
  }
  for (const Coord& s : t.sources) dead("--source", s);
}

// Uniform over the live chips other than src (src is live).
ChipId TrafficPattern::uniform_other(ChipId src, Rng& rng) const {
  const size_t k = rng.below(live_.size() - 1);
  const size_t i = std::lower_bound(live_.begin(), live_.end(), src) - live_.begin();
  return live_[k >= i ? k + 1 : k];
}

long TrafficPattern::permutation(ChipId s) const {
  const int W = topo_.width(), H = topo_.height();
  const int x = topo_.x(s), y = topo_.y(s);
  long d = -1;
  switch (t_.pattern) {
    case Pattern::Transpose: d = topo_.id(y, x); break;
    case Pattern::BitComplement: d = topo_.id(W - 1 - x, H - 1 - y); break;
    case Pattern::BitReverse: {
      ChipId r = 0;
      for (int b = 0; b < bits_; ++b) if (s & (1u << b)) r |= 1u << (bits_ - 1 - b);
      d = r;
      break;
    }
    case Pattern::Shuffle:
      d = ((s << 1) | (s >> (bits_ - 1))) & ((1u << bits_) - 1);
      break;
    case Pattern::Tornado:
      d = topo_.id((x + (W + 1) / 2 - 1) % W, (y + (H + 1) / 2 - 1) % H);
      break;
    case Pattern::Neighbour: d = topo_.id((x + 1) % W, (y + 1) % H); break;
    default: return -1;
  }
  return d == (long)s || f_.chip_dead((ChipId)d) ? -1 : d;
}

bool TrafficPattern::sends(ChipId src) const {
  if (f_.chip_dead(src)) return false;
  if (!t_.sources.empty()) {
    bool listed = false;
    for (const Coord& c : t_.sources) listed |= topo_.id(c.x, c.y) == src;
    if (!listed) return false;
  }
  switch (t_.pattern) {
    case Pattern::Uniform:
    case Pattern::Hotspot: return live_.size() > 1;
    default: return permutation(src) >= 0;
  }
}

long TrafficPattern::dest(ChipId src, Rng& rng) const {
  switch (t_.pattern) {
    case Pattern::Uniform: return uniform_other(src, rng);
    case Pattern::Hotspot: {
      // A hotspot is drawn with probability hotspot_fraction, never the sender itself;
      // a sender that is the only hotspot sends uniformly instead.
      const double u = rng.uniform();
      if (u < t_.hotspot_fraction) {
        size_t others = 0;
        for (ChipId h : hot_) others += h != src;
        if (others) {
          uint64_t k = rng.below(others);
          for (ChipId h : hot_) {
            if (h == src) continue;
            if (k-- == 0) return h;
          }
        }
      }
      return uniform_other(src, rng);
    }
    default: return permutation(src);
  }
}

TrafficSource::TrafficSource(const TrafficPattern& pattern, const TrafficConfig& t, ChipId src,
                             uint64_t seed)
    : pattern_(pattern),
      src_(src),
      size_min_(t.packet_min),
      size_max_(t.packet_max),
      p_(t.rate / (0.5 * (t.packet_min + t.packet_max))),
      rng_(seed ^ (0x9e3779b97f4a7c15ULL * (src + 1))) {
  if (p_ > 0 && pattern_.sends(src_)) {
    next_ = 0;
    advance(0);
    --next_;  // the first creation cycle is geometric - 1 (Bernoulli trials from cycle 0)
  }
}

void TrafficSource::advance(Cycle from) { next_ = from + rng_.geometric(p_); }

void TrafficSource::pop(ChipId* dst, int* size) {
  const long d = pattern_.dest(src_, rng_);
  *dst = (ChipId)d;
  *size = size_min_ == size_max_ ? size_min_
                                 : size_min_ + (int)rng_.below(size_max_ - size_min_ + 1);
  advance(next_);
}

}  // namespace fm
