#include "models/ni.h"

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
      credits_(cfg.vcs, cfg.buf),
      reasm_(cfg.vcs) {
  SC_METHOD(process);
  sensitive << clk.tick();
}

void NetworkInterface::connect(Link* inject, Link* eject,
                               const std::vector<NetworkInterface*>* peers) {
  inj_ = inject;
  ej_ = eject;
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

void NetworkInterface::violation(const std::string& what) {
  if (!violations_++) {
    std::ostringstream m;
    m << "NI " << id_ << " cycle " << clk_.now() << ": " << what;
    first_violation_ = m.str();
  }
}

// Per cycle: credits and ejected flits first, then packet creation, then one flit of
// injection. Sleeps until the next packet is due when there is nothing else to do.
void NetworkInterface::process() {
  if (resume()) return;
  const Cycle now = clk_.now();
  for (int v; (v = inj_->receive_credit(now)) >= 0;) {
    if (v >= vcs_ || credits_[v] == buf_) {
      violation("credit for vc " + std::to_string(v) + ", which is nonexistent or already has all its credits");
      continue;
    }
    ++credits_[v];
  }
  eject(now);
  if (inject_on_ && src_) {
    while (src_->next_time() <= now) {
      const Cycle t = src_->next_time();
      ChipId dst;
      int size;
      src_->pop(&dst, &size);
      const bool measured = t >= win_from_ && t < win_to_;
      records_.push_back({dst, (uint16_t)size, measured, false, t, kNever});
      queue_.push_back(next_packet_++);
      ++st_.packets_created;
      st_.flits_created += size;
      if (measured) st_.window_flits_created += size;
    }
  }
  inject(now);
  if (!cur_active_ && queue_.empty() && !flit_ports_)
    sleep(inject_on_ && src_ ? src_->next_time() : kNever);
}

void NetworkInterface::inject(Cycle now) {
  if (!cur_active_) {
    if (queue_.empty()) return;
    // A new packet takes the first local-input VC with a free slot, round-robin.
    int pick = -1;
    for (int i = 0; i < vcs_; ++i) {
      const int v = (vc_ptr_ + i) % vcs_;
      if (credits_[v] > 0) { pick = v; break; }
    }
    if (pick < 0) return;
    vc_ptr_ = (uint8_t)((pick + 1) % vcs_);
    cur_vc_ = (uint8_t)pick;
    cur_ = queue_.front();
    queue_.pop_front();
    cur_active_ = true;
    cur_seq_ = 0;
    record(cur_).injected = now;
  }
  if (credits_[cur_vc_] <= 0) return;
  const Record& r = record(cur_);
  Flit f;
  f.src = id_;
  f.dst = r.dst;
  f.packet = cur_;
  f.seq = cur_seq_;
  f.vc = cur_vc_;
  f.kind = (uint8_t)((cur_seq_ == 0 ? kHead : kBody) | (cur_seq_ + 1 == r.size ? kTail : kBody));
  f.payload = payload_of(id_, cur_, cur_seq_);
  --credits_[cur_vc_];
  inj_->send(f, now);
  ++st_.flits_injected;
  if (++cur_seq_ == r.size) cur_active_ = false;
}

// Ejection with end-to-end checks: right destination, flits of a packet in order on
// one VC, no interleaving, payload intact. The credit goes straight back.
void NetworkInterface::eject(Cycle now) {
  Flit f;
  if (!ej_->receive(now, &f)) return;
  ej_->send_credit(f.vc, now);
  ++st_.flits_ejected;
  if (now >= win_from_ && now < win_to_) ++st_.window_flits_ejected;
  if (f.dst != id_) violation("flit for chip " + std::to_string(f.dst) + " ejected here");
  if (f.payload != payload_of(f.src, f.packet, f.seq)) violation("payload corrupted");
  if (f.vc >= vcs_) { violation("ejected flit on nonexistent vc"); return; }
  Reassembly& r = reasm_[f.vc];
  if (f.head()) {
    if (r.open) violation("packet interleaved at ejection");
    r = {!f.tail(), f.src, f.packet, 0};
  } else if (!r.open || r.src != f.src || r.packet != f.packet || f.seq != r.seq + 1) {
    violation("flit out of order at ejection (packet " + std::to_string(f.src) + "#" +
              std::to_string(f.packet) + " seq " + std::to_string(f.seq) + ")");
    return;
  } else {
    r.seq = f.seq;
    if (f.tail()) r.open = false;
  }
  if (!f.tail()) return;
  NetworkInterface* s = (*peers_)[f.src];
  if (f.packet < s->base_ || f.packet >= s->next_packet_) {
    violation("tail of a packet that is not outstanding (delivered twice?)");
    return;
  }
  Record& rec = s->record(f.packet);
  if (rec.delivered || f.seq + 1 != rec.size) {
    violation("tail of a packet delivered twice or with the wrong length");
    return;
  }
  ++st_.packets_delivered;
  if (rec.measured) {
    const uint32_t lat = (uint32_t)(now - rec.created);
    const uint32_t net = (uint32_t)(now - rec.injected);
    ++st_.measured_packets;
    st_.latency_sum += lat;
    st_.network_latency_sum += net;
    st_.latencies.push_back(lat);
    st_.network_latencies.push_back(net);
  }
  s->delivered(f.packet);
}

void NetworkInterface::delivered(uint32_t packet) {
  record(packet).delivered = true;
  while (!records_.empty() && records_.front().delivered) {
    records_.pop_front();
    ++base_;
  }
}

}  // namespace fm
