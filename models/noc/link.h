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
#include <algorithm>
#include <stdexcept>
#include <systemc>
#include <vector>

#include "models/noc/clock.h"
#include "models/noc/types.h"

namespace fm {

class Link : public sc_core::sc_module {
 public:
  // max_credits: most credits that can be outstanding (VCs x buffer depth downstream).
  Link(sc_core::sc_module_name name, int latency, int credit_latency, int max_credits)
      : sc_module(name), latency_((uint16_t)latency), credit_latency_((uint16_t)credit_latency) {
    // The control line holds latencies and ring masks in 16 bits (the options allow
    // latencies up to 1,000 and kMaxPortFlits = 32,768 flits per port).
    if (latency < 1 || latency > 65000 || credit_latency < 1 || credit_latency > 65000 ||
        max_credits < 0 || max_credits > 65000)
      throw std::invalid_argument("Link: latency, credit latency or credits out of range");
    size_t n = 1;
    while (n < (size_t)latency + 2) n <<= 1;  // departure may be delayed 1 cycle (ST stage)
    if (n > kInlineSlots) flits_.resize(n);
    fmask_ = (uint16_t)(n - 1);
    // The credit ring may have to hold every credit of the downstream buffers (an
    // upstream unit asleep while all of them come back), but in a stream it holds about
    // one per cycle of credit latency: it starts inline and doubles when full (grow_
    // credits()) up to the size that holds them all.
    n = 1;
    while (n < (size_t)max_credits + 1) n <<= 1;
    cmax_ = (uint16_t)(n - 1);
    cmask_ = (uint16_t)(std::min(n, kInlineCredits) - 1);
  }
  // Heap bytes a link of these latencies holds beyond the object itself (the memory
  // estimate, tb/memory.cpp): its flit ring when it is longer than the inline slots, and
  // its credit ring when a stream needs more than the inline credits (it holds about one
  // credit per cycle of credit latency).
  static size_t heap_bytes(int latency, int credit_latency) {
    size_t b = 0;
    if ((size_t)latency + 2 > kInlineSlots) b += pow2_at_least((size_t)latency + 2) * sizeof(Slot);
    if ((size_t)credit_latency + 1 > kInlineCredits) b += pow2_at_least((size_t)credit_latency + 1) * sizeof(Credit);
    return b;
  }
  // The rings may be inside the object itself: a Link is never copied or moved.
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;
  // upstream sends flits out of its port up_port; downstream receives them on down_port.
  void bind(Clocked* upstream, int up_port, Clocked* downstream, int down_port) {
    up_ = upstream;
    down_ = downstream;
    up_port_ = (uint8_t)up_port;
    down_port_ = (uint8_t)down_port;
  }

