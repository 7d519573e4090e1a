#include "models/noc/ni.h"

#include "models/noc/router.h"

#include <algorithm>
#include <sstream>

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
  size_t n = 0;
  for (const Lane& l : lanes_) n += l.queue.size() + (l.active ? 1 : 0);
  return n;
}

void NetworkInterface::create(ChipId dst, int size, uint64_t tag, Cycle created, Cycle ready,
                              uint64_t priority) {
  const bool measured = created >= win_from_ && created < win_to_;
  records_.push_back({dst, (uint16_t)size, measured, false, created, kNever, tag});
  int lane = 0;
  if (lanes_.size() > 1) {
    const uint8_t p = router_->route_port(dst);
    if (p < kNumNetPorts) lane = lane_of(p, (int)lanes_.size());
  }
  const uint32_t packet = next_packet_++;
  lanes_[lane].queue.push({packet, ready, priority == kFifo ? packet : priority});
  busy_lanes_ |= 1u << lane;
  ++st_.packets_created;
  st_.flits_created += size;
  if (measured) st_.window_flits_created += size;
}

void NetworkInterface::send(ChipId dst, int size, uint64_t tag, Cycle ready, uint64_t priority) {
  const Cycle now = clk_.now();
  if (ready <= now) ready = now + 1;
  create(dst, size, tag, now, ready, priority);
  wake_at(ready);
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
      create(dst, size, 0, t, t, kFifo);
    }
  }
  Cycle next = inject_on_ && src_ ? src_->next_time() : kNever;
  for (uint32_t m = busy_lanes_; m; m &= m - 1) {
    const Cycle t = inject(lane_[__builtin_ctz(m)], now);
    if (t == kNever) busy_lanes_ &= ~(1u << __builtin_ctz(m));
    next = std::min(next, t);
  }
  if (next > now + 1 && !flit_ports_) sleep(next);
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
    l.cur = l.queue.pop().packet;
    l.active = true;
    l.seq = 0;
    Record& r = record(l.cur);
    r.injected = now;
    l.dst = r.dst;
    l.size = r.size;
    l.tag = r.tag;
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
  if (packet < base_ || packet >= next_packet_) {
    violation("tail of a packet that is not outstanding (delivered twice?)");
    return;
  }
  Record& rec = record(packet);
  if (rec.delivered || seq + 1 != rec.size) {
    violation("tail of a packet delivered twice or with the wrong length");
    return;
  }
  if (rec.measured) {
    const uint32_t lat = (uint32_t)(now - rec.created);
    const uint32_t net = (uint32_t)(now - rec.injected);
    ++st_.measured_packets;
    st_.latency_sum += lat;
    st_.network_latency_sum += net;
    st_.latencies.push_back(lat);
    st_.network_latencies.push_back(net);
  }
  delivered(packet);
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

void NetworkInterface::kill() {
  dead_ = true;
  for (Lane& l : lanes_) {
    l.queue.clear();
    l.active = false;
  }
  busy_lanes_ = 0;
}

void NetworkInterface::discard_queued() {
  for (Lane& l : lanes_)
    l.queue.for_each([&](const Queued& q) { record(q.packet).delivered = true; });
  for (Lane& l : lanes_) l.queue.clear();
  while (!records_.empty() && records_.front().delivered) {
    records_.pop_front();
    ++base_;
  }
}

void NetworkInterface::flush() {
  for (Lane& l : lanes_) {
    l.queue.clear();
    l.active = false;
    reset_credits(l);
  }
  busy_lanes_ = 0;
  for (EjectLane& e : ej_store_)
    for (Reassembly& r : e.r) r.open = false;
  for (Record& r : records_) r.delivered = true;
  records_.clear();
  base_ = next_packet_;
}

void NetworkInterface::delivered(uint32_t packet) {
  record(packet).delivered = true;
  while (!records_.empty() && records_.front().delivered) {
    records_.pop_front();
    ++base_;
  }
}

}  // namespace fm
