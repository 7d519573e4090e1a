// The virtual-channel router of one chip: 4 ICI ports + 1..4 local ports (lanes), V VCs per input
// port with B-flit buffers, wormhole switching, credit-based flow control, table
// routing, separable input-first VC and switch allocation with round-robin or
// iSLIP-style pointer updates, and a configurable 1..4 cycle pipeline.
//
// The Clock calls evaluate() once per cycle while the router is awake; it runs the whole
// cycle as a fixed sequence of member functions (receive credits, receive flits + route
// lookup, VC allocation, switch allocation + traversal). It sleeps when it holds no flits
// and nothing is in flight toward it (models/noc/clock.h). docs/router-microarchitecture.md is the cycle-exact specification.
//
// It implements RouterBase (models/noc/router_base.h), the Network's view of a router, and is
// final, so calls through Router& are direct; the per-cycle path calls no virtual function.
#pragma once
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

#include "models/config.h"
#include "models/noc/clock.h"
#include "models/noc/lazy_array.h"
#include "models/noc/link.h"
#include "models/noc/router_base.h"
#include "models/route_table.h"

namespace fm {

class Router final : public RouterBase {
 public:
  Router(sc_core::sc_module_name name, const NetworkConfig& cfg, ChipId id, Clock& clk);

  // Links entering (flits in, credits out) and leaving (flits out, credits in) port p.
  void connect_in(Port p, Link* l) override { in_link_[p] = l; }
  void connect_out(Port p, Link* l) override;
  // Installs the route table. Every entry must name a connected port and a non-empty
  // subset of the VCs; returns an error message otherwise ("" when accepted).
  std::string load_table(const RouteTable& t) override;

  ChipId id() const { return id_; }
  // The output port of the route to `dst` as the table names it (kLocal for this chip,
  // kNoRoute for a dead one); the NI uses it to pick a packet's injection lane.
  uint8_t route_port(ChipId dst) const { return table_.lookup(dst).port; }
  int ports() const { return ports_; }
  // Statistics and invariant monitors.
  uint64_t flits_switched() const override { return switched_; }
  int buffered_flits() const override { return buffered_; }
  // Time integral of the occupancy of input VC (p, v) up to cycle `now` (flit-cycles).
  uint64_t occupancy_integral(Port p, int v, Cycle now) const override;
  // Credits the router holds for output VC (p, v).
  int credits(Port p, int v) const { return ovc(p, v).credits; }
  uint64_t violations() const override { return violations_; }
  const std::string& first_violation() const override { return first_violation_; }
  // One line per non-empty input VC: where flits are stuck (watchdog report).
  std::string describe_stuck() const override;

  // --- read-only views for the waveform tracer (tb/tracer.cpp) --------------------------
  // Side-effect free; the tracer samples them after the router has evaluated a cycle.
  int vcs() const { return vcs_; }
  int buf() const { return buf_; }
  // The ring size in use of input VC (p, vc): at most buf().
  int ring_slots(Port p, int vc) const { return in_[(size_t)p * vcs_ + vc].cap; }
  // Sets every VC ring's first size (KernelOptions::first_ring_slots; the constructor
  // uses the default). Before the first cycle only, while every ring is empty.
  void set_first_ring_slots(int slots);
  // Bytes of one buffered flit slot (its entry): the memory estimate (tb/memory.cpp).
  static constexpr size_t entry_bytes() { return sizeof(Entry); }
  const Link* in_link(Port p) const { return in_link_[p]; }
  const Link* out_link(Port p) const { return out_link_[p]; }
  // Input VC (p, v): ACTIVE (holds an output VC), flits buffered, and the output port
  // and VC it holds (meaningful while ACTIVE).
  bool vc_active(Port p, int v) const { return ivc(p, v).state == kActive; }
  int vc_occupancy(Port p, int v) const { return ivc(p, v).count; }
  int vc_out_port(Port p, int v) const { return ivc(p, v).out_port; }
  int vc_out_vc(Port p, int v) const { return ivc(p, v).out_vc; }
  // Output VC (p, w) is allocated to a packet (false on an unconnected port).
  bool out_vc_allocated(Port p, int w) const { return out_link_[p] && !((free_[p] >> w) & 1); }
  // --- end of the tracer's views ---------------------------------------------------------

