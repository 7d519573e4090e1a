#include "models/collective/reference.h"

#include <random>
#include <stdexcept>
#include <vector>

namespace fm::coll {

std::string execute_reference(const Schedule& s, uint64_t seed) {
  const size_t chips = s.participant.size(), n = s.xfers.size();
  std::vector<std::vector<uint64_t>> buf(chips);
  for (size_t c = 0; c < chips; ++c) {
    if (!s.participant[c]) continue;
    buf[c].resize(s.words);
    for (uint32_t i = 0; i < s.words; ++i) buf[c][i] = initial_word((ChipId)c, i);
  }
  for (size_t i = 0; i < n; ++i) {
    const Xfer& x = s.xfers[i];
    if (!s.participant[x.src] || !s.participant[x.dst])
      return "transfer " + std::to_string(i) + " involves a chip that does not participate";
  }
  auto apply_data = [&](const Xfer& x, const uint64_t* data) {
    uint64_t* d = buf[x.dst].data() + x.offset;
    if (x.reduce)
      for (uint32_t k = 0; k < x.len; ++k) d[k] += data[k];
    else
      for (uint32_t k = 0; k < x.len; ++k) d[k] = data[k];
  };
  if (seed == 0) {
    std::vector<uint64_t> tmp;
    for (const Xfer& x : s.xfers) {
      tmp.assign(buf[x.src].begin() + x.offset, buf[x.src].begin() + x.offset + x.len);
      apply_data(x, tmp.data());
    }
  } else {
    // Events: 2i = send of transfer i, 2i+1 = apply of transfer i. waits[e] counts the
    // events e still waits for; after[e'] lists the events waiting for e'.
    std::vector<uint32_t> waits(2 * n, 0);
    std::vector<std::vector<uint32_t>> after(2 * n);
    auto need = [&](uint32_t e, uint32_t before) {
      ++waits[e];
      after[before].push_back(e);
    };
    DepLists sd, ad;
    try {
      sd = dependencies(s, true);
      ad = dependencies(s, false);
    } catch (const std::logic_error& e) {
      return e.what();
    }
    for (uint32_t i = 0; i < n; ++i) {
      for (uint32_t k = sd.off[i]; k < sd.off[i + 1]; ++k) {
        const uint32_t j = sd.idx[k];
        if (j >= i) return "send dep of transfer " + std::to_string(i) + " is not earlier";
        need(2 * i, 2 * j + 1);
      }
      need(2 * i + 1, 2 * i);
      for (uint32_t k = ad.off[i]; k < ad.off[i + 1]; ++k) {
        const uint32_t j = ad.idx[k];
        if (j >= i) return "apply dep of transfer " + std::to_string(i) + " is not earlier";
        // An earlier read of the destination is done when sent; a write when applied.
        need(2 * i + 1, s.xfers[j].src == s.xfers[i].dst ? 2 * j : 2 * j + 1);
      }
    }
    std::vector<uint32_t> ready;
    for (uint32_t e = 0; e < 2 * n; ++e)
      if (waits[e] == 0) ready.push_back(e);
    std::vector<std::vector<uint64_t>> snap(n);
    std::mt19937_64 rng(seed);
    size_t done = 0;
    while (!ready.empty()) {
      const size_t k = rng() % ready.size();
      const uint32_t e = ready[k];
      ready[k] = ready.back();
      ready.pop_back();
      const uint32_t i = e / 2;
      const Xfer& x = s.xfers[i];
      if (e % 2 == 0) {
        snap[i].assign(buf[x.src].begin() + x.offset, buf[x.src].begin() + x.offset + x.len);
      } else {
        apply_data(x, snap[i].data());
        snap[i].clear();
        snap[i].shrink_to_fit();
      }
      ++done;
      for (uint32_t f : after[e])
        if (--waits[f] == 0) ready.push_back(f);
    }
    if (done != 2 * n)
      return "dependencies deadlock: " + std::to_string(2 * n - done) + " of " +
             std::to_string(2 * n) + " events never became ready";
  }
  // The expected result: the elementwise sum over the participants.
  std::vector<uint64_t> sum(s.words, 0);
  for (size_t c = 0; c < chips; ++c)
    if (s.participant[c])
      for (uint32_t i = 0; i < s.words; ++i) sum[i] += initial_word((ChipId)c, i);
  for (size_t c = 0; c < chips; ++c) {
    if (!s.participant[c]) continue;
    for (uint32_t i = 0; i < s.words; ++i)
      if (buf[c][i] != sum[i])
        return "chip " + std::to_string(c) + " word " + std::to_string(i) +
               " is not the sum over the participants";
  }
  return "";
}

}  // namespace fm::coll
