// Deterministic per-node random numbers (xoshiro256**, seeded through splitmix64).
// Each traffic source owns one, seeded from (run seed, node id), so results do not
// depend on the order in which SystemC runs processes.
#pragma once
#include <cmath>
#include <cstdint>

namespace fm {

inline uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

class Rng {
 public:
  explicit Rng(uint64_t seed = 1) { reseed(seed); }
  void reseed(uint64_t seed) {
    uint64_t x = seed;
    for (auto& w : s_) w = splitmix64(x);
  }
  uint64_t next() {
    const uint64_t r = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return r;
  }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return (next() >> 11) * (1.0 / 9007199254740992.0); }
  // Uniform integer in [0, n), n > 0 (Lemire's multiply-shift, bias < 2^-64 * n).
  uint64_t below(uint64_t n) { return (uint64_t)(((__uint128_t)next() * n) >> 64); }
  // Number of Bernoulli(p) trials up to and including the first success (>= 1).
  // Drawing the gap once is equivalent to one Bernoulli draw per cycle.
  uint64_t geometric(double p) {
    if (p >= 1.0) return 1;
    const double u = 1.0 - uniform();  // (0, 1]
    return 1 + (uint64_t)std::floor(std::log(u) / std::log1p(-p));
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace fm
