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
//            do, since reduces do not wait for each other: dropping the copy would let
//            the second of copy, reduce, reduce into one range land before the copy,
//            which would then overwrite it. No algorithm's schedule has that pattern;
//            resume's continuations do (CollectiveDeps.EveryReduceAfterACopyWaitsForIt).
//   readers  the earlier transfers out of the segment a later write must wait for
//            (write-after-read). A copy clears them (it waited for them, and any later
//            write waits for the copy); a reduce does not, since a later reduce does not
//            wait for it.
// One chip's index lives at a time, so memory stays at the size of one chip's history
// plus the dependency lists; the cost is O(transfers x log(segments)) plus the
// dependencies found (the segments a transfer covers, times the transfers each holds).
#include "models/collective/schedule.h"

#include <algorithm>
#include <stdexcept>

namespace fm::coll {

ScheduleBuilder::ScheduleBuilder(int chips, uint32_t words, bool count_only) : count_only_(count_only) {
  s_.words = words;
  s_.participant.assign(chips, 0);
}

void ScheduleBuilder::set_participant(ChipId c, bool on) { s_.participant.at(c) = on ? 1 : 0; }

int ScheduleBuilder::phase(const Phase& p) {
  for (size_t i = 0; i < s_.phases.size(); ++i)
    if (s_.phases[i] == p) return (int)i;
  if (s_.phases.size() >= 255) throw std::logic_error("ScheduleBuilder: too many phases");
  s_.phases.push_back(p);
  return (int)s_.phases.size() - 1;
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

// Sorts [b, e) ascending: the lists here mostly hold one to a few entries, where an
// insertion sort beats std::sort's set-up.
void sort_small(uint32_t* b, uint32_t* e) {
  if (e - b > 16) {
    std::sort(b, e);
    return;
  }
  for (uint32_t* i = b + 1; i < e; ++i) {
    const uint32_t v = *i;
    uint32_t* j = i;
    for (; j > b && j[-1] > v; --j) *j = j[-1];
    *j = v;
  }
}

// Turns the (dependency << 32 | xfer) pairs into the dependency counts per transfer and
// the successor lists per dependency, each list ascending and without duplicates: a
// counting sort by dependency, then each (short) list sorted on its own. Linear where a
// sort of the pairs was not (11 % of a 32x32 allreduce's set-up); the pairs are freed.
void to_succ(size_t n, std::vector<uint64_t>& pairs, std::vector<uint32_t>* count,
             std::vector<uint32_t>* off, std::vector<uint32_t>* idx) {
  off->assign(n + 1, 0);
  for (const uint64_t p : pairs) ++(*off)[(p >> 32) + 1];
  for (size_t i = 0; i < n; ++i) (*off)[i + 1] += (*off)[i];
  idx->resize(pairs.size());
  {
    std::vector<uint32_t> fill(off->begin(), off->end() - 1);
    for (const uint64_t p : pairs) (*idx)[fill[p >> 32]++] = (uint32_t)p;
  }
  pairs.clear();
  pairs.shrink_to_fit();
  // Sort and deduplicate each list, compacting idx in place (lists only move down).
  count->assign(n, 0);
  uint32_t out = 0;
  for (size_t d = 0; d < n; ++d) {
    const uint32_t b = (*off)[d], e = (*off)[d + 1];
    uint32_t* l = idx->data() + b;
    sort_small(l, idx->data() + e);
    (*off)[d] = out;
    for (uint32_t k = b; k < e; ++k) {
      const uint32_t x = (*idx)[k];
      if (k > b && x == (*idx)[k - 1]) continue;
      (*idx)[out++] = x;
      ++(*count)[x];
    }
  }
  (*off)[n] = out;
  idx->resize(out);
  idx->shrink_to_fit();
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
  // One chip's buffer cut at every offset and end of its transfers: segment j is
  // [bounds[j], bounds[j + 1]). Cutting at all of them up front gives the dependencies
  // that cutting as they come does (a segment cut later had one history for both its
  // parts), in flat arrays whose lists keep their memory from chip to chip.
  std::vector<uint32_t> bounds, deps;
  std::vector<Seg> segs;
  for (size_t c = 0; c < chips; ++c) {
    if (off[c] == off[c + 1]) continue;
    bounds.clear();
    for (uint32_t k = off[c]; k < off[c + 1]; ++k) {
      const Xfer& x = s_.xfers[lst[k]];
      bounds.push_back(x.offset);
      bounds.push_back(x.offset + x.len);
    }
    std::sort(bounds.begin(), bounds.end());
    bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
    const size_t nseg = bounds.size() - 1;
    if (segs.size() < nseg) segs.resize(nseg);
    for (size_t j = 0; j < nseg; ++j) {
      segs[j].writers.clear();
      segs[j].readers.clear();
    }
    for (uint32_t k = off[c]; k < off[c + 1]; ++k) {
      const uint32_t i = lst[k];
      const Xfer& x = s_.xfers[i];
      const size_t lo = std::lower_bound(bounds.begin(), bounds.end(), x.offset) - bounds.begin();
      deps.clear();
      for (size_t j = lo; bounds[j] < x.offset + x.len; ++j) {
        Seg& g = segs[j];
        if (x.src == c) {  // a read of this chip's buffer
          deps.insert(deps.end(), g.writers.begin(), g.writers.end());
          g.readers.push_back(i);
        } else {  // a write into this chip's buffer
          deps.insert(deps.end(), g.readers.begin(), g.readers.end());
          for (uint32_t w : g.writers)
            if (!x.reduce || !s_.xfers[w].reduce) deps.push_back(w);
          if (!x.reduce) {
            g.writers.assign(1, i);
            g.readers.clear();
          } else {
            g.writers.push_back(i);
          }
        }
      }
      // Neighbouring segments mostly share their transfers: keep each dependency once.
      if (deps.size() > 1) {
        sort_small(deps.data(), deps.data() + deps.size());
        deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
      }
      std::vector<uint64_t>& to = x.src == c ? send : apply;
      for (uint32_t d : deps) to.push_back((uint64_t)d << 32 | i);
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

namespace {

struct Fnv1a {
  uint64_t h = 0xcbf29ce484222325ull;
  void byte(uint8_t b) { h = (h ^ b) * 0x100000001b3ull; }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) byte((uint8_t)(v >> (8 * i)));
  }
  void list(const std::vector<uint32_t>& v) {
    u32((uint32_t)v.size());
    for (uint32_t x : v) u32(x);
  }
};

}  // namespace

uint64_t fingerprint(const Schedule& s) {
  Fnv1a f;
  f.u32(s.words);
  f.u32((uint32_t)s.participant.size());
  for (char p : s.participant) f.byte(p != 0);
  // Phases by their display names, as the fingerprints in the run store were made.
  f.u32((uint32_t)s.phases.size());
  for (const Phase& p : s.phases) {
    const std::string n = phase_name(p);
    f.u32((uint32_t)n.size());
    for (char c : n) f.byte((uint8_t)c);
  }
  f.u32((uint32_t)s.xfers.size());
  for (const Xfer& x : s.xfers) {
    f.u32((uint32_t)x.src);
    f.u32((uint32_t)x.dst);
    f.u32(x.offset);
    f.u32(x.len);
    f.byte(x.reduce);
    f.byte(x.phase);
  }
  for (const auto* v : {&s.send_deps, &s.apply_deps, &s.send_succ_off, &s.send_succ_idx, &s.apply_succ_off,
                        &s.apply_succ_idx})
    f.list(*v);
  return f.h;
}

uint64_t initial_word(ChipId c, uint32_t i) {
  // splitmix64 finaliser of (c, i): cheap, well mixed, identical on every platform.
  uint64_t z = ((uint64_t)c << 32 | i) + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace fm::coll
