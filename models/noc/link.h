// One direction of an ICI link (or of a router<->NI local channel): a pipelined flit
// channel of `latency` cycles carrying one flit per cycle downstream, and the credit
// channel of `credit_latency` cycles carrying credits (one VC id per cycle) back
// upstream.
//
// The flit channel is a ring of time slots indexed by arrival cycle, so a sender
// writing in cycle t never touches what a receiver reads in cycle t; the receiver is
// woken for each arrival. The credit channel is a FIFO of (arrival cycle, VC): credits
// only matter when the upstream unit allocates its switch, which it only does in a
// cycle it evaluates, so it applies every credit that has arrived by then and need not
// wake up for credits at all.
//
// A failed link carries nothing: flits and credits sent into it are counted and lost.
#pragma once
#include <systemc>
#include <vector>

#include "models/noc/clock.h"
#include "models/noc/types.h"

namespace fm {

class Link : public sc_core::sc_module {
 public:
  // max_credits: most credits that can be outstanding (VCs x buffer depth downstream).
  Link(sc_core::sc_module_name name, int latency, int credit_latency, int max_credits)
      : sc_module(name), latency_(latency), credit_latency_(credit_latency) {
    size_t n = 1;
    while (n < (size_t)latency + 2) n <<= 1;  // departure may be delayed 1 cycle (ST stage)
    if (n <= kInlineSlots) {
      fring_ = fslots_;
    } else {
      flits_.resize(n);
      fring_ = flits_.data();
    }
    fmask_ = (uint32_t)(n - 1);
    n = 1;
    while (n < (size_t)max_credits + 1) n <<= 1;
    if (n <= kInlineCredits) {
      cring_ = cinline_;
    } else {
      credits_.resize(n);
      cring_ = credits_.data();
    }
    cmask_ = (uint32_t)(n - 1);
  }
  // The rings may point into the object itself: a Link is never copied or moved.
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;
  // upstream sends flits out of its port up_port; downstream receives them on down_port.
  void bind(Clocked* upstream, int up_port, Clocked* downstream, int down_port) {
    up_ = upstream;
    down_ = downstream;
    up_bit_ = 1u << up_port;
    down_bit_ = 1u << down_port;
  }

