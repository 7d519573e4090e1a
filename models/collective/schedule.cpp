// ScheduleBuilder: derives the send/apply dependencies of a transfer list from its
// sequential order (rules in schedule.h).
//
// Method. The dependencies of a transfer X only involve the history of one chip each:
// send deps the history of X.src, apply deps that of X.dst. So finish() walks the
// chips one at a time; for each it replays, in list order, the transfers that read from
// or write to it, keeping an interval index of its buffer: disjoint segments, each with
// the transfers that still matter for it:
//   writers  the earlier transfers into the segment a later reader must wait for. A copy
//            replaces them all (it was itself made to wait for them, so waiting for the
//            copy implies the rest); a reduce joins them. The copy stays: a second reduce
//            after it must wait for it too, and waiting for the first reduce would not
//            do, since reduces do not wait for each other. (Until 2026-12-03 a reduce
//            dropped the copy, so copy, reduce, reduce into one range let the second
//            reduce land before the copy, which then overwrote it. No algorithm's
//            schedule has that pattern; resume's continuations do.)
//   readers  the earlier transfers out of the segment a later write must wait for
//            (write-after-read). A copy clears them (it waited for them, and any later
//            write waits for the copy); a reduce does not, since a later reduce does not
//            wait for it.
// One chip's index lives at a time, so memory stays at the size of one chip's history
// plus the dependency lists; the cost is O(transfers x log(segments)) plus the
// dependencies found.
#include "models/collective/schedule.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace fm::coll {

ScheduleBuilder::ScheduleBuilder(int chips, uint32_t words, bool count_only) : count_only_(count_only) {
  s_.words = words;
  s_.participant.assign(chips, 0);
}

void ScheduleBuilder::set_participant(ChipId c, bool on) { s_.participant.at(c) = on ? 1 : 0; }

int ScheduleBuilder::phase(const std::string& name) {
  for (size_t i = 0; i < s_.phase_names.size(); ++i)
    if (s_.phase_names[i] == name) return (int)i;
  if (s_.phase_names.size() >= 255) throw std::logic_error("ScheduleBuilder: too many phases");
  s_.phase_names.push_back(name);
  return (int)s_.phase_names.size() - 1;
}

void ScheduleBuilder::add(ChipId src, ChipId dst, uint32_t offset, uint32_t len, bool reduce,
                          int phase) {
  if (len == 0) return;  // zero-length shards are skipped
  if (src == dst || src >= s_.participant.size() || dst >= s_.participant.size() ||
      (uint64_t)offset + len > s_.words)
    throw std::logic_error("ScheduleBuilder::add: bad transfer");
  ++added_;
  if (count_only_) return;
  Xfer x;
  x.src = src;
  x.dst = dst;
  x.offset = offset;
  x.len = len;
  x.reduce = reduce ? 1 : 0;
  x.phase = (uint8_t)phase;
  s_.xfers.push_back(x);
}

namespace {

struct Seg {
  std::vector<uint32_t> writers, readers;
};
using SegMap = std::map<uint32_t, Seg>;  // segment start -> state; ends at the next start

// Makes p a segment boundary (p < words).
void split_at(SegMap& m, uint32_t p) {
  auto it = m.upper_bound(p);
  --it;
  if (it->first != p) m.emplace_hint(std::next(it), p, it->second);
}

// Turns the (dependency << 32 | xfer) pairs into the dependency counts per transfer and
// the successor lists per dependency, each list ascending and without duplicates.
void to_succ(size_t n, std::vector<uint64_t>& pairs, std::vector<uint32_t>* count,
             std::vector<uint32_t>* off, std::vector<uint32_t>* idx) {
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  count->assign(n, 0);
  off->assign(n + 1, 0);
  idx->resize(pairs.size());
  for (size_t k = 0; k < pairs.size(); ++k) {
    const uint32_t dep = (uint32_t)(pairs[k] >> 32), x = (uint32_t)pairs[k];
    ++(*off)[dep + 1];
    ++(*count)[x];
    (*idx)[k] = x;
  }
  for (size_t i = 0; i < n; ++i) (*off)[i + 1] += (*off)[i];
  pairs.clear();
  pairs.shrink_to_fit();
}

}  // namespace

