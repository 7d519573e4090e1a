#include "models/collective/reference.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

namespace fm::coll {

namespace {

using Buffers = std::vector<std::vector<uint64_t>>;

// Every participant's buffer at its initial words.
Buffers initial_buffers(const Schedule& s) {
  Buffers buf(s.participant.size());
  for (size_t c = 0; c < buf.size(); ++c) {
    if (!s.participant[c]) continue;
    buf[c].resize(s.words);
    for (uint32_t i = 0; i < s.words; ++i) buf[c][i] = initial_word((ChipId)c, i);
  }
  return buf;
}

void apply_data(Buffers& buf, const Xfer& x, const uint64_t* data, uint32_t len) {
  uint64_t* d = buf[x.dst].data() + x.offset;
  if (x.reduce)
    for (uint32_t k = 0; k < len; ++k) d[k] += data[k];
  else
    for (uint32_t k = 0; k < len; ++k) d[k] = data[k];
}

// The schedule as send and apply events in a random order that respects only the derived
// dependencies: event 2i sends transfer i (snapshots the source range once every send dep
// has been applied), event 2i+1 applies it (once sent and every apply dep is done: an
// earlier read of the destination sent, an earlier write into it applied).
class RandomEvents {
 public:
  RandomEvents(const Schedule& s, uint64_t seed) : s_(s), rng_(seed) {
    const size_t n = s.xfers.size();
    waits_.assign(2 * n, 0);
    after_.resize(2 * n);
    snap_.resize(n);
    applied_.assign(n, 0);
    auto need = [&](uint32_t e, uint32_t before) {
      ++waits_[e];
      after_[before].push_back(e);
    };
    try {
      const DepLists sd = dependencies(s, true), ad = dependencies(s, false);
      for (uint32_t i = 0; i < n; ++i) {
        total_ += 2;
        for (uint32_t k = sd.off[i]; k < sd.off[i + 1]; ++k) {
          const uint32_t j = sd.idx[k];
          if (j >= i) throw std::logic_error("send dep of transfer " + std::to_string(i) + " is not earlier");
          need(2 * i, 2 * j + 1);
        }
        need(2 * i + 1, 2 * i);
        for (uint32_t k = ad.off[i]; k < ad.off[i + 1]; ++k) {
          const uint32_t j = ad.idx[k];
          if (j >= i) throw std::logic_error("apply dep of transfer " + std::to_string(i) + " is not earlier");
          need(2 * i + 1, s.xfers[j].src == s.xfers[i].dst ? 2 * j : 2 * j + 1);
        }
      }
    } catch (const std::logic_error& e) {
      error_ = e.what();
      return;
    }
    for (uint32_t e = 0; e < 2 * n; ++e)
      if (waits_[e] == 0) ready_.push_back(e);
  }
  const std::string& error() const { return error_; }
  size_t done() const { return done_; }
  size_t total() const { return total_; }
  // Runs one ready event on `buf`; false when none is ready.
  bool step(Buffers& buf) {
    if (ready_.empty()) return false;
    const size_t k = rng_() % ready_.size();
    const uint32_t e = ready_[k];
    ready_[k] = ready_.back();
    ready_.pop_back();
    const uint32_t i = e / 2;
    const Xfer& x = s_.xfers[i];
    if (e % 2 == 0) {
      snap_[i].assign(buf[x.src].begin() + x.offset, buf[x.src].begin() + x.offset + x.len);
    } else {
      apply_data(buf, x, snap_[i].data(), x.len);
      applied_[i] = 1;
      snap_[i].clear();
      snap_[i].shrink_to_fit();
    }
    ++done_;
    for (uint32_t f : after_[e])
      if (--waits_[f] == 0) ready_.push_back(f);
    return true;
  }
  // A transfer sent and not yet applied (its snapshot, else nullptr).
  const std::vector<uint64_t>* in_flight(uint32_t i) const {
    return snap_[i].empty() ? nullptr : &snap_[i];
  }
  bool applied(uint32_t i) const { return applied_[i] != 0; }
  std::mt19937_64& rng() { return rng_; }