  // Flit leaving the upstream unit at cycle `depart`; arrives at depart + latency.
  // While the clock evaluates a cycle on its workers and the receiver is in another
  // group, the sender writes only its side (the slot, its counters); what the send does
  // to the receiver is committed after the cycle by the receiver's group (commit_flits),
  // so sender and receiver may run on two threads. A receiver in the sender's own group
  // runs on the same thread: the send acts on it at once, as on one thread.
  void send(const Flit& f, Cycle depart) {
    if (failed_) {
      if (dead_chips_ && (*dead_chips_)[f.dst]) ++dropped_dead_dst_;
      else ++dropped_flits_;
      return;
    }
    const Cycle at = depart + latency_;
    Slot& s = fring()[at & fmask_];
    s.flit = f;
    s.at = at | kValid;
    ++sent_;
    Clock::Group* g = Clock::current();
    if (g && g->index != down_->group()) {
      if (pend_flits_++ == 0) {
        pend_at_ = at;
        g->flits_to[down_->group()].push_back(this);
      } else if (at < pend_at_) {
        pend_at_ = at;
      }
      return;
    }
    if (inflight_flits_++ == 0) down_->flit_ports_ |= down_bit();
    down_->wake_at(at);
  }
  // The receiver's side of the flits sent in the cycle just evaluated (Clock, step 2).
  void commit_flits() {
    if (inflight_flits_ == 0) down_->flit_ports_ |= down_bit();
    inflight_flits_ += pend_flits_;
    pend_flits_ = 0;
    down_->wake_at(pend_at_);
  }
  // Flit arriving at cycle `now`, if any.
  bool receive(Cycle now, Flit* out) {
    if (!inflight_flits_) return false;
    Slot& s = fring()[now & fmask_];
    if (!(s.at & kValid)) return false;
    s.at &= ~kValid;
    if (--inflight_flits_ == 0) down_->flit_ports_ &= ~down_bit();
    *out = s.flit;
    return true;
  }
  // The flit arriving at cycle `now`, if any (else nullptr), marked received; the
  // pointer stays valid until the slot is reused (>= latency + 1 cycles later).
  const Flit* arrive(Cycle now) {
    if (!inflight_flits_) return nullptr;
    Slot& s = fring()[now & fmask_];
    if (!(s.at & kValid)) return nullptr;
    s.at &= ~kValid;
    if (--inflight_flits_ == 0) down_->flit_ports_ &= ~down_bit();
    return &s.flit;
  }
  // The earliest cycle after `now` a flit sent by the end of cycle now - 1 can arrive in:
  // the first arrival in (now, now + latency - 1] if there is one, else now + latency
  // (the latest such a flit can arrive in; a flit sent in cycle `now` arrives in
  // now + latency or later). A receiver with nothing else to do sleeps until then
  // instead of evaluating every cycle of a long link's flight (the receiver's side
  // only: the slots scanned are never the one a sender may be writing in cycle `now`,
  // at now + latency or later, so this is safe while other groups evaluate).
  Cycle next_arrival(Cycle now) const {
    if (!inflight_flits_) return kNever;
    const Slot* ring = fring();
    for (Cycle t = now + 1; t < now + latency_; ++t)
      if (ring[t & fmask_].at == (t | kValid)) return t;
    return now + latency_;
  }
  // Prefetch hints (Clocked::prefetch): the control line, and the inline flit slots a
  // receiver reads or a sender writes. Touch nothing: only addresses are computed.
  void prefetch_control() const { __builtin_prefetch(&down_, 1); }
  void prefetch_slots() const {
    __builtin_prefetch(&fslots_[0], 1);
    __builtin_prefetch(&fslots_[2], 1);
  }
  // A link whose ring is not inline (latency + 2 above kInlineSlots: the ICI links at
  // the modelled 200 cycles) keeps it on the heap, a slot per cycle of latency, and the
  // slot a receiver reads is a different line every second cycle: on 512-1,024 busy
  // chips those rings are tens of MB, and the read was the simulator's costliest miss.
  // prefetch_ring_address() asks for the line holding the ring's address (a step ahead);
  // prefetch_arrival(now) then reads the mask and that address and asks for the slot
  // arriving in cycle `now`.
  static bool heap_ring(int latency) { return pow2_at_least((size_t)latency + 2) > kInlineSlots; }
  void prefetch_ring_address() const { __builtin_prefetch(&flits_, 0); }
  void prefetch_arrival(Cycle now) const { __builtin_prefetch(&fring()[now & fmask_], 1); }
  // Credit for VC `vc` sent upstream at cycle `now`; it arrives at now + credit_latency.
  // While the clock evaluates a cycle on its workers and the upstream unit is in another
  // group, it waits in the sender's side (pend_credits_) until the upstream unit's group
  // commits it (commit_credits); within one group it is pushed at once.
  void send_credit(int vc, Cycle now) {
    if (failed_) { ++dropped_credits_; return; }
    const Credit c = Credit::make(now + credit_latency_, vc);
    Clock::Group* g = Clock::current();
    if (g && g->index != up_->group()) {
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
    const Credit c = cring()[chead_ & cmask_];
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
    const Credit* ring = cring();
    const uint32_t mask = cmask_;
    Credit c{0};
    while (n) {
      c = ring[h & mask];
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
      Slot& s = fring()[i];
      if (s.at & kValid) ++dropped_flits_;
      s.at = kNoArrival;  // dropped flits never arrive (flit_arriving() must not show them)
    }
    dropped_credits_ += inflight_credits_;
    down_->flit_ports_ &= ~down_bit();
    up_->credit_ports_ &= ~up_bit();
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
      Slot& s = fring()[i];
      if (s.at & kValid) { s.at = kNoArrival; ++n; }
    }
    if (down_) down_->flit_ports_ &= ~down_bit();
    if (up_) up_->credit_ports_ &= ~up_bit();
    inflight_flits_ = inflight_credits_ = 0;
    return n;
  }

