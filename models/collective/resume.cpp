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
                       const std::function<int(ChipId, ChipId)>& distance, double memory) {
  AbortedRun a;
  a.schedule = &old;
  a.applied = applied;
  return plan_resume(std::vector<AbortedRun>{std::move(a)}, next, distance, memory);
}

namespace {

// The planner's passes over one history and new schedule. The buffer is cut into
// segments (B[s], B[s+1]). Every pass treats each segment on its own (a transfer acts
// on a segment with what its two ends hold in that segment, nothing else), so the
// planner works through the segments in strips of consecutive ones, each strip with
// per-chip arrays at(c, s - s0) over its own segments and per-write arrays over the
// entries (transfer, segment) of the new schedule's transfers that reach into it, and
// memory stays within kPlanMemoryLimit whatever the buffer's size. What a strip
// decides (the runs of each transfer that the continuation runs or fetches, the
// restored ranges) is appended in buffer order; runs of one transfer that meet at a
// strip's edge join, so the continuation does not depend on where the strips end.
class Planner {
 public:
  Planner(const std::vector<AbortedRun>& history, const Schedule& next,
          const std::function<int(ChipId, ChipId)>& distance, double memory)
      : history_(history), next_(next), distance_(distance), N(next.participant.size()), W(next.words),
        memory_(memory) {}

  ResumePlan run() {
    check_inputs();
    segment();
    for (size_t c = 0; c < N; ++c)
      if (live(c)) live_sum_ += chip_number((ChipId)c);
    p_.restore.resize(N);
    int rounds = 0;
    for (size_t s0 = 0; s0 < m;) {
      const size_t s1 = strip_end(s0);
      if (!plan_strip(s0, s1)) return p_;
      rounds = std::max(rounds, p_.rounds);
      s0 = s1;
    }
    p_.rounds = rounds;
    emit_continuation();
    p_.ok = true;
    return p_;
  }

 private:
  // One strip of segments [s0, s1): the aborted runs' buffers, the new schedule from the
  // inputs, the planning rounds and the check; false (why set) when it has no plan.
  bool plan_strip(size_t s0, size_t s1) {
    s0_ = s0;
    ms_ = s1 - s0;
    replay_aborted();
    if (!run_next()) return false;
    if (!plan_rounds()) return false;
    // The check: run from the resumed buffers, the continuation (pass 3, which ran
    // exactly the transfers kept below on exactly those buffers) leaves the sum over
    // the live chips everywhere.
    for (size_t c = 0; c < N; ++c)
      for (size_t s = 0; live(c) && s < ms_; ++s)
        if (cdirty_[at(c, s)] || cur_[at(c, s)] != live_sum_) {
          p_.why = "the continuation does not end in the sum over the live chips";
          return false;
        }
    keep_runs();
    restore_ranges();
    return true;
  }

  const std::vector<AbortedRun>& history_;
  const Schedule& next_;
  const std::function<int(ChipId, ChipId)>& distance_;
  const size_t N;
  const uint32_t W;
  const double memory_;  // bytes a strip may take
  ResumePlan p_;
  std::vector<uint32_t> B;  // segment boundaries
  size_t m = 0;             // segments
  // Per segment, the new schedule's transfers covering it (the strips' sizes).
  std::vector<uint32_t> cover_;
  // The strip: its first segment and its length; per-chip arrays are at(c, s) with s
  // counted from s0_.
  size_t s0_ = 0, ms_ = 0;
  // The buffers as the aborted runs left them: contents, unknown (dirty), holding a dead
  // chip's data.
  std::vector<uint64_t> F_;
  std::vector<uint8_t> dirty_, dead_data_;
  uint64_t live_sum_ = 0;  // what every live segment holds at the end
  // The new schedule from the inputs, over the strip: the transfers reaching into it
  // (xs_, in list order), per such transfer its first segment in the strip (global
  // index) and its entries eoff_[k] .. eoff_[k+1], per entry what the write leaves there.
  std::vector<uint32_t> xs_;
  std::vector<size_t> eoff_, sfirst_;
  size_t entries_ = 0;
  std::vector<uint64_t> post_;
  // The planning rounds' state: per entry whether using a held result is banned, what
  // the continuation does (tr_); per chip segment whether it must be restored from the
  // start (forced_) and, after the last pass 3, restored_, cur_, cdirty_.
  std::vector<char> banned_, forced_, restored_;
  std::vector<uint32_t> tr_;
  std::vector<uint64_t> cur_;
  std::vector<uint8_t> cdirty_;
  // What the strips decided: per transfer of the new schedule, its runs that the
  // continuation runs (from its source or, as a copy, from the chip holding the result),
  // in strip order.
  struct Run {
    uint32_t x, offset, len, src;
    uint8_t reduce;
  };
  std::vector<Run> runs_;