  // --- faults and reconfiguration (models/fault/fault_controller.h, docs/faults.md) ------
  // Route-table window: the 32-bit word at byte address 4 * dst is the entry for dst
  // (bits 0..7 port, 8..23 VC mask: the RouteEntry format). A write takes effect for head
  // flits routed after it; the controller only writes while the network is quiesced.
  tlm_utils::simple_target_socket_optional<Router> csr;  // unbound when nothing fails mid-run
  // The chip died: the buffered flits are lost (their number is returned) and the router
  // never evaluates again.
  uint64_t kill();
  bool dead() const { return dead_; }
  // The link leaving port p failed: what is switched to it is lost in the link (counted
  // there), so the port never runs out of credits and traffic toward it drains.
  void output_failed(Port p);
  // Reconfiguration flush: drops every buffered flit (their number is returned) and
  // returns VC, allocation and credit state to reset; the route table is kept. Only
  // meaningful when every router and link is flushed in the same cycle.
  uint64_t flush();

 private:
  // A buffered flit and, for a head flit, the route looked up when it was written (RC is
  // done at buffer write). 32 bytes, two to a cache line: the cycle a flit may first
  // take part in allocation is kept per VC for the newest flit only (InVc::back_ready).
  struct alignas(32) Entry {
    Flit flit;
    RouteEntry route;
  };
  enum VcState : uint8_t { kIdle = 0, kActive = 1 };
  // One cache line (the fields are ordered to fill it exactly).
  // Its slots in entries_ start at (index of the VC in in_) x buf_ (slot_base()). The
  // ring uses the first `cap` of them: it starts at min(buf_, KernelOptions::first_ring_slots) slots and
  // doubles (up to buf_) when a flit arrives to a full ring (grow()). A VC whose
  // occupancy stays low, as most do when buffers are sized for a long link's credit
  // round trip, keeps its flits in a few cache lines and never touches the rest of its
  // slots, so the pages behind them are never allocated (entries_ is LazyArray).
  struct alignas(64) InVc {
    uint16_t head = 0, count = 0;  // ring buffer position inside entries_
    VcState state = kIdle;
    uint8_t out_port = 0, out_vc = 0;
    uint8_t va_ptr = 0;            // round-robin pointer over output VCs (VA stage 1)
    uint16_t out_idx = 0;          // out_ index of (out_port, out_vc) while ACTIVE
    uint16_t open_seq = 0;         // monitor: seq of the last flit of the open packet
    // Monitors: the packet whose flits are being written into this VC.
    bool open = false;
    uint16_t cap = 0;              // ring size in use, <= buf_ (set by the constructor)
    ChipId open_src = 0;
    uint32_t open_packet = 0;
    Cycle sa_ready = kNever;       // first cycle the packet may bid for the switch (kNever: IDLE)
    // First cycle the front flit may bid for the switch: max(sa_ready, front flit's
    // ready); kNever while IDLE or empty. Kept up to date whenever the front flit or
    // sa_ready changes, so SA reads one word per VC instead of the buffer entry.
    Cycle sa_at = kNever;
    // First cycle the newest flit may take part in allocation (written + RC register).
    // Only the newest flit can still be waiting for that cycle: at most one flit is
    // written per VC per cycle, so every older one was written in an earlier cycle and
    // is ready by now (front_ready()).
    Cycle back_ready = 0;
    uint64_t occ_integral = 0;
    Cycle occ_since = 0;
  };
  struct OutVc {
    int16_t credits = 0;  // free slots in the downstream input VC buffer
  };

  // One cycle, called by the Clock while the router is awake.
  void evaluate() override;
  void prefetch() const override;
  void prefetch_late() const override;
  uint64_t work() const override { return cycles_evaluated() + kFlitWork * switched_; }
  void csr_access(tlm::tlm_generic_payload& tx, sc_core::sc_time& delay);
  void receive_credits(Cycle now);
  void receive_flits(Cycle now);
  // Rare paths kept out of line, so the per-flit loops keep their registers.
  [[gnu::cold, gnu::noinline]] bool admit_slow(int p, const Flit& f, Cycle now);
  // q's ring is full and smaller than buf_: doubles it (at most to buf_), keeping the
  // flits in order from q.head.
  [[gnu::cold, gnu::noinline]] void grow(InVc& q);
  [[gnu::cold, gnu::noinline]] void bad_credit(int p, int v);
  void vc_allocate(Cycle now);
  void switch_allocate(Cycle now);
  Cycle next_arrival(Cycle now) const;
  void violation(const std::string& what);
  void occ_update(InVc& q, Cycle now) {
    q.occ_integral += (uint64_t)q.count * (now - q.occ_since);
    q.occ_since = now;
  }