  // Flit leaving the upstream unit at cycle `depart`; arrives at depart + latency.
  // While the clock evaluates a cycle the sender writes only its side (the slot, its
  // counters); what the send does to the receiver is committed after the cycle by the
  // receiver's group (commit_flits), so sender and receiver may run on two threads.
  void send(const Flit& f, Cycle depart) {
    if (failed_) {
      if (dead_chips_ && (*dead_chips_)[f.dst]) ++dropped_dead_dst_;
      else ++dropped_flits_;
      return;
    }
    const Cycle at = depart + latency_;
    Slot& s = fring_[at & fmask_];
    s.flit = f;
    s.at = at | kValid;
    ++sent_;
    if (Clock::Group* g = Clock::current()) {
      if (pend_flits_++ == 0) {
        pend_at_ = at;
        g->flits_to[down_->group()].push_back(this);
      } else if (at < pend_at_) {
        pend_at_ = at;
      }
      return;
    }
    if (inflight_flits_++ == 0) down_->flit_ports_ |= down_bit_;
    down_->wake_at(at);
  }
  // The receiver's side of the flits sent in the cycle just evaluated (Clock, step 2).
  void commit_flits() {
    if (inflight_flits_ == 0) down_->flit_ports_ |= down_bit_;
    inflight_flits_ += pend_flits_;
    pend_flits_ = 0;
    down_->wake_at(pend_at_);
  }
  // Flit arriving at cycle `now`, if any.
  bool receive(Cycle now, Flit* out) {
    if (!inflight_flits_) return false;
    Slot& s = fring_[now & fmask_];
    if (!(s.at & kValid)) return false;
    s.at &= ~kValid;
    if (--inflight_flits_ == 0) down_->flit_ports_ &= ~down_bit_;
    *out = s.flit;
    return true;
  }
  // The flit arriving at cycle `now`, if any (else nullptr), marked received; the
  // pointer stays valid until the slot is reused (>= latency + 1 cycles later).
  const Flit* arrive(Cycle now) {
    if (!inflight_flits_) return nullptr;
    Slot& s = fring_[now & fmask_];
    if (!(s.at & kValid)) return nullptr;
    s.at &= ~kValid;
    if (--inflight_flits_ == 0) down_->flit_ports_ &= ~down_bit_;
    return &s.flit;
  }
  // Credit for VC `vc` sent upstream at cycle `now`; it arrives at now + credit_latency.
  // While the clock evaluates a cycle it waits in the sender's side (pend_credits_)
  // until the upstream unit's group commits it (commit_credits).
  void send_credit(int vc, Cycle now) {
    if (failed_) { ++dropped_credits_; return; }
    const Credit c = Credit::make(now + credit_latency_, vc);
    if (Clock::Group* g = Clock::current()) {
      if (pend_credits_.empty()) g->credits_to[up_->group()].push_back(this);
      pend_credits_.push_back(c);
      return;
    }
    push_credit(c);
  }
  // The upstream side of the credits sent in the cycle just evaluated (Clock, step 2).
  void commit_credits() {
    for (const Credit& c : pend_credits_) push_credit(c);
    pend_credits_.clear();
  }
  // VC of the oldest credit that has arrived by cycle `now`, or -1.
  int receive_credit(Cycle now) {
    if (!inflight_credits_) return -1;
    const Credit c = cring_[chead_ & cmask_];
    if (c.at() > now) return -1;
    ++chead_;
    if (--inflight_credits_ == 0) credits_drained(c);
    return c.vc();
  }
  // Calls take(vc) for every credit that has arrived by cycle `now`, oldest first (the
  // same as calling receive_credit() until it returns -1, with one bookkeeping update).
  template <class Take>
  void receive_credits(Cycle now, Take&& take) {
    uint32_t n = inflight_credits_;
    uint32_t h = chead_;
    Credit c{0};
    while (n) {
      c = cring_[h & cmask_];
      if (c.at() > now) break;
      take(c.vc());
      ++h;
      --n;
    }
    if (h == chead_) return;  // none has arrived yet
    inflight_credits_ = n;
    if (!n) credits_drained(c);
    else chead_ = h;
  }
  int latency() const { return latency_; }
  uint64_t flits_sent() const { return sent_; }
  uint64_t dropped_flits() const { return dropped_flits_; }
  uint64_t dropped_credits() const { return dropped_credits_; }
  // Marks the link failed (the fault controller); what is in flight is lost.
  void fail() {
    failed_ = true;
    for (uint32_t i = 0; i <= fmask_; ++i) {
      Slot& s = fring_[i];
      if (s.at & kValid) ++dropped_flits_;
      s.at = kNoArrival;  // dropped flits never arrive (flit_arriving() must not show them)
    }
    dropped_credits_ += inflight_credits_;
    down_->flit_ports_ &= ~down_bit_;
    up_->credit_ports_ &= ~up_bit_;
    inflight_flits_ = inflight_credits_ = 0;
  }
  bool failed() const { return failed_; }
  uint32_t in_flight() const { return inflight_flits_; }
  // Flits sent into the failed link whose destination chip is dead (dropped_flits()
  // counts the others, and those in flight when it failed). dead: per chip id, set by
  // the fault controller.
  uint64_t dropped_dead_destination() const { return dropped_dead_dst_; }
  void set_dead_chips(const std::vector<char>* dead) { dead_chips_ = dead; }
  // Reconfiguration flush: every flit and credit in flight is removed; returns the flits.
  uint64_t flush() {
    uint64_t n = 0;
    for (uint32_t i = 0; i <= fmask_; ++i) {
      Slot& s = fring_[i];
      if (s.at & kValid) { s.at = kNoArrival; ++n; }
    }
    if (down_) down_->flit_ports_ &= ~down_bit_;
    if (up_) up_->credit_ports_ &= ~up_bit_;
    inflight_flits_ = inflight_credits_ = 0;
    return n;
  }

  // --- read-only views for the waveform tracer (tb/tracer.cpp): what arrives when.
  // The flit arriving (or that arrived) in cycle `at`, nullptr if none, whether the
  // receiver has read it or not. Exact at the end of cycle `now` for `at` in
  // [now, now + latency + 1]: a slot is reused only for an arrival ring-size (>= latency
  // + 2) cycles later, and its arrival cycle tells an old flit from a new one.
  const Flit* flit_arriving(Cycle at) const {
    const Slot& s = fring_[at & fmask_];
    return (s.at & ~kValid) == at ? &s.flit : nullptr;
  }
  // VC of the credit arriving in cycle `at` (-1: none), whether the receiver has applied
  // it already or not. Exact for `at` >= the last cycle the receiver evaluated: the one
  // it applied last is still in its ring slot (a reused slot holds a later cycle).
  int credit_arriving(Cycle at) const {
    // The one applied last: still in its slot, or saved when the ring drained.
    const Credit last = chead_ ? cring_[(chead_ - 1) & cmask_] : last_credit_;
    if (last.bits && last.at() == at) return last.vc();
    for (uint32_t i = 0; i < inflight_credits_; ++i) {
      const Credit c = cring_[(chead_ + i) & cmask_];
      if (c.at() == at) return c.vc();
      if (c.at() > at) break;
    }
    return -1;
  }
  // Credits for VC `vc` that have arrived by cycle `now` but wait for the receiver (a
  // sleeping router applies them when it next evaluates; its counter lags meanwhile).
  int credits_waiting(Cycle now, int vc) const {
    int n = 0;
    for (uint32_t i = 0; i < inflight_credits_; ++i) {
      const Credit c = cring_[(chead_ + i) & cmask_];
      if (c.at() > now) break;
      n += c.vc() == vc;
    }
    return n;
  }
  uint32_t flits_in_flight() const { return inflight_flits_; }
  // Credits on the wire at the end of cycle `now`: sent, arriving after `now`. (Those that
  // have arrived but wait for a sleeping receiver are not counted: when it applies them
  // depends on when it next evaluates, which is the simulator's business, not the link's.)
  uint32_t credits_in_flight(Cycle now) const {
    uint32_t n = inflight_credits_;
    while (n && cring_[(chead_ + inflight_credits_ - n) & cmask_].at() <= now) --n;
    return n;
  }
  int credit_latency() const { return credit_latency_; }
  // --- end of the tracer's views