 private:
  const Schedule& s_;
  std::mt19937_64 rng_;
  std::vector<uint32_t> waits_, ready_;
  std::vector<std::vector<uint32_t>> after_;
  std::vector<std::vector<uint64_t>> snap_;
  std::vector<char> applied_;
  size_t done_ = 0, total_ = 0;
  std::string error_;
};

// "" when every participant of `s` holds the exact elementwise sum over them.
std::string check_sums(const Schedule& s, const Buffers& buf) {
  std::vector<uint64_t> sum(s.words, 0);
  for (size_t c = 0; c < s.participant.size(); ++c)
    if (s.participant[c])
      for (uint32_t i = 0; i < s.words; ++i) sum[i] += initial_word((ChipId)c, i);
  for (size_t c = 0; c < s.participant.size(); ++c) {
    if (!s.participant[c]) continue;
    for (uint32_t i = 0; i < s.words; ++i)
      if (buf[c][i] != sum[i])
        return "chip " + std::to_string(c) + " word " + std::to_string(i) +
               " is not the sum over the participants";
  }
  return "";
}

std::string check_participants(const Schedule& s) {
  for (size_t i = 0; i < s.xfers.size(); ++i) {
    const Xfer& x = s.xfers[i];
    if (!s.participant[x.src] || !s.participant[x.dst])
      return "transfer " + std::to_string(i) + " involves a chip that does not participate";
  }
  return "";
}

}  // namespace

std::string execute_reference(const Schedule& s, uint64_t seed) {
  if (std::string e = check_participants(s); !e.empty()) return e;
  Buffers buf = initial_buffers(s);
  if (seed == 0) {
    std::vector<uint64_t> tmp;
    for (const Xfer& x : s.xfers) {
      tmp.assign(buf[x.src].begin() + x.offset, buf[x.src].begin() + x.offset + x.len);
      apply_data(buf, x, tmp.data(), x.len);
    }
  } else {
    RandomEvents ev(s, seed);
    if (!ev.error().empty()) return ev.error();
    while (ev.step(buf)) {
    }
    if (ev.done() != ev.total())
      return "dependencies deadlock: " + std::to_string(ev.total() - ev.done()) + " of " +
             std::to_string(ev.total()) + " events never became ready";
  }
  return check_sums(s, buf);
}

std::string execute_chained_reference(const std::vector<const Schedule*>& runs,
                                     const std::vector<double>& stops, uint64_t seed,
                                     ResumePlan* plan_out,
                                     const std::function<void(ResumePlan&)>& tamper) {
  if (runs.size() < 2 || stops.size() + 1 != runs.size())
    throw std::invalid_argument("execute_chained_reference: runs = stops + 1, at least two");
  for (const Schedule* s : runs)
    if (std::string e = check_participants(*s); !e.empty()) return e;
  Buffers buf = initial_buffers(*runs[0]);
  // What runs: the first collective, then each continuation. The history keeps every
  // aborted one with what of it was applied and the ranges restored before it.
  std::vector<std::unique_ptr<ResumePlan>> plans;
  std::vector<AbortedRun> history;
  const Schedule* running = runs[0];
  for (size_t k = 0; k + 1 < runs.size(); ++k) {
    const Schedule& old = *running;
    const Schedule& next = *runs[k + 1];
    buf.resize(std::max(buf.size(), next.participant.size()));
    AbortedRun h;
    h.schedule = &old;
    h.applied.assign(old.xfers.size(), Applied::None);
    h.from_inputs = k == 0;
    h.restored = k == 0 ? nullptr : &plans.back()->restore;
    RandomEvents ev(old, seed + k);
    if (!ev.error().empty()) return "run " + std::to_string(k) + ": " + ev.error();
    const size_t stop_at = (size_t)(stops[k] * (double)ev.total());
    while (ev.done() < stop_at && ev.step(buf)) {
    }
    // A transfer in flight at the abort lands in part with probability 1/2 (an abort
    // between two of its packets), its first words only.
    for (uint32_t i = 0; i < old.xfers.size(); ++i) {
      const std::vector<uint64_t>* d = ev.in_flight(i);
      if (!d || old.xfers[i].len < 2 || ev.rng()() % 2) continue;
      const uint32_t n = 1 + (uint32_t)(ev.rng()() % (old.xfers[i].len - 1));
      apply_data(buf, old.xfers[i], d->data(), n);
      h.applied[i] = Applied::Part;
    }
    for (uint32_t i = 0; i < old.xfers.size(); ++i)
      if (ev.applied(i)) h.applied[i] = Applied::Full;
    history.push_back(std::move(h));
    auto plan = std::make_unique<ResumePlan>(plan_resume(history, next));
    if (!plan->ok) return "plan " + std::to_string(k + 1) + " refused: " + plan->why;
    const bool last = k + 2 == runs.size();
    if (last && tamper) tamper(*plan);
    // The dead chips' buffers are gone; the live ones restore what the plan says.
    for (size_t c = 0; c < buf.size(); ++c) {
      if (c >= next.participant.size() || !next.participant[c]) {
        buf[c].clear();
        continue;
      }
      if (buf[c].empty()) {  // a chip new to the collective: its own gradient
        buf[c].resize(next.words);
        for (uint32_t i = 0; i < next.words; ++i) buf[c][i] = initial_word((ChipId)c, i);
      }
      for (const auto& [o, n] : plan->restore[c])
        for (uint32_t i = o; i < o + n; ++i) buf[c][i] = initial_word((ChipId)c, i);
    }
    if (std::string e = check_participants(plan->schedule); !e.empty()) return "continuation: " + e;
    plans.push_back(std::move(plan));
    running = &plans.back()->schedule;
  }
  RandomEvents ev(*running, seed + runs.size());
  if (!ev.error().empty()) return "continuation: " + ev.error();
  while (ev.step(buf)) {
  }
  if (ev.done() != ev.total())
    return "continuation: dependencies deadlock: " + std::to_string(ev.total() - ev.done()) + " of " +
           std::to_string(ev.total()) + " events never became ready";
  std::string r = check_sums(*runs.back(), buf);
  if (plan_out) *plan_out = std::move(*plans.back());
  return r;
}

std::string execute_resumed_reference(const Schedule& old, const Schedule& next, uint64_t seed,
                                      double stop, ResumePlan* plan_out,
                                      const std::function<void(ResumePlan&)>& tamper) {
  return execute_chained_reference({&old, &next}, {stop}, seed, plan_out, tamper);
}

}  // namespace fm::coll