  InVc& ivc(int p, int v) { return in_[p * vcs_ + v]; }
  // entries_ index of q's first slot (its VC's index times the depth).
  size_t slot_base(const InVc& q) const { return (size_t)(&q - in_.data()) * buf_; }
  const InVc& ivc(int p, int v) const { return in_[p * vcs_ + v]; }
  OutVc& ovc(int p, int v) { return out_[p * vcs_ + v]; }
  const OutVc& ovc(int p, int v) const { return out_[p * vcs_ + v]; }
  Entry& front(const InVc& q) { return entries_[slot_base(q) + q.head]; }
  // The cycle the front flit of q may first take part in allocation, as far as any
  // comparison with the current or a later cycle can tell: exact when it is the newest
  // flit (count <= 1; 0 while the one just written is not counted yet), else 0, since an
  // older flit is ready by now.
  static Cycle front_ready(const InVc& q) { return q.count <= 1 ? q.back_ready : 0; }
  // Input VC (p, v) of ACTIVE VC q holds a front flit: it takes part in SA from sa_at.
  void sa_arm(InVc& q, int p, int v) {
    const Cycle r = front_ready(q);
    q.sa_at = r > q.sa_ready ? r : q.sa_ready;
    sa_wait_[p] |= (uint16_t)(1u << v);
    sa_ports_ |= 1u << p;
  }
  // Input VC (p, v) has no flit that may bid for the switch (empty or IDLE).
  void sa_disarm(InVc& q, int p, int v) {
    q.sa_at = kNever;
    if (!(sa_wait_[p] &= (uint16_t)~(1u << v))) sa_ports_ &= ~(1u << p);
  }

  void va_mark(int p, int v) {
    va_wait_[p] |= (uint16_t)(1u << v);
    va_ports_ |= 1u << p;
  }
  void va_unmark(int p, int v) {
    if (!(va_wait_[p] &= (uint16_t)~(1u << v))) va_ports_ &= ~(1u << p);
  }

  // The fields are ordered by use: what every evaluated cycle reads in the first line,
  // the allocators' bitmasks and pointers in the second, the link pointers in the next
  // two, then the storage pointers. On a 32x32 torus every line a cycle touches is a
  // cache miss, and scattered they cost a line each.
  alignas(64) bool dead_ = false;
  const bool islip_;
  const bool long_links_;  // the ICI links' rings are on the heap (Link::heap_ring)
  int buffered_ = 0;
  // Input VCs that are ACTIVE and hold a flit (sa_at != kNever), per port (sa_wait_), and
  // the ports that have any: SA looks at nothing else.
  uint32_t sa_ports_ = 0;
  // Input VCs that are idle and hold flits (a head waits for VC allocation), per port
  // (va_wait_), and the ports that have any: VA looks at nothing else.
  uint32_t va_ports_ = 0;
  const int vcs_, buf_;
  const int reg_rc_, reg_va_, reg_sa_;  // 1 where a pipeline register follows RC / VA / SA
  const int ports_, lanes_;       // 4 + local lanes
  uint64_t switched_ = 0;
  const ChipId id_;
  alignas(64) uint16_t sa_wait_[kMaxPorts] = {};
  uint16_t va_wait_[kMaxPorts] = {};
  uint16_t free_[kMaxPorts] = {};      // per output port: output VCs not allocated
  uint8_t sa_in_ptr_[kMaxPorts] = {};  // switch allocation, stage 1 (over VCs)
  uint8_t sa_out_ptr_[kMaxPorts] = {}; // switch allocation, stage 2 (over input ports)
  Link* in_link_[kMaxPorts] = {};
  Link* out_link_[kMaxPorts] = {};
  std::vector<InVc> in_;          // [port][vc]
  std::vector<OutVc> out_;        // [port][vc]
  LazyArray<Entry> entries_;      // [port][vc][slot]: buf_ slots reserved per VC
  RouteTable table_;
  std::vector<uint8_t> va_out_ptr_;    // [port][vc]: VA stage 2 (over input VCs)
  uint32_t failed_outs_ = 0;           // output ports whose link failed
  uint64_t violations_ = 0;
  std::string first_violation_;
};

}  // namespace fm
