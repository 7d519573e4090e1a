#include "models/collective/resume.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fm::coll {

namespace {

uint64_t mix(uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The number that stands for chip c's gradient.
uint64_t chip_number(ChipId c) { return mix(0x5eed0000ULL + c); }

// What a transfer of the new schedule does on one segment in the continuation.
constexpr uint32_t kDead = ~0u;      // its result is never read: not run
constexpr uint32_t kOrig = ~0u - 1;  // run as in the new schedule
constexpr uint32_t kSkip = ~0u - 2;  // its result is in the destination already
// Any other value: the chip whose buffer holds the result; one copy from there.

}  // namespace

ResumePlan plan_resume(const Schedule& old, const std::vector<Applied>& applied, const Schedule& next,
                       const std::function<int(ChipId, ChipId)>& distance) {
  AbortedRun a;
  a.schedule = &old;
  a.applied = applied;
  return plan_resume(std::vector<AbortedRun>{std::move(a)}, next, distance);
}

ResumePlan plan_resume(const std::vector<AbortedRun>& history, const Schedule& next,
                       const std::function<int(ChipId, ChipId)>& distance) {
  if (history.empty()) throw std::invalid_argument("plan_resume: no aborted run");
  for (const AbortedRun& h : history) {
    if (!h.schedule || h.applied.size() != h.schedule->xfers.size())
      throw std::invalid_argument("plan_resume: one Applied per old transfer expected");
    if (h.schedule->words != next.words)
      throw std::invalid_argument("plan_resume: the schedules cover different buffers");
    if (h.schedule->participant.size() != next.participant.size())
      throw std::invalid_argument("plan_resume: the schedules are for different machines");
    if (!h.from_inputs && (!h.restored || h.restored->size() != next.participant.size()))
      throw std::invalid_argument("plan_resume: a resumed run without its restored ranges");
  }
  if (!history.front().from_inputs)
    throw std::invalid_argument("plan_resume: the history must start from the inputs");
  ResumePlan p;
  const size_t N = next.participant.size();
  const uint32_t W = next.words;
  auto live = [&](size_t c) { return next.participant[c] != 0; };

  // Segments: the pieces of the buffer between every boundary of every transfer of both
  // schedules (offsets are the same at both ends, so one segmentation serves all chips).
  std::vector<uint32_t> B = {0, W};
  std::vector<const Schedule*> all = {&next};
  for (const AbortedRun& h : history) {
    all.push_back(h.schedule);
    if (!h.from_inputs)
      for (const auto& r : *h.restored)
        for (const auto& [o, n] : r) {
          B.push_back(o);
          B.push_back(o + n);
        }
  }
  for (const Schedule* s : all)
    for (const Xfer& x : s->xfers) {
      B.push_back(x.offset);
      B.push_back(x.offset + x.len);
    }
  std::sort(B.begin(), B.end());
  B.erase(std::unique(B.begin(), B.end()), B.end());
  const size_t m = B.size() - 1;
  {
    // The planner's memory: about 48 bytes per chip and segment, 17 per transfer-segment
    // of the new schedule. Past the limit a restart is the better use of the machine.
    size_t entries = 0;
    for (const Xfer& x : next.xfers)
      entries += (size_t)(std::lower_bound(B.begin(), B.end(), x.offset + x.len) -
                          std::lower_bound(B.begin(), B.end(), x.offset));
    const double need = 48.0 * (double)N * (double)m + 17.0 * (double)entries;
    if (need > kPlanMemoryLimit) {
      p.why = "the plan would need " + std::to_string((int)std::ceil(need / (1 << 20))) + " MiB, over its " +
              std::to_string((int)(kPlanMemoryLimit / (1 << 20))) + " MiB limit";
      return p;
    }
  }
  auto seg = [&](uint32_t w) { return (size_t)(std::lower_bound(B.begin(), B.end(), w) - B.begin()); };
  auto at = [&](size_t c, size_t s) { return c * m + s; };

  // The buffers as the aborted runs left them: each run's applied transfers in list
  // order (the order its dependencies make equivalent to any order it ran them in),
  // after the ranges restored before it. A transfer applied in part leaves its
  // destination's range unknown (dirty). dead_data: the segment holds a dead chip's data.
  std::vector<uint64_t> F(N * m);
  std::vector<uint8_t> dirty(N * m, 0), dead_data(N * m, 0);
  for (size_t c = 0; c < N; ++c)
    for (size_t s = 0; s < m; ++s) F[at(c, s)] = chip_number((ChipId)c), dead_data[at(c, s)] = !live(c);
  for (size_t k = 0; k < history.size(); ++k) {
    const AbortedRun& h = history[k];
    if (!h.from_inputs)
      for (size_t c = 0; c < N; ++c)
        for (const auto& [o, n] : (*h.restored)[c])
          for (size_t s = seg(o), e = seg(o + n); s < e; ++s)
            F[at(c, s)] = chip_number((ChipId)c), dirty[at(c, s)] = 0, dead_data[at(c, s)] = !live(c);
    const bool last = k + 1 == history.size();  // the words applied are the last run's
    for (size_t i = 0; i < h.schedule->xfers.size(); ++i) {
      if (h.applied[i] == Applied::None) continue;
      const Xfer& x = h.schedule->xfers[i];
      for (size_t s = seg(x.offset), e = seg(x.offset + x.len); s < e; ++s) {
        const size_t d = at(x.dst, s), r = at(x.src, s);
        if (h.applied[i] == Applied::Part) {
          dirty[d] = 1;
          continue;
        }
        if (x.reduce) F[d] += F[r], dirty[d] |= dirty[r], dead_data[d] |= dead_data[r];
        else F[d] = F[r], dirty[d] = dirty[r], dead_data[d] = dead_data[r];
        if (last && live(x.dst)) {
          p.old_applied_words += B[s + 1] - B[s];
          if (!dead_data[r]) p.old_clean_words += B[s + 1] - B[s];
        }
      }
    }
  }

  uint64_t live_sum = 0;  // what every live segment holds at the end
  for (size_t c = 0; c < N; ++c)
    if (live(c)) live_sum += chip_number((ChipId)c);

  // The new schedule from the inputs: what each of its writes leaves in each segment it
  // covers (entries eoff[x] .. eoff[x+1] of transfer x, one per segment).
  const size_t nx = next.xfers.size();
  std::vector<size_t> eoff(nx + 1, 0), sfirst(nx);
  for (size_t x = 0; x < nx; ++x) {
    const Xfer& xf = next.xfers[x];
    sfirst[x] = seg(xf.offset);
    eoff[x + 1] = eoff[x] + (seg(xf.offset + xf.len) - sfirst[x]);
  }
  const size_t entries = eoff[nx];
  std::vector<uint64_t> post(entries);
  {
    std::vector<uint64_t> E(N * m);
    for (size_t c = 0; c < N; ++c)
      for (size_t s = 0; s < m; ++s) E[at(c, s)] = chip_number((ChipId)c);
    for (size_t x = 0; x < nx; ++x) {
      const Xfer& xf = next.xfers[x];
      for (size_t e = eoff[x], s = sfirst[x]; e < eoff[x + 1]; ++e, ++s) {
        const size_t d = at(xf.dst, s);
        E[d] = xf.reduce ? E[d] + E[at(xf.src, s)] : E[at(xf.src, s)];
        post[e] = E[d];
      }
    }
    for (size_t c = 0; c < N; ++c)
      for (size_t s = 0; live(c) && s < m; ++s)
        if (E[at(c, s)] != live_sum) {
          p.why = "the new schedule does not end in the sum over its participants";
          return p;
        }
  }

  std::vector<char> banned(entries, 0), forced(N * m, 0), restored;
  std::vector<uint32_t> tr(entries);
  std::vector<uint64_t> cur;
  std::vector<uint8_t> cdirty;
  bool consistent = false;
  for (p.rounds = 1; p.rounds <= 64 && !consistent; ++p.rounds) {
    // 1. Where the new schedule's results already are: an index of the live buffers'
    // clean segments that the aborted run wrote, by (segment, contents).
    struct Held {
      uint64_t key;
      uint32_t s;
      ChipId c;
    };
    std::vector<Held> held;
    for (size_t c = 0; c < N; ++c)
      for (size_t s = 0; live(c) && s < m; ++s) {
        const size_t i = at(c, s);
        if (!dirty[i] && !forced[i] && F[i] != chip_number((ChipId)c))
          held.push_back({mix(F[i] ^ mix(s)), (uint32_t)s, (ChipId)c});
      }
    std::sort(held.begin(), held.end(), [](const Held& a, const Held& b) {
      return a.key != b.key ? a.key < b.key : a.c < b.c;
    });
    std::vector<uint32_t> cand(entries, kOrig);
    for (size_t x = 0; x < nx; ++x) {
      const ChipId d = next.xfers[x].dst;
      for (size_t e = eoff[x], s = sfirst[x]; e < eoff[x + 1]; ++e, ++s) {
        if (banned[e]) continue;
        const uint64_t key = mix(post[e] ^ mix(s));
        auto it = std::lower_bound(held.begin(), held.end(), key,
                                   [](const Held& h, uint64_t k) { return h.key < k; });
        int best = -1;
        for (; it != held.end() && it->key == key; ++it) {
          if (it->s != s || F[at(it->c, s)] != post[e]) continue;
          if (it->c == d) {
            cand[e] = kSkip;
            break;
          }
          const int dist = distance ? distance(it->c, d) : 0;
          if (best < 0 || dist < best) best = dist, cand[e] = it->c;
        }
      }
    }
    // 2. Backward liveness: a write whose result nothing reads is dead; a result fetched
    // from another chip or already in place makes what came before it dead.
    {
      std::vector<char> L(N * m, 0);
      for (size_t c = 0; c < N; ++c)
        for (size_t s = 0; live(c) && s < m; ++s) L[at(c, s)] = 1;
      for (size_t x = nx; x-- > 0;) {
        const Xfer& xf = next.xfers[x];
        for (size_t e = eoff[x], s = sfirst[x]; e < eoff[x + 1]; ++e, ++s) {
          const size_t d = at(xf.dst, s);
          if (!L[d]) {
            tr[e] = kDead;
          } else if (cand[e] != kOrig) {
            // In place already (skip) or fetched by one copy: what was written into the
            // destination before is not needed. What the result is taken from is the
            // holder's *initial* contents here, so it marks nothing live: a write into
            // the holder before this point breaks the plan (pass 3 bans it).
            tr[e] = cand[e];
            L[d] = 0;
          } else {
            tr[e] = kOrig;
            if (!xf.reduce) L[d] = 0;
            L[at(xf.src, s)] = 1;
          }
        }
      }
    }
    // 3. Forward, as the continuation runs: every read must find what the new schedule
    // would have there. A segment first read at its initial value is restored; a result
    // that is no longer where it was found is banned, a segment read at its initial value
    // after its old contents were used is restored from the start next round.
    cur.assign(F.begin(), F.end());
    cdirty.assign(dirty.begin(), dirty.end());
    restored.assign(N * m, 0);
    std::vector<uint64_t> expv(N * m);
    std::vector<char> read(N * m, 0), written(N * m, 0);
    for (size_t c = 0; c < N; ++c)
      for (size_t s = 0; s < m; ++s) {
        const size_t i = at(c, s);
        expv[i] = chip_number((ChipId)c);
        if (forced[i]) cur[i] = expv[i], cdirty[i] = 0, restored[i] = 1;
      }
    auto need = [&](size_t c, size_t i, uint64_t want) {
      if (!cdirty[i] && cur[i] == want) {
        if (!written[i]) read[i] = 1;
        return true;
      }
      if (!written[i] && !read[i] && want == chip_number((ChipId)c)) {
        cur[i] = want, cdirty[i] = 0, restored[i] = 1, read[i] = 1;
        return true;
      }
      return false;
    };
    size_t changes = 0;
    bool stuck = false;
    for (size_t x = 0; x < nx; ++x) {
      const Xfer& xf = next.xfers[x];
      for (size_t e = eoff[x], s = sfirst[x]; e < eoff[x + 1]; ++e, ++s) {
        const size_t d = at(xf.dst, s), r = at(xf.src, s);
        const uint32_t t = tr[e];
        if (t == kSkip) {
          if (!need(xf.dst, d, post[e])) banned[e] = 1, ++changes;
        } else if (t == kOrig) {
          // A segment restored from the start already and still not what is read, with
          // nothing gone wrong before it in this pass: no later round can fix it
          // (stuck: restart instead). After an earlier failure it may be a consequence.
          if (!need(xf.src, r, expv[r])) stuck |= forced[r] && !changes, forced[r] = 1, ++changes;
          if (xf.reduce && !need(xf.dst, d, expv[d])) stuck |= forced[d] && !changes, forced[d] = 1, ++changes;
          cur[d] = xf.reduce ? cur[d] + cur[r] : cur[r];
          cdirty[d] = xf.reduce ? (cdirty[d] | cdirty[r]) : cdirty[r];
          written[d] = 1;
        } else if (t != kDead) {
          if (need(t, at(t, s), post[e])) {
            cur[d] = post[e], cdirty[d] = 0;
            written[d] = 1;
          } else {
            banned[e] = 1, ++changes;
          }
        }
        expv[d] = post[e];
      }
    }
    if (stuck) {
      p.why = "a segment read at its initial value after its old contents were used";
      return p;
    }
    consistent = changes == 0;
  }
  if (!consistent) {
    p.why = "no consistent plan in 64 rounds";
    return p;
  }
  --p.rounds;
  // The check: run from the resumed buffers, the continuation (pass 3 above, which ran
  // exactly the transfers emitted below on exactly those buffers) leaves the sum over the
  // live chips everywhere.
  for (size_t c = 0; c < N; ++c)
    for (size_t s = 0; live(c) && s < m; ++s)
      if (cdirty[at(c, s)] || cur[at(c, s)] != live_sum) {
        p.why = "the continuation does not end in the sum over the live chips";
        return p;
      }

  // The continuation: the new schedule's transfers in their order, each cut to its runs
  // of segments that run as they are or come by copy from where the result is.
  ScheduleBuilder b((int)N, W);
  for (size_t c = 0; c < N; ++c) b.set_participant((ChipId)c, live(c));
  for (const Phase& ph : next.phases) b.phase(ph);
  for (const Xfer& x : next.xfers) p.next_words += x.len;
  for (size_t x = 0; x < nx; ++x) {
    const Xfer& xf = next.xfers[x];
    size_t e = eoff[x], s = sfirst[x];
    // A segment's transfer as (source, reduce), or none; runs of equal ones are one
    // transfer (a copy from the transfer's own source is the transfer itself).
    auto what = [&](size_t e) -> std::pair<uint64_t, bool> {
      const uint32_t t = tr[e];
      if (t == kDead || t == kSkip) return {~0ULL, false};
      if (t == kOrig) return {xf.src, xf.reduce != 0};
      return {t, false};
    };
    while (e < eoff[x + 1]) {
      const auto w = what(e);
      size_t e1 = e + 1;
      while (e1 < eoff[x + 1] && what(e1) == w) ++e1;
      const uint32_t o = B[s], len = B[s + (e1 - e)] - o;
      if (w.first != ~0ULL) {
        b.add((ChipId)w.first, xf.dst, o, len, w.second, xf.phase);
        p.run_words += len;
        for (size_t k = e; k < e1; ++k)
          if (tr[k] != kOrig) p.copy_words += B[s + (k - e) + 1] - B[s + (k - e)];
      }
      s += e1 - e;
      e = e1;
    }
  }
  p.schedule = b.finish();
  p.restore.resize(N);
  for (size_t c = 0; c < N; ++c) {
    if (!live(c)) continue;
    auto& r = p.restore[c];
    for (size_t s = 0; s < m; ++s) {
      if (!restored[at(c, s)]) continue;
      if (!r.empty() && r.back().first + r.back().second == B[s]) r.back().second += B[s + 1] - B[s];
      else r.push_back({B[s], B[s + 1] - B[s]});
      p.restore_words += B[s + 1] - B[s];
    }
    p.restore_chips += !r.empty();
  }
  p.ok = true;
  return p;
}

}  // namespace fm::coll