Schedule ScheduleBuilder::finish() {
  if (count_only_) throw std::logic_error("ScheduleBuilder::finish: a counting builder holds no transfers");
  const size_t n = s_.xfers.size();
  const size_t chips = s_.participant.size();
  // Per chip, the transfers touching it, in list order (counting sort).
  std::vector<uint32_t> off(chips + 1, 0), lst(2 * n);
  for (const Xfer& x : s_.xfers) {
    ++off[x.src + 1];
    ++off[x.dst + 1];
  }
  for (size_t c = 0; c < chips; ++c) off[c + 1] += off[c];
  {
    std::vector<uint32_t> fill(off.begin(), off.end() - 1);
    for (uint32_t i = 0; i < n; ++i) {
      lst[fill[s_.xfers[i].src]++] = i;
      lst[fill[s_.xfers[i].dst]++] = i;
    }
  }
  std::vector<uint64_t> send, apply;  // dependency << 32 | transfer
  send.reserve(n);
  apply.reserve(n);
  for (size_t c = 0; c < chips; ++c) {
    if (off[c] == off[c + 1]) continue;
    SegMap m;
    m.emplace(0, Seg{});
    for (uint32_t k = off[c]; k < off[c + 1]; ++k) {
      const uint32_t i = lst[k];
      const Xfer& x = s_.xfers[i];
      const uint32_t a = x.offset, b = x.offset + x.len;
      split_at(m, a);
      if (b < s_.words) split_at(m, b);
      auto end = b < s_.words ? m.find(b) : m.end();
      for (auto it = m.find(a); it != end; ++it) {
        Seg& g = it->second;
        if (x.src == c) {  // a read of this chip's buffer
          for (uint32_t w : g.writers) send.push_back((uint64_t)w << 32 | i);
          g.readers.push_back(i);
        } else {  // a write into this chip's buffer
          for (uint32_t r : g.readers) apply.push_back((uint64_t)r << 32 | i);
          for (uint32_t w : g.writers)
            if (!x.reduce || !s_.xfers[w].reduce) apply.push_back((uint64_t)w << 32 | i);
          if (!x.reduce) {
            g.writers.assign(1, i);
            g.readers.clear();
          } else {
            g.writers.push_back(i);
          }
        }
      }
    }
  }
  to_succ(n, send, &s_.send_deps, &s_.send_succ_off, &s_.send_succ_idx);
  to_succ(n, apply, &s_.apply_deps, &s_.apply_succ_off, &s_.apply_succ_idx);
  return std::move(s_);
}

DepLists dependencies(const Schedule& s, bool send) {
  const std::vector<uint32_t>& cnt = send ? s.send_deps : s.apply_deps;
  const std::vector<uint32_t>& soff = send ? s.send_succ_off : s.apply_succ_off;
  const std::vector<uint32_t>& sidx = send ? s.send_succ_idx : s.apply_succ_idx;
  const size_t n = s.xfers.size();
  if (cnt.size() != n || soff.size() != n + 1 || soff.back() != sidx.size())
    throw std::logic_error("schedule: dependency lists of the wrong size");
  DepLists d;
  d.off.assign(n + 1, 0);
  for (size_t i = 0; i < n; ++i) d.off[i + 1] = d.off[i] + cnt[i];
  d.idx.assign(d.off[n], 0);
  std::vector<uint32_t> fill(d.off.begin(), d.off.end() - 1);
  // Dependencies in ascending order, so every list comes out ascending.
  for (uint32_t j = 0; j + 1 < soff.size(); ++j)
    for (uint32_t k = soff[j]; k < soff[j + 1]; ++k) {
      const uint32_t x = sidx[k];
      if (x >= n || fill[x] == d.off[x + 1])
        throw std::logic_error("schedule: successor lists disagree with the dependency counts");
      d.idx[fill[x]++] = j;
    }
  for (size_t i = 0; i < n; ++i)
    if (fill[i] != d.off[i + 1])
      throw std::logic_error("schedule: successor lists disagree with the dependency counts");
  return d;
}

uint64_t initial_word(ChipId c, uint32_t i) {
  // splitmix64 finaliser of (c, i): cheap, well mixed, identical on every platform.
  uint64_t z = ((uint64_t)c << 32 | i) + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace fm::coll