 private:
  // A credit in flight: its arrival cycle (56 bits, far more than any run) and its VC,
  // packed in one word so eight share a cache line.
  struct Credit {
    uint64_t bits;
    static Credit make(Cycle at, int vc) { return {at | (uint64_t)(uint8_t)vc << 56}; }
    Cycle at() const { return bits & ((uint64_t(1) << 56) - 1); }
    int vc() const { return (int)(bits >> 56); }
  };
  // A flit slot: the flit and its arrival cycle, whose top bit says the flit was sent and
  // not yet received (32 bytes, so a slot never straddles two cache lines).
  static constexpr Cycle kValid = Cycle(1) << 63;
  static constexpr Cycle kNoArrival = ~kValid;  // no flit will arrive in this slot
  struct alignas(32) Slot {
    Flit flit;
    Cycle at = kNoArrival;  // arrival cycle of the flit last sent here | kValid
  };
  void push_credit(Credit c) {
    if (inflight_credits_ > cmask_) {  // more credits than buffer slots: flow control broken
      ++dropped_credits_;
      return;
    }
    cring_[(chead_ + inflight_credits_) & cmask_] = c;
    if (inflight_credits_++ == 0) up_->credit_ports_ |= up_bit_;
  }
  // Every credit has been applied: the next one is written to slot 0 again. With the
  // usual one or two credits in flight the ring then stays in its first slots, which
  // share the credit side's cache line. The tracer's credit_arriving() needs the credit
  // applied last, which slot chead_ - 1 no longer holds: it is kept here.
  void credits_drained(Credit last) {
    last_credit_ = last;
    chead_ = 0;
    up_->credit_ports_ &= ~up_bit_;
  }
  // The fields every flit and credit touches, grouped by side: the flit side (sender and
  // receiver of flits) and the credit side (sender and receiver of credits), each with
  // its ring inline when it is small (the usual case), so a flit or a credit costs one or
  // two cache lines instead of the Link's line plus a line of a separate heap block. On a
  // 32x32 torus the whole network no longer stays in cache, and every line is a miss.
  static constexpr size_t kInlineSlots = 8;     // flit latency up to 6
  static constexpr size_t kInlineCredits = 64;  // VCs x buffer depth up to 63
  alignas(64) Slot* fring_ = nullptr;  // fslots_ or flits_.data()
  uint32_t fmask_ = 0;
  uint32_t inflight_flits_ = 0;
  Clocked* down_ = nullptr;
  uint32_t down_bit_ = 0;
  const int latency_;
  uint64_t sent_ = 0;
  bool failed_ = false;
  uint32_t pend_flits_ = 0;  // sent in the cycle being evaluated, not yet committed
  Cycle pend_at_ = 0;        // the earliest arrival among them
  alignas(64) Slot fslots_[kInlineSlots];
  // Credit side: FIFO ring cring_[chead_ .. chead_ + inflight_credits_), then its slots.
  alignas(64) Credit* cring_ = nullptr;  // cinline_ or credits_.data()
  uint32_t chead_ = 0;
  uint32_t cmask_ = 0;
  uint32_t inflight_credits_ = 0;
  uint32_t up_bit_ = 0;
  Clocked* up_ = nullptr;
  const int credit_latency_;
  Credit last_credit_{0};  // see credits_drained()
  Credit cinline_[kInlineCredits] = {};
  // Storage of rings too large to be inline, and rarely used state.
  alignas(64) std::vector<Slot> flits_;
  std::vector<Credit> credits_;
  std::vector<Credit> pend_credits_;  // sent in the cycle being evaluated (send_credit)
  uint64_t dropped_flits_ = 0, dropped_credits_ = 0;
  uint64_t dropped_dead_dst_ = 0;
  const std::vector<char>* dead_chips_ = nullptr;
};

}  // namespace fm