  bool live(size_t c) const { return next_.participant[c] != 0; }
  size_t seg(uint32_t w) const { return (size_t)(std::lower_bound(B.begin(), B.end(), w) - B.begin()); }
  size_t at(size_t c, size_t s) const { return c * ms_ + s; }
  // A transfer's segments [*a, *b) inside the strip (global indices); false if none.
  bool clip(const Xfer& x, size_t* a, size_t* b) const {
    *a = std::max(seg(x.offset), s0_);
    *b = std::min(seg(x.offset + x.len), s0_ + ms_);
    return *a < *b;
  }

  void check_inputs() const {
    if (history_.empty()) throw std::invalid_argument("plan_resume: no aborted run");
    for (const AbortedRun& h : history_) {
      if (!h.schedule || h.applied.size() != h.schedule->xfers.size())
        throw std::invalid_argument("plan_resume: one Applied per old transfer expected");
      if (h.schedule->words != next_.words)
        throw std::invalid_argument("plan_resume: the schedules cover different buffers");
      if (h.schedule->participant.size() != next_.participant.size())
        throw std::invalid_argument("plan_resume: the schedules are for different machines");
      if (!h.from_inputs && (!h.restored || h.restored->size() != next_.participant.size()))
        throw std::invalid_argument("plan_resume: a resumed run without its restored ranges");
    }
    if (!history_.front().from_inputs)
      throw std::invalid_argument("plan_resume: the history must start from the inputs");
  }

