#include "models/noc/router.h"

#include <cstring>
#include <sstream>

namespace fm {

namespace {
// First set bit of `mask` at or after position `ptr`, wrapping around (mask != 0).
inline int rr_pick(uint32_t mask, int ptr) {
  const uint32_t hi = mask & (~0u << ptr);
  return __builtin_ctz(hi ? hi : mask);
}
// (i + 1) mod n for 0 <= i < n, without a division (this runs per flit).
inline int next_mod(int i, int n) { return i + 1 == n ? 0 : i + 1; }
// The bit set of the ports 0..kLocal whose link is connected: the `ports` argument of
// route_entry_fault() (a table may name only those).
uint32_t connected_ports(Link* const* links) {
  uint32_t m = 0;
  for (int p = 0; p <= kLocal; ++p)
    if (links[p]) m |= 1u << p;
  return m;
}
}  // namespace

Router::Router(sc_core::sc_module_name name, const NetworkConfig& cfg, ChipId id,
               Clock& clk)
    : RouterBase(name, clk),
      islip_(cfg.arbiter == Arbiter::ISlip),
      long_links_(Link::heap_ring(cfg.link_latency)),
      vcs_(cfg.vcs),
      buf_(cfg.buf),
      reg_rc_(pipeline_regs(cfg.pipeline).rc),
      reg_va_(pipeline_regs(cfg.pipeline).va),
      reg_sa_(pipeline_regs(cfg.pipeline).sa),
      ports_(kNumNetPorts + cfg.local_ports),
      lanes_(cfg.local_ports),
      id_(id),
      in_(ports_ * cfg.vcs),
      out_(ports_ * cfg.vcs),
      entries_((size_t)ports_ * cfg.vcs * cfg.buf),
      va_out_ptr_(ports_ * cfg.vcs, 0) {
  static_assert(sizeof(InVc) == 64, "InVc is laid out to fill one cache line");
  set_first_ring_slots(KernelOptions{}.first_ring_slots);
  csr.register_b_transport(this, &Router::csr_access);
  clk.add(this);
}

void Router::set_first_ring_slots(int slots) {
  for (InVc& q : in_) {
    if (q.count) throw std::logic_error("Router::set_first_ring_slots: a ring holds flits");
    q.cap = (uint16_t)std::max(1, std::min(buf_, slots));
  }
}

void Router::connect_out(Port p, Link* l) {
  out_link_[p] = l;
  free_[p] = all_vcs_mask(vcs_);
  for (int v = 0; v < vcs_; ++v) ovc(p, v).credits = (int16_t)buf_;
}

std::string Router::load_table(const RouteTable& t) {
  const uint32_t ports = connected_ports(out_link_);
  for (int d = 0; d < t.size(); ++d) {
    const RouteEntry& e = t.lookup(d);  // kNoRoute (a dead destination) is acceptable
    if (route_entry_fault(e, vcs_, ports) != RouteEntryFault::kNone)
      return route_entry_error("router " + std::to_string(id_), (ChipId)d, e, vcs_);
  }
  table_ = t;
  return "";
}

// One cycle, in the order of docs/router-microarchitecture.md section "Cycle".
void Router::evaluate() {
  if (dead_) {
    sleep();
    return;
  }
  const Cycle now = clk_.now();
  if (credit_ports_) receive_credits(now);
  if (flit_ports_) receive_flits(now);
  if (buffered_) {
    if (va_ports_) vc_allocate(now);
    if (sa_ports_) switch_allocate(now);
  }
  if (!buffered_) {
    if (!flit_ports_) sleep();
    else if (const Cycle t = next_arrival(now); t > now + 1) sleep(t);
  }
}

// The lines evaluate() reads first (Clocked::prefetch): the links with flits or credits
// for it and those it may send on, its input VCs with flits, its credit counters.
void Router::prefetch() const {
  for (uint32_t m = flit_ports_; m; m &= m - 1) {
    const int p = __builtin_ctz(m);
    const Link* l = in_link_[p];
    l->prefetch_control();
    if (long_links_ && p < kNumNetPorts) l->prefetch_ring_address();
    else l->prefetch_slots();
  }
  for (uint32_t m = credit_ports_; m; m &= m - 1) out_link_[__builtin_ctz(m)]->prefetch_control();
  const InVc* in = in_.data();
  for (uint32_t pm = sa_ports_ | va_ports_; pm; pm &= pm - 1) {
    const int p = __builtin_ctz(pm);
    for (uint32_t m = sa_wait_[p] | va_wait_[p]; m; m &= m - 1) __builtin_prefetch(in + p * vcs_ + __builtin_ctz(m), 1);
  }
  __builtin_prefetch(out_.data(), 1);
}

// The front slots of the VCs bidding for the switch, and the slot the next flit of each
// is written to (their InVc lines were asked for by prefetch()); on long links, the
// slot each arriving flit is read from (its link's control line and ring address were).
void Router::prefetch_late() const {
  if (long_links_)
    for (uint32_t m = flit_ports_ & ((1u << kNumNetPorts) - 1); m; m &= m - 1)
      in_link_[__builtin_ctz(m)]->prefetch_arrival(clk_.now());
  const InVc* in = in_.data();
  const Entry* e = &entries_[0];
  for (uint32_t pm = sa_ports_; pm; pm &= pm - 1) {
    const int p = __builtin_ctz(pm);
    for (uint32_t m = sa_wait_[p]; m; m &= m - 1) {
      const InVc& q = in[p * vcs_ + __builtin_ctz(m)];
      const size_t base = (size_t)(&q - in) * buf_;
      __builtin_prefetch(e + base + q.head, 1);
      int back = q.head + q.count;
      if (back >= q.cap) back -= q.cap;
      __builtin_prefetch(e + base + back, 1);
    }
  }
}

// The earliest cycle a flit in flight toward this router arrives in (Link::next_arrival):
// an idle router sleeps until then rather than waiting out a long link cycle by cycle.
Cycle Router::next_arrival(Cycle now) const {
  Cycle t = kNever;
  for (uint32_t m = flit_ports_; m; m &= m - 1) t = std::min(t, in_link_[__builtin_ctz(m)]->next_arrival(now));
  return t;
}

void Router::violation(const std::string& what) {
  if (!violations_++) {
    std::ostringstream m;
    m << "router " << id_ << " cycle " << clk_.now() << ": " << what;
    first_violation_ = m.str();
  }
}

// Applies every credit that has arrived by `now` (several if the router slept).
void Router::receive_credits(Cycle now) {
  for (uint32_t m = credit_ports_; m; m &= m - 1) {
    const int p = __builtin_ctz(m);
    OutVc* out = &out_[p * vcs_];
    out_link_[p]->receive_credits(now, [&](int v) {
      if (v >= vcs_ || ++out[v].credits > buf_) bad_credit(p, v);
    });
  }
}

// A credit for a nonexistent VC, or one more than the buffer depth (already counted).
void Router::bad_credit(int p, int v) {
  if (v >= vcs_) {
    violation(std::string("credit for nonexistent vc ") + std::to_string(v) + " on output " +
              port_name((Port)p));
    return;
  }
  violation(std::string("credit count above buffer depth on output ") + port_name((Port)p) +
            " vc " + std::to_string(v));
  ovc(p, v).credits = (int16_t)buf_;
}

// Buffer write and route computation: a head flit looks up its route as it is written.
void Router::receive_flits(Cycle now) {
  for (uint32_t m = flit_ports_; m; m &= m - 1) {
    const int p = __builtin_ctz(m);
    Link* l = in_link_[p];
    const Flit* fp = l->arrive(now);
    if (!fp) continue;
    const Flit& f = *fp;  // valid until the link's slot is reused, cycles from now
    // Fast path: a flit that starts a packet in a closed VC (or continues the one open
    // there) with a free slot and, for a head, a route. Anything else goes through the
    // monitors of admit_slow(), which report it and may drop it.
    bool fine = f.vc < vcs_;
    if (fine) {
      const InVc& q = ivc(p, f.vc);
      if (q.count == q.cap) fine = false;
      else if (f.head()) fine = !q.open && f.seq == 0 && table_.lookup(f.dst).port != kNoRoute;
      else fine = q.open && f.src == q.open_src && f.packet == q.open_packet && f.seq == q.open_seq + 1;
    }
    if (!fine && !admit_slow(p, f, now)) continue;
    InVc& q = ivc(p, f.vc);
    if (fine) {
      if (f.head()) {
        q.open = !f.tail();
        q.open_src = f.src;
        q.open_packet = f.packet;
        q.open_seq = 0;
      } else {
        q.open_seq = f.seq;
        if (f.tail()) q.open = false;
      }
    }
    occ_update(q, now);
    int slot = q.head + q.count;
    if (slot >= q.cap) slot -= q.cap;
    Entry& e = entries_[slot_base(q) + slot];
    e.flit = f;
    q.back_ready = now + reg_rc_;
    if (f.head()) {
      e.route = table_.lookup(f.dst);
      if (e.route.port == kLocal) e.route.port = (uint8_t)(kLocal + lane_of(p, lanes_));
    }
    if (q.state == kIdle) va_mark(p, f.vc);
    else if (q.count == 0) sa_arm(q, p, f.vc);  // the flit its packet waited for
    ++q.count;
    ++buffered_;
  }
}

// The input monitors for a flit the fast path of receive_flits() did not accept: reports
// every violation it shows and returns whether the flit is still written into the buffer
// (the packet-order state of its VC updated as for any flit).
bool Router::admit_slow(int p, const Flit& f, Cycle now) {
  if (f.vc >= vcs_) {
    violation("flit on nonexistent vc " + std::to_string(f.vc) + " at input " + port_name((Port)p));
    return false;
  }
  InVc& q = ivc(p, f.vc);
  bool ok = true;
  if (q.count == buf_) {
    violation(std::string("buffer overflow at input ") + port_name((Port)p) + " vc " +
              std::to_string(f.vc));
    return false;  // no slot: the flit is lost (flow control was broken upstream)
  }
  if (q.count == q.cap) grow(q);
  if (f.head()) {
    if (q.open) { violation("head flit interleaved into an open packet"); ok = false; }
    if (f.seq != 0) { violation("head flit with seq != 0"); ok = false; }
    q.open = !f.tail();
    q.open_src = f.src;
    q.open_packet = f.packet;
    q.open_seq = 0;
  } else if (!q.open || f.src != q.open_src || f.packet != q.open_packet ||
             f.seq != q.open_seq + 1) {
    violation("body/tail flit that does not continue the packet open in its VC");
    ok = false;
  } else {
    q.open_seq = f.seq;
    if (f.tail()) q.open = false;
  }
  if (f.head() && table_.lookup(f.dst).port == kNoRoute) {
    violation("head flit for chip " + std::to_string(f.dst) + ", which has no route");
    ok = false;
  }
  if (!ok) {  // drop it, but give the buffer slot back to the sender
    in_link_[p]->send_credit(f.vc, now);
    return false;
  }
  return true;
}

void Router::grow(InVc& q) {
  const int cap = q.cap, next = std::min(2 * cap, buf_);
  Entry* r = &entries_[slot_base(q)];
  // The flits are r[head..cap) then r[0..head). Either the wrapped part moves up to
  // r[cap..cap+head) (room for it), or the first part moves to the end of the new ring.
  if (cap + q.head <= next) {
    for (int i = 0; i < q.head; ++i) r[cap + i] = r[i];
  } else {
    for (int i = cap - 1; i >= q.head; --i) r[i + next - cap] = r[i];
    q.head = (uint16_t)(q.head + next - cap);
  }
  q.cap = (uint16_t)next;
}

// Separable input-first VC allocation. Stage 1: each idle input VC whose front head flit
// is ready picks one free output VC allowed by its route (round-robin from its va_ptr).
// Stage 2: each requested output VC grants one requester (round-robin over input VCs
// numbered port * V + vc, from va_out_ptr_).
void Router::vc_allocate(Cycle now) {
  struct Req {
    uint8_t ovc, ivc;
  };
  Req req[kMaxPorts * kMaxVcs];
  int n = 0;
  for (uint32_t pm = va_ports_; pm; pm &= pm - 1) {
    const int p = __builtin_ctz(pm);
    for (uint32_t m = va_wait_[p]; m; m &= m - 1) {
      const int v = __builtin_ctz(m);
      InVc& q = ivc(p, v);
      if (front_ready(q) > now) continue;
      const Entry& e = front(q);
      const uint32_t cand = e.route.vc_mask & free_[e.route.port];
      if (!cand) continue;
      const int w = rr_pick(cand, q.va_ptr);
      req[n++] = {(uint8_t)(e.route.port * vcs_ + w), (uint8_t)(p * vcs_ + v)};
      if (!islip_) q.va_ptr = (uint8_t)next_mod(w, vcs_);
    }
  }
  const int nivc = ports_ * vcs_;
  for (int i = 0; i < n; ++i) {
    if (req[i].ovc == 0xff) continue;
    const int o = req[i].ovc;
    const int ptr = va_out_ptr_[o];
    // Distance from the pointer, cyclically: the smallest wins.
    auto key_of = [&](int ivc) { return ivc >= ptr ? ivc - ptr : ivc - ptr + nivc; };
    int best = i, best_key = key_of(req[i].ivc);
    for (int j = i + 1; j < n; ++j) {
      if (req[j].ovc != o) continue;
      const int key = key_of(req[j].ivc);
      if (key < best_key) { best = j; best_key = key; }
      req[j].ovc = 0xff;  // handled with this output VC
    }
    const int win = req[best].ivc;
    const int op = o / vcs_, ow = o % vcs_;
    InVc& q = in_[win];
    q.state = kActive;
    va_unmark(win / vcs_, win % vcs_);
    q.out_port = (uint8_t)op;
    q.out_vc = (uint8_t)ow;
    q.out_idx = (uint16_t)o;
    q.sa_ready = now + reg_va_;
    sa_arm(q, win / vcs_, win % vcs_);
    if (islip_) q.va_ptr = (uint8_t)next_mod(ow, vcs_);
    free_[op] &= (uint16_t)~(1u << ow);
    va_out_ptr_[o] = (uint8_t)next_mod(win, nivc);
  }
}

// Separable input-first switch allocation, then switch traversal of the winners.
// Stage 1: each input port picks one eligible VC (active, front flit ready, credit
// available downstream) round-robin from sa_in_ptr_. Stage 2: each output port grants
// one requesting input port round-robin from sa_out_ptr_. A winner leaves its buffer
// now (credit sent upstream now) and enters the output link now + reg_sa_.
void Router::switch_allocate(Cycle now) {
  int pick[kMaxPorts];
  uint32_t want[kMaxPorts] = {};
  uint32_t outs = 0;  // output ports with a request
  const InVc* in = &in_[0];
  for (uint32_t pm = sa_ports_; pm; pm &= pm - 1) {
    const int p = __builtin_ctz(pm);
    const InVc* qp = in + p * vcs_;
    uint32_t elig = 0;
    for (uint32_t m = sa_wait_[p]; m; m &= m - 1) {
      const int v = __builtin_ctz(m);
      const InVc& q = qp[v];
      if (q.sa_at > now) continue;  // VA'd too recently, or the front flit is not ready
      if (out_[q.out_idx].credits <= 0) continue;
      elig |= 1u << v;
    }
    if (!elig) continue;
    const int v = rr_pick(elig, sa_in_ptr_[p]);
    pick[p] = v;
    const int o = ivc(p, v).out_port;
    want[o] |= 1u << p;
    outs |= 1u << o;
    if (!islip_) sa_in_ptr_[p] = (uint8_t)next_mod(v, vcs_);
  }
  for (; outs; outs &= outs - 1) {
    const int o = __builtin_ctz(outs);
    const int p = rr_pick(want[o], sa_out_ptr_[o]);
    sa_out_ptr_[o] = (uint8_t)next_mod(p, ports_);
    const int v = pick[p];
    if (islip_) sa_in_ptr_[p] = (uint8_t)next_mod(v, vcs_);
    // Traverse: pop from the input VC, return its credit, forward on the output VC.
    InVc& q = ivc(p, v);
    Flit f = front(q).flit;
    occ_update(q, now);
    q.head = (uint16_t)next_mod(q.head, q.cap);
    --q.count;
    --buffered_;
    in_link_[p]->send_credit(v, now);
    --out_[q.out_idx].credits;
    f.vc = q.out_vc;
    out_link_[o]->send(f, now + reg_sa_);
    ++switched_;
    if (f.tail()) {
      q.state = kIdle;
      q.sa_ready = kNever;
      sa_disarm(q, p, v);
      if (q.count) va_mark(p, v);  // the next packet's head waits for VA
      free_[o] |= (uint16_t)(1u << q.out_vc);
    } else if (q.count) {
      sa_arm(q, p, v);  // the next flit of the packet is at the front
    } else {
      sa_disarm(q, p, v);  // the rest of the packet has not arrived
    }
  }
}

void Router::csr_access(tlm::tlm_generic_payload& tx, sc_core::sc_time& delay) {
  (void)delay;
  const uint64_t a = tx.get_address();
  if (tx.get_data_length() != 4 || a % 4 || a / 4 >= (uint64_t)table_.size()) {
    tx.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  const ChipId d = (ChipId)(a / 4);
  uint32_t w;
  if (tx.is_read()) {
    w = route_word(table_.lookup(d));
    std::memcpy(tx.get_data_ptr(), &w, 4);
  } else {
    std::memcpy(&w, tx.get_data_ptr(), 4);
    RouteEntry e;
    if (!route_from_word(w, &e) ||
        route_entry_fault(e, vcs_, connected_ports(out_link_)) != RouteEntryFault::kNone) {
      tx.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
      return;
    }
    table_.set(d, e);
  }
  tx.set_response_status(tlm::TLM_OK_RESPONSE);
}

uint64_t Router::kill() {
  const uint64_t lost = flush();
  dead_ = true;
  return lost;
}

void Router::output_failed(Port p) {
  failed_outs_ |= 1u << p;
  for (int v = 0; v < vcs_; ++v) ovc(p, v).credits = INT16_MAX / 2;
}

uint64_t Router::flush() {
  const Cycle now = clk_.now();
  const uint64_t lost = buffered_;
  for (int p = 0; p < ports_; ++p) {
    for (int v = 0; v < vcs_; ++v) {
      InVc& q = ivc(p, v);
      occ_update(q, now);
      q.head = q.count = 0;
      q.state = kIdle;
      q.sa_ready = q.sa_at = kNever;
      q.open = false;
    }
    sa_wait_[p] = va_wait_[p] = 0;
    if (out_link_[p]) {
      free_[p] = all_vcs_mask(vcs_);
      for (int v = 0; v < vcs_; ++v)
        ovc(p, v).credits = (failed_outs_ >> p) & 1 ? INT16_MAX / 2 : (int16_t)buf_;
    }
  }
  sa_ports_ = va_ports_ = 0;
  buffered_ = 0;
  return lost;
}

uint64_t Router::occupancy_integral(Port p, int v, Cycle now) const {
  const InVc& q = ivc(p, v);
  return q.occ_integral + (uint64_t)q.count * (now - q.occ_since);
}

std::string Router::describe_stuck() const {
  std::ostringstream s;
  for (int p = 0; p < ports_; ++p) {
    for (int v = 0; v < vcs_; ++v) {
      const InVc& q = ivc(p, v);
      if (!q.count) continue;
      const Entry& e = entries_[slot_base(q) + q.head];
      s << "  router " << id_ << " input " << port_name((Port)p) << " vc " << v << ": "
        << q.count << " flit(s), front packet " << e.flit.src << "#" << e.flit.packet
        << " -> " << e.flit.dst << " seq " << e.flit.seq;
      if (q.state == kActive) {
        s << ", holds output " << port_name((Port)q.out_port) << " vc " << (int)q.out_vc
          << " with " << ovc(q.out_port, q.out_vc).credits << " credit(s)";
      } else {
        s << ", waiting for an output VC on " << port_name((Port)e.route.port)
          << " (free mask 0x" << std::hex << free_[e.route.port] << std::dec << ")";
      }
      s << "\n";
    }
  }
  return s.str();
}

}  // namespace fm
