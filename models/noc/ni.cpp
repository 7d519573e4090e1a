#include "models/noc/ni.h"

#include "models/noc/router.h"

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <stdexcept>

namespace fm {

NetworkInterface::NetworkInterface(sc_core::sc_module_name name, const NetworkConfig& cfg,
                                   ChipId id, Clock& clk)
    : sc_module(name),
      Clocked(clk),
      id_(id),
      vcs_(cfg.vcs),
      buf_(cfg.buf),
      lanes_(cfg.local_ports),
      ej_store_(cfg.local_ports) {
  lane_ = lanes_.data();
  ej_ = ej_store_.data();
  for (Lane& l : lanes_) reset_credits(l);
  clk.add(this);
}

void NetworkInterface::connect(std::vector<Link*> inject, std::vector<Link*> eject,
                               const Router* router,
                               const std::vector<NetworkInterface*>* peers) {
  for (size_t i = 0; i < lanes_.size(); ++i) {
    lanes_[i].inj = inject.at(i);
    ej_store_[i].ej = eject.at(i);
  }
  router_ = router;
  peers_ = peers;
}

void NetworkInterface::set_source(PacketSource* s) {
  src_ = s;
  if (src_ && inject_on_ && src_->next_time() != kNever) wake_at(src_->next_time());
}

void NetworkInterface::set_injection(bool on) {
  inject_on_ = on;
  if (src_ && on && src_->next_time() != kNever) wake_at(std::max(src_->next_time(), clk_.now() + 1));
}

size_t NetworkInterface::queued_packets() const {
  size_t n = queued_;
  for (const Lane& l : lanes_) n += l.active ? 1 : 0;
  return n;
}

void NetworkInterface::create(ChipId dst, uint32_t count, int size, int last_size, uint64_t tag0,
                              Cycle created, const Cycle* ready, Cycle floor, uint64_t prio0) {
  const bool measured = created >= win_from_ && created < win_to_;
  int lane = 0;
  if (lanes_.size() > 1) {
    const uint8_t p = router_->route_port(dst);
    if (p < kNumNetPorts) lane = lane_of(p, (int)lanes_.size());
  }
  uint32_t b;
  if (!free_bursts_.empty()) {
    b = free_bursts_.back();
    free_bursts_.pop_back();
  } else {
    b = (uint32_t)bursts_.size();
    bursts_.emplace_back();
  }
  Burst& u = bursts_[b];
  u.dst = dst;
  u.first = next_packet_;
  u.count = count;
  u.size = (uint16_t)size;
  u.last_size = (uint16_t)last_size;
  u.measured = measured;
  u.created = created;
  u.ready0 = std::max(ready[0], floor);
  u.tag0 = tag0;
  u.prio0 = prio0;
  u.delay.clear();
  for (uint32_t k = 1; k < count; ++k) {
    const Cycle r = std::max(ready[k], floor);
    if (ready[k] < ready[k - 1] || r - u.ready0 > UINT32_MAX)
      throw std::logic_error("NI: a burst's ready cycles must be nondecreasing and within 2^32 cycles");
    u.delay.push_back((uint32_t)(r - u.ready0));
  }
  next_packet_ += count;
  queued_ += count;
  lanes_[lane].queue.push({u.first, b, u.ready0, u.priority(0)});
  busy_lanes_ |= 1u << lane;
  const uint64_t flits = (uint64_t)size * (count - 1) + (uint64_t)last_size;
  st_.packets_created += count;
  st_.flits_created += flits;
  if (measured) st_.window_flits_created += flits;
}

void NetworkInterface::send(ChipId dst, int size, uint64_t tag, Cycle ready, uint64_t priority) {
  send_burst(dst, 1, size, size, tag, &ready, priority);
}

void NetworkInterface::send_burst(ChipId dst, uint32_t count, int size, int last_size, uint64_t tag0,
                                  const Cycle* ready, uint64_t prio0) {
  if (count == 0) return;
  const Cycle now = clk_.now();
  // As if sent one by one: a packet is never ready before the next cycle.
  create(dst, count, size, last_size, tag0, now, ready, now + 1, prio0);
  // The later packets' readiness is the lane's own business once the first is queued
  // (inject() returns the cycle its next packet is ready).
  wake_at(std::max(ready[0], now + 1));
}

void NetworkInterface::violation(const std::string& what) {
  if (!violations_++) {
    std::ostringstream m;
    m << "NI " << id_ << " cycle " << clk_.now() << ": " << what;
    first_violation_ = m.str();
  }
}

// Per cycle: credits and ejected flits first, then packet creation, then one flit of
// injection per lane. Sleeps until the next packet is due when there is nothing else
// to do.
void NetworkInterface::evaluate() {
  if (dead_) {
    sleep();
    return;
  }
  const Cycle now = clk_.now();
  // Only lanes with credits or flits in flight toward the NI (bits kept by the links).
  for (uint32_t m = credit_ports_; m; m &= m - 1) {
    Lane& l = lane_[__builtin_ctz(m)];
    l.inj->receive_credits(now, [&](int v) {
      if (v >= vcs_ || l.credits[v] == buf_) bad_event(kBadCredit, v, nullptr);
      else ++l.credits[v];
    });
  }
  for (uint32_t m = flit_ports_; m; m &= m - 1) {
    const int i = __builtin_ctz(m);
    eject(ej_[i], i, now);
  }
  if (inject_on_ && src_) {
    while (src_->next_time() <= now) {
      const Cycle t = src_->next_time();
      ChipId dst;
      int size;
      src_->pop(&dst, &size);
      create(dst, 1, size, size, 0, t, &t, 0, kFifo);
    }
  }
  Cycle next = inject_on_ && src_ ? src_->next_time() : kNever;
  for (uint32_t m = busy_lanes_; m; m &= m - 1) {
    const Cycle t = inject(lane_[__builtin_ctz(m)], now);
    if (t == kNever) busy_lanes_ &= ~(1u << __builtin_ctz(m));
    next = std::min(next, t);
  }
  // Flits in flight toward the NI: it sleeps until the first arrives (Link::next_arrival).
  for (uint32_t m = flit_ports_; m && next > now + 1; m &= m - 1)
    next = std::min(next, ej_[__builtin_ctz(m)].ej->next_arrival(now));
  if (next > now + 1) sleep(next);
}

// The lines evaluate() reads first (Clocked::prefetch): the lanes with flits, credits or
// packets, and the endpoint's reassembly state of the lanes with flits.
void NetworkInterface::prefetch() const {
  for (uint32_t m = flit_ports_; m; m &= m - 1) {
    const int i = __builtin_ctz(m);
    __builtin_prefetch(&ej_[i], 1);
    if (ep_slots_) {
      const char* s = ep_slots_ + (size_t)i * vcs_ * ep_stride_;
      for (size_t b = 0; b < (size_t)vcs_ * ep_stride_; b += 64) __builtin_prefetch(s + b, 1);
    }
  }
  for (uint32_t m = credit_ports_ | busy_lanes_; m; m &= m - 1) __builtin_prefetch(&lane_[__builtin_ctz(m)], 1);
}

// The lanes' links (Clocked::prefetch_late), found through the lane lines prefetch()
// asked for.
void NetworkInterface::prefetch_late() const {
  for (uint32_t m = flit_ports_; m; m &= m - 1) {
    const Link* l = ej_[__builtin_ctz(m)].ej;
    l->prefetch_control();
    l->prefetch_slots();
  }
  for (uint32_t m = credit_ports_ | busy_lanes_; m; m &= m - 1) {
    const Link* l = lane_[__builtin_ctz(m)].inj;  // set by connect(), before any work
    l->prefetch_control();
    l->prefetch_slots();
  }
}

Cycle NetworkInterface::inject(Lane& l, Cycle now) {
  if (!l.active) {
    if (!l.queue.ready(now)) return l.queue.next_ready();
    // A new packet takes the first local-input VC with a free slot, round-robin.
    int pick = -1;
    for (int i = 0; i < vcs_; ++i) {
      const int v = (l.vc_ptr + i) % vcs_;
      if (l.credits[v] > 0) { pick = v; break; }
    }
    if (pick < 0) return now + 1;  // credits are applied only in cycles it evaluates
    l.vc_ptr = (uint8_t)((pick + 1) % vcs_);
    l.vc = (uint8_t)pick;
    const Queued q = l.queue.pop();
    --queued_;
    const Burst& u = bursts_[q.burst];
    const uint32_t k = q.packet - u.first;
    l.cur = q.packet;
    l.active = true;
    l.seq = 0;
    l.dst = u.dst;
    l.size = k + 1 == u.count ? u.last_size : u.size;
    l.tag = u.tag0 + k;
    Record& r = in_flight_.insert(q.packet);
    r.size = l.size;
    r.measured = u.measured;
    r.created = u.created;
    r.injected = now;
    if (k + 1 < u.count) l.queue.push({q.packet + 1, q.burst, u.ready(k + 1), u.priority(k + 1)});
    else free_bursts_.push_back(q.burst);
  }
  if (l.credits[l.vc] <= 0) return now + 1;
  Flit f;
  f.src = id_;
  f.dst = l.dst;
  f.packet = l.cur;
  f.seq = l.seq;
  f.vc = l.vc;
  f.kind = (uint8_t)((l.seq == 0 ? kHead : kBody) | (l.seq + 1 == l.size ? kTail : kBody));
  f.payload = ep_ ? ep_->payload(l.tag, l.seq) : payload_of(id_, l.cur, l.seq);
  --l.credits[l.vc];
  l.inj->send(f, now);
  ++st_.flits_injected;
  if (++l.seq == l.size) {
    l.active = false;
    if (ep_) ep_->injected(l.tag, now);
    if (l.queue.empty()) return kNever;
    return l.queue.ready(now + 1) ? now + 1 : l.queue.next_ready();
  }
  return now + 1;
}

// Ejection with end-to-end checks: right destination, flits of a packet in order on
// one VC, no interleaving, payload intact. The credit goes straight back.
void NetworkInterface::eject(EjectLane& l, int lane, Cycle now) {
  const Flit* fp = l.ej->arrive(now);
  if (!fp) return;
  const Flit& f = *fp;  // in the link's slot, valid for cycles to come
  l.ej->send_credit(f.vc, now);
  ++st_.flits_ejected;
  if (eject_log_) eject_log_->push_back({now, id_, f.src, f.packet, f.seq});
  if (now >= win_from_ && now < win_to_) ++st_.window_flits_ejected;
  if (f.dst != id_) bad_event(kWrongChip, 0, &f);
  if (!ep_ && f.payload != payload_of(f.src, f.packet, f.seq)) violation("payload corrupted");
  if (f.vc >= vcs_) { violation("ejected flit on nonexistent vc"); return; }
  const int slot = lane * vcs_ + f.vc;
  Reassembly& r = l.r[f.vc];
  if (f.head()) {
    if (r.open) violation("packet interleaved at ejection");
    r.open = !f.tail();
    r.src = f.src;
    r.packet = f.packet;
    r.seq = 0;
  } else if (!r.open || r.src != f.src || r.packet != f.packet || f.seq != r.seq + 1) {
    bad_event(kOutOfOrder, 0, &f);
    return;
  } else {
    r.seq = f.seq;
    if (f.tail()) r.open = false;
  }
  if (ep_) ep_->ejected(f, slot, now);
  if (!f.tail()) return;
  ++st_.packets_delivered;
  // The packet's record is the source NI's, which may be evaluating this same cycle on
  // another thread: it closes the record (and takes the latency sample) itself, in
  // the commit step (note()).
  clk_.post((*peers_)[f.src], (uint64_t)f.packet | (uint64_t)f.seq << 32, now);
}

// Packet `packet` of this NI, whose tail (flit `seq`) was ejected in cycle `now`.
void NetworkInterface::note(uint64_t a, uint64_t now) {
  const uint32_t packet = (uint32_t)a;
  const uint16_t seq = (uint16_t)(a >> 32);
  Record* r = in_flight_.find(packet);
  if (!r) {
    violation("tail of a packet that is not outstanding (delivered twice?)");
    return;
  }
  if (seq + 1 != r->size) {
    violation("tail of a packet delivered twice or with the wrong length");
    return;
  }
  const Record& rec = *r;
  if (rec.measured) {
    const uint32_t lat = (uint32_t)(now - rec.created);
    const uint32_t net = (uint32_t)(now - rec.injected);
    ++st_.measured_packets;
    st_.latency_sum += lat;
    st_.network_latency_sum += net;
    st_.latencies.push_back(lat);
    st_.network_latencies.push_back(net);
  }
  in_flight_.erase(r);
}

void NetworkInterface::bad_event(BadEvent what, int v, const Flit* f) {
  switch (what) {
    case kBadCredit:
      violation("credit for vc " + std::to_string(v) + ", which is nonexistent or already has all its credits");
      break;
    case kWrongChip:
      violation("flit for chip " + std::to_string(f->dst) + " ejected here");
      break;
    case kOutOfOrder:
      violation("flit out of order at ejection (packet " + std::to_string(f->src) + "#" +
                std::to_string(f->packet) + " seq " + std::to_string(f->seq) + ")");
      break;
  }
}

void NetworkInterface::drop_queued() {
  for (Lane& l : lanes_) l.queue.clear();
  bursts_.clear();
  free_bursts_.clear();
  queued_ = 0;
}

void NetworkInterface::kill() {
  dead_ = true;
  drop_queued();
  for (Lane& l : lanes_) l.active = false;
  busy_lanes_ = 0;
}

void NetworkInterface::discard_queued() { drop_queued(); }

void NetworkInterface::flush() {
  drop_queued();
  for (Lane& l : lanes_) {
    l.active = false;
    reset_credits(l);
  }
  busy_lanes_ = 0;
  for (EjectLane& e : ej_store_)
    for (Reassembly& r : e.r) r.open = false;
  in_flight_.clear();
}

}  // namespace fm