  // Segments: the pieces of the buffer between every boundary of every transfer of all
  // the schedules (offsets are the same at both ends, so one segmentation serves all
  // chips) and of every restored range.
  void segment() {
    B = {0, W};
    std::vector<const Schedule*> all = {&next_};
    for (const AbortedRun& h : history_) {
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
    m = B.size() - 1;
    cover_.assign(m + 1, 0);
    for (const Xfer& x : next_.xfers) {
      const size_t a = seg(x.offset), b = seg(x.offset + x.len);
      ++cover_[a];
      --cover_[b];
      p_.next_words += x.len;
    }
    for (size_t s = 0; s < m; ++s) cover_[s + 1] += cover_[s];
  }

  // The strip starting at segment s0: as many segments as fit in the planner's memory,
  // about 48 bytes per chip and segment and 17 per entry (at least one segment). A plan
  // within the bound is one strip.
  size_t strip_end(size_t s0) const {
    double need = 0;
    size_t s = s0;
    while (s < m) {
      need += 48.0 * (double)N + 17.0 * cover_[s];
      if (s > s0 && need > memory_) break;
      ++s;
    }
    return s;
  }

  // The buffers as the aborted runs left them: each run's applied transfers in list
  // order (the order its dependencies make equivalent to any order it ran them in),
  // after the ranges restored before it. A transfer applied in part leaves its
  // destination's range unknown (dirty).
  void replay_aborted() {
    F_.assign(N * ms_, 0);
    dirty_.assign(N * ms_, 0);
    dead_data_.assign(N * ms_, 0);
    for (size_t c = 0; c < N; ++c)
      for (size_t s = 0; s < ms_; ++s) F_[at(c, s)] = chip_number((ChipId)c), dead_data_[at(c, s)] = !live(c);
    const size_t s1 = s0_ + ms_;
    for (size_t k = 0; k < history_.size(); ++k) {
      const AbortedRun& h = history_[k];
      if (!h.from_inputs)
        for (size_t c = 0; c < N; ++c)
          for (const auto& [o, n] : (*h.restored)[c])
            for (size_t s = std::max(seg(o), s0_), e = std::min(seg(o + n), s1); s < e; ++s)
              F_[at(c, s - s0_)] = chip_number((ChipId)c), dirty_[at(c, s - s0_)] = 0,
                          dead_data_[at(c, s - s0_)] = !live(c);
      for (size_t i = 0; i < h.schedule->xfers.size(); ++i) {
        if (h.applied[i] == Applied::None) continue;
        const Xfer& x = h.schedule->xfers[i];
        size_t sa, sb;
        if (!clip(x, &sa, &sb)) continue;
        for (size_t s = sa; s < sb; ++s) {
          const size_t d = at(x.dst, s - s0_), r = at(x.src, s - s0_);
          if (h.applied[i] == Applied::Part) {
            dirty_[d] = 1;
            continue;
          }
          if (x.reduce) F_[d] += F_[r], dirty_[d] |= dirty_[r], dead_data_[d] |= dead_data_[r];
          else F_[d] = F_[r], dirty_[d] = dirty_[r], dead_data_[d] = dead_data_[r];
          // Every aborted run's applied words count: a continuation can keep the work of
          // any of them (a second failure's resume keeps what the first resume kept).
          if (live(x.dst)) {
            p_.old_applied_words += B[s + 1] - B[s];
            if (!dead_data_[r]) p_.old_clean_words += B[s + 1] - B[s];
          }
        }
      }
    }
  }

  // The new schedule from the inputs: what each of its writes leaves in each segment of
  // the strip it covers. False (why set) when it does not end in the sum over its
  // participants.
  bool run_next() {
    xs_.clear();
    sfirst_.clear();
    eoff_.assign(1, 0);
    for (size_t x = 0; x < next_.xfers.size(); ++x) {
      size_t sa, sb;
      if (!clip(next_.xfers[x], &sa, &sb)) continue;
      xs_.push_back((uint32_t)x);
      sfirst_.push_back(sa);
      eoff_.push_back(eoff_.back() + (sb - sa));
    }
    entries_ = eoff_.back();
    post_.assign(entries_, 0);
    std::vector<uint64_t> E(N * ms_);
    for (size_t c = 0; c < N; ++c)
      for (size_t s = 0; s < ms_; ++s) E[at(c, s)] = chip_number((ChipId)c);
    for (size_t k = 0; k < xs_.size(); ++k) {
      const Xfer& xf = next_.xfers[xs_[k]];
      for (size_t e = eoff_[k], s = sfirst_[k] - s0_; e < eoff_[k + 1]; ++e, ++s) {
        const size_t d = at(xf.dst, s);
        E[d] = xf.reduce ? E[d] + E[at(xf.src, s)] : E[at(xf.src, s)];
        post_[e] = E[d];
      }
    }
    for (size_t c = 0; c < N; ++c)
      for (size_t s = 0; live(c) && s < ms_; ++s)
        if (E[at(c, s)] != live_sum_) {
          p_.why = "the new schedule does not end in the sum over its participants";
          return false;
        }
    return true;
  }

  // Rounds of the three passes until pass 3 changes nothing (at most 64). False (why
  // set) when no consistent plan exists.
  bool plan_rounds() {
    banned_.assign(entries_, 0);
    forced_.assign(N * ms_, 0);
    tr_.assign(entries_, 0);
    bool consistent = false;
    for (p_.rounds = 1; p_.rounds <= 64 && !consistent; ++p_.rounds) {
      const std::vector<uint32_t> cand = held_results();
      liveness(cand);
      size_t changes = 0;
      bool stuck = false;
      forward(&changes, &stuck);
      if (stuck) {
        p_.why = "a segment read at its initial value after its old contents were used";
        return false;
      }
      consistent = changes == 0;
    }
    if (!consistent) {
      p_.why = "no consistent plan in 64 rounds";
      return false;
    }
    --p_.rounds;
    return true;
  }

  // Pass 1. Where the new schedule's results already are: the live buffers' clean
  // segments that the aborted run wrote, indexed by segment and, within one, by
  // contents (then chip). Per entry: kSkip (in place), a holder to copy from (the
  // nearest, the lowest chip id among equals), or kOrig. A lookup searches one
  // segment's holders (at most a chip each), a few cache lines, where a search of all of
  // them missed the cache at every step (85 % of a 32x32 plan's time).
  std::vector<uint32_t> held_results() const {
    struct Held {
      uint64_t f;  // contents
      ChipId c;
    };
    auto holds = [&](size_t c, size_t s) {
      const size_t i = at(c, s);
      return live(c) && !dirty_[i] && !forced_[i] && F_[i] != chip_number((ChipId)c);
    };
    std::vector<size_t> hs(ms_ + 1, 0);  // segment s's holders: held[hs[s] .. hs[s+1])
    for (size_t c = 0; c < N; ++c)
      for (size_t s = 0; s < ms_; ++s) hs[s + 1] += holds(c, s);
    for (size_t s = 0; s < ms_; ++s) hs[s + 1] += hs[s];
    std::vector<Held> held(hs[ms_]);
    {
      std::vector<size_t> fill(hs.begin(), hs.end() - 1);
      for (size_t c = 0; c < N; ++c)
        for (size_t s = 0; s < ms_; ++s)
          if (holds(c, s)) held[fill[s]++] = {F_[at(c, s)], (ChipId)c};
    }
    for (size_t s = 0; s < ms_; ++s)
      std::sort(held.begin() + hs[s], held.begin() + hs[s + 1],
                [](const Held& a, const Held& b) { return a.f != b.f ? a.f < b.f : a.c < b.c; });
    std::vector<uint32_t> cand(entries_, kOrig);
    for (size_t k = 0; k < xs_.size(); ++k) {
      const ChipId d = next_.xfers[xs_[k]].dst;
      for (size_t e = eoff_[k], s = sfirst_[k] - s0_; e < eoff_[k + 1]; ++e, ++s) {
        if (banned_[e]) continue;
        const uint64_t want = post_[e];
        const auto end = held.begin() + hs[s + 1];
        auto it = std::lower_bound(held.begin() + hs[s], end, want,
                                   [](const Held& h, uint64_t w) { return h.f < w; });
        int best = -1;
        for (; it != end && it->f == want; ++it) {
          if (it->c == d) {
            cand[e] = kSkip;
            break;
          }
          const int dist = distance_ ? distance_(it->c, d) : 0;
          if (best < 0 || dist < best) best = dist, cand[e] = it->c;
        }
      }
    }
    return cand;
  }

  // Pass 2. Backward liveness: a write whose result nothing reads is dead; a result
  // fetched from another chip or already in place makes what came before it dead.
  void liveness(const std::vector<uint32_t>& cand) {
    std::vector<char> L(N * ms_, 0);
    for (size_t c = 0; c < N; ++c)
      for (size_t s = 0; live(c) && s < ms_; ++s) L[at(c, s)] = 1;
    for (size_t k = xs_.size(); k-- > 0;) {
      const Xfer& xf = next_.xfers[xs_[k]];
      for (size_t e = eoff_[k], s = sfirst_[k] - s0_; e < eoff_[k + 1]; ++e, ++s) {
        const size_t d = at(xf.dst, s);
        if (!L[d]) {
          tr_[e] = kDead;
        } else if (cand[e] != kOrig) {
          // In place already (skip) or fetched by one copy: what was written into the
          // destination before is not needed. What the result is taken from is the
          // holder's *initial* contents here, so it marks nothing live: a write into
          // the holder before this point breaks the plan (pass 3 bans it).
          tr_[e] = cand[e];
          L[d] = 0;
        } else {
          tr_[e] = kOrig;
          if (!xf.reduce) L[d] = 0;
          L[at(xf.src, s)] = 1;
        }
      }
    }
  }

  // Pass 3. Forward, as the continuation runs: every read must find what the new
  // schedule would have there. A segment first read at its initial value is restored; a
  // result that is no longer where it was found is banned, a segment read at its initial
  // value after its old contents were used is restored from the start next round.
  void forward(size_t* changes, bool* stuck) {
    cur_.assign(F_.begin(), F_.end());
    cdirty_.assign(dirty_.begin(), dirty_.end());
    restored_.assign(N * ms_, 0);
    std::vector<uint64_t> expv(N * ms_);
    std::vector<char> read(N * ms_, 0), written(N * ms_, 0);
    for (size_t c = 0; c < N; ++c)
      for (size_t s = 0; s < ms_; ++s) {
        const size_t i = at(c, s);
        expv[i] = chip_number((ChipId)c);
        if (forced_[i]) cur_[i] = expv[i], cdirty_[i] = 0, restored_[i] = 1;
      }
    auto need = [&](size_t c, size_t i, uint64_t want) {
      if (!cdirty_[i] && cur_[i] == want) {
        if (!written[i]) read[i] = 1;
        return true;
      }
      if (!written[i] && !read[i] && want == chip_number((ChipId)c)) {
        cur_[i] = want, cdirty_[i] = 0, restored_[i] = 1, read[i] = 1;
        return true;
      }
      return false;
    };
    for (size_t k = 0; k < xs_.size(); ++k) {
      const Xfer& xf = next_.xfers[xs_[k]];
      for (size_t e = eoff_[k], s = sfirst_[k] - s0_; e < eoff_[k + 1]; ++e, ++s) {
        const size_t d = at(xf.dst, s), r = at(xf.src, s);
        const uint32_t t = tr_[e];
        if (t == kSkip) {
          if (!need(xf.dst, d, post_[e])) banned_[e] = 1, ++*changes;
        } else if (t == kOrig) {
          // A segment restored from the start already and still not what is read, with
          // nothing gone wrong before it in this pass: no later round can fix it
          // (stuck: restart instead). After an earlier failure it may be a consequence.
          if (!need(xf.src, r, expv[r])) *stuck |= forced_[r] && !*changes, forced_[r] = 1, ++*changes;
          if (xf.reduce && !need(xf.dst, d, expv[d]))
            *stuck |= forced_[d] && !*changes, forced_[d] = 1, ++*changes;
          cur_[d] = xf.reduce ? cur_[d] + cur_[r] : cur_[r];
          cdirty_[d] = xf.reduce ? (cdirty_[d] | cdirty_[r]) : cdirty_[r];
          written[d] = 1;
        } else if (t != kDead) {
          if (need(t, at(t, s), post_[e])) {
            cur_[d] = post_[e], cdirty_[d] = 0;
            written[d] = 1;
          } else {
            banned_[e] = 1, ++*changes;
          }
        }
        expv[d] = post_[e];
      }
    }
  }

  // The strip's part of the continuation: each transfer of the new schedule cut to its
  // runs of segments that run as they are or come by copy from where the result is.
  void keep_runs() {
    for (size_t k = 0; k < xs_.size(); ++k) {
      const Xfer& xf = next_.xfers[xs_[k]];
      size_t e = eoff_[k], s = sfirst_[k];
      // A segment's transfer as (source, reduce), or none; runs of equal ones are one
      // transfer (a copy from the transfer's own source is the transfer itself).
      auto what = [&](size_t j) -> std::pair<uint64_t, bool> {
        const uint32_t t = tr_[j];
        if (t == kDead || t == kSkip) return {~0ULL, false};
        if (t == kOrig) return {xf.src, xf.reduce != 0};
        return {t, false};
      };
      while (e < eoff_[k + 1]) {
        const auto w = what(e);
        size_t e1 = e + 1;
        while (e1 < eoff_[k + 1] && what(e1) == w) ++e1;
        const uint32_t o = B[s], len = B[s + (e1 - e)] - o;
        if (w.first != ~0ULL) {
          runs_.push_back({xs_[k], o, len, (uint32_t)w.first, (uint8_t)w.second});
          p_.run_words += len;
          for (size_t j = e; j < e1; ++j)
            if (tr_[j] != kOrig) p_.copy_words += B[s + (j - e) + 1] - B[s + (j - e)];
        }
        s += e1 - e;
        e = e1;
      }
    }
  }

  // The continuation: the new schedule's transfers in their order, each as its runs in
  // buffer order; two runs of one transfer that meet (at a strip's edge) with the same
  // source and operation are one.
  void emit_continuation() {
    std::stable_sort(runs_.begin(), runs_.end(), [](const Run& a, const Run& b) { return a.x < b.x; });
    ScheduleBuilder b((int)N, W);
    for (size_t c = 0; c < N; ++c) b.set_participant((ChipId)c, live(c));
    for (const Phase& ph : next_.phases) b.phase(ph);
    for (size_t i = 0; i < runs_.size();) {
      Run r = runs_[i];
      size_t j = i + 1;
      for (; j < runs_.size() && runs_[j].x == r.x && runs_[j].offset == r.offset + r.len &&
             runs_[j].src == r.src && runs_[j].reduce == r.reduce;
           ++j)
        r.len += runs_[j].len;
      const Xfer& xf = next_.xfers[r.x];
      b.add((ChipId)r.src, xf.dst, r.offset, r.len, r.reduce != 0, xf.phase);
      i = j;
    }
    runs_.clear();
    runs_.shrink_to_fit();
    p_.schedule = b.finish();
  }

  // Per live chip the ranges pass 3 restored in the strip, merged with what the strips
  // before it restored.
  void restore_ranges() {
    for (size_t c = 0; c < N; ++c) {
      if (!live(c)) continue;
      auto& r = p_.restore[c];
      for (size_t s = 0; s < ms_; ++s) {
        if (!restored_[at(c, s)]) continue;
        const uint32_t o = B[s0_ + s], n = B[s0_ + s + 1] - o;
        if (!r.empty() && r.back().first + r.back().second == o) r.back().second += n;
        else r.push_back({o, n});
        p_.restore_words += n;
      }
    }
  }
};

}  // namespace

ResumePlan plan_resume(const std::vector<AbortedRun>& history, const Schedule& next,
                       const std::function<int(ChipId, ChipId)>& distance, double memory) {
  ResumePlan p = Planner(history, next, distance, memory).run();
  for (const auto& r : p.restore) p.restore_chips += !r.empty();
  return p;
}

}  // namespace fm::coll