  // --- read-only views for the waveform tracer (tb/tracer.cpp): what arrives when.
  // The flit arriving (or that arrived) in cycle `at`, nullptr if none, whether the
  // receiver has read it or not. Exact at the end of cycle `now` for `at` in
  // [now, now + latency + 1]: a slot is reused only for an arrival ring-size (>= latency
  // + 2) cycles later, and its arrival cycle tells an old flit from a new one.
  const Flit* flit_arriving(Cycle at) const {
    const Slot& s = fring()[at & fmask_];
    return (s.at & ~kValid) == at ? &s.flit : nullptr;
  }
  // VC of the credit arriving in cycle `at` (-1: none), whether the receiver has applied
  // it already or not. Exact for `at` >= the last cycle the receiver evaluated: the one
  // it applied last is still in its ring slot (a reused slot holds a later cycle).
  int credit_arriving(Cycle at) const {
    // The one applied last: still in its slot, or saved when the ring drained.
    const Credit last = chead_ ? cring()[(chead_ - 1) & cmask_] : last_credit_;
    if (last.bits && last.at() == at) return last.vc();
    for (uint32_t i = 0; i < inflight_credits_; ++i) {
      const Credit c = cring()[(chead_ + i) & cmask_];
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
      const Credit c = cring()[(chead_ + i) & cmask_];
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
    while (n && cring()[(chead_ + inflight_credits_ - n) & cmask_].at() <= now) --n;
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
    // A growing ring keeps a slot spare: it holds the credit applied last (credit_arriving()).
    if (inflight_credits_ >= cmask_) {
      if (cmask_ < cmax_) {
        grow_credits();
      } else if (inflight_credits_ > cmask_) {  // more credits than buffer slots: flow control broken
        ++dropped_credits_;
        return;
      }
    }
    cring()[(chead_ + inflight_credits_) & cmask_] = c;
    if (inflight_credits_++ == 0) up_->credit_ports_ |= up_bit();
  }
  // The credit ring has one free slot left and is smaller than the most it may have to
  // hold: doubles it, keeping each credit (and the one applied last, for
  // credit_arriving()) at its index chead_ + i under the new mask.
  [[gnu::cold, gnu::noinline]] void grow_credits() {
    const uint32_t mask = 2u * cmask_ + 1;
    std::vector<Credit> ring(mask + 1);
    const Credit* old = cring();
    for (uint32_t i = chead_ ? chead_ - 1 : 0; i != chead_ + inflight_credits_; ++i) ring[i & mask] = old[i & cmask_];
    credits_.swap(ring);
    cmask_ = (uint16_t)mask;
  }
  // Every credit has been applied: the next one is written to slot 0 again, which
  // shares the control line. The tracer's credit_arriving() needs the credit
  // applied last, which slot chead_ - 1 no longer holds: it is kept here.
  void credits_drained(Credit last) {
    last_credit_ = last;
    chead_ = 0;
    up_->credit_ports_ &= ~up_bit();
  }
  // Both parties of a link touch the flit side and the credit side for every flit (the
  // sender writes a flit and reads its credit back, the receiver reads the flit and sends
  // the credit), so every control field of both sides is in one cache line, followed by
  // the credit ring's inline slots: the first of them is in that line too (the ring
  // restarts at slot 0 whenever it drains). Fitting them in one (16-bit masks and
  // latencies, port numbers instead of port bits, ring pointers computed from the
  // masks) rather than one per side saves a line per flit at each end of a link.
  // On a 32x32 torus the whole network does not stay in cache, and every line is a miss.
  static size_t pow2_at_least(size_t v) {
    size_t n = 1;
    while (n < v) n <<= 1;
    return n;
  }
  static constexpr size_t kInlineSlots = 8;     // flit latency up to 6
  static constexpr size_t kInlineCredits = 64;  // VCs x buffer depth up to 63
  // The rings: inline when small (the usual case), else in flits_ / credits_.
  Slot* fring() { return fmask_ < kInlineSlots ? fslots_ : flits_.data(); }
  const Slot* fring() const { return fmask_ < kInlineSlots ? fslots_ : flits_.data(); }
  Credit* cring() { return cmask_ < kInlineCredits ? cinline_ : credits_.data(); }
  const Credit* cring() const { return cmask_ < kInlineCredits ? cinline_ : credits_.data(); }
  uint32_t down_bit() const { return 1u << down_port_; }
  uint32_t up_bit() const { return 1u << up_port_; }
  // The control line (56 bytes, then cinline_[0]).
  alignas(64) Clocked* down_ = nullptr;
  Clocked* up_ = nullptr;
  uint64_t sent_ = 0;
  Credit last_credit_{0};  // see credits_drained()
  uint32_t inflight_flits_ = 0;
  uint32_t inflight_credits_ = 0;
  uint32_t chead_ = 0;  // credit FIFO: cring()[chead_ .. chead_ + inflight_credits_)
  uint16_t fmask_ = 0, cmask_ = 0;  // ring sizes - 1
  const uint16_t latency_, credit_latency_;
  uint8_t down_port_ = 0, up_port_ = 0;
  bool failed_ = false;
  Credit cinline_[kInlineCredits] = {};
  alignas(64) Slot fslots_[kInlineSlots];
  // Sent in the cycle being evaluated and not yet committed (only while the clock
  // evaluates a cycle on its workers): flits, the earliest arrival among them, credits.
  uint32_t pend_flits_ = 0;
  Cycle pend_at_ = 0;
  std::vector<Credit> pend_credits_;
  // Storage of rings too large to be inline, and rarely used state.
  alignas(64) std::vector<Slot> flits_;
  std::vector<Credit> credits_;
  uint16_t cmax_ = 0;  // the credit ring's largest mask (grow_credits())
  uint64_t dropped_flits_ = 0, dropped_credits_ = 0;
  uint64_t dropped_dead_dst_ = 0;
  const std::vector<char>* dead_chips_ = nullptr;
};

}  // namespace fm
