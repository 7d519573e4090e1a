// Network interface of one chip: packetisation into head/body/tail flits, injection
// into the router's local input ports (one flit per cycle per lane, credit flow
// control, one packet at a time per lane), ejection from the router's local output
// ports with reassembly checks, and latency bookkeeping.
//
// Packets come either from a PacketSource (synthetic traffic: the NI pulls them when
// they are due) or are pushed by the chip's collective engine with send() (the engine
// then supplies payload words and consumes ejected flits through PacketEndpoint).
// With several local lanes (NetworkConfig::local_ports) a packet is injected on the
// lane of its first hop's direction (lane_of()), so a chip can feed all its links at
// once.
//
// The ejection side always has room: each ejected flit's credit goes back to the router
// in the cycle the flit arrives.
#pragma once
#include <algorithm>
#include <string>
#include <systemc>
#include <vector>

#include "models/config.h"
#include "models/noc/clock.h"
#include "models/noc/link.h"

namespace fm {

class Router;

// Where packets come from (synthetic traffic in tb/).
class PacketSource {
 public:
  virtual ~PacketSource() = default;
  // Cycle at which the next packet is created, kNever when there is none.
  virtual Cycle next_time() const = 0;
  // Creates the packet due at next_time() and advances next_time().
  virtual void pop(ChipId* dst, int* size) = 0;
};

// The unit behind the NI that owns the data (the collective engine of models/chip/).
class PacketEndpoint {
 public:
  virtual ~PacketEndpoint() = default;
  // Payload of flit `seq` of the packet sent with `tag` (read as the flit is injected).
  virtual uint64_t payload(uint64_t tag, uint16_t seq) = 0;
  // The last flit of the packet sent with `tag` was injected in cycle `now`.
  virtual void injected(uint64_t tag, Cycle now) = 0;
  // A flit ejected at this chip in cycle `now`; `slot` identifies its reassembly
  // context (lane * VCs + VC): the flits of one packet arrive in order on one slot.
  virtual void ejected(const Flit& f, int slot, Cycle now) = 0;
};

// Per-NI statistics; the network sums them in chip order. Flits and packets
// delivered count at the destination; the latencies of the packets an NI created (and
// measured_packets) at that source NI, which keeps their records.
struct NiStats {
  uint64_t packets_created = 0, flits_created = 0;
  uint64_t flits_injected = 0, flits_ejected = 0, packets_delivered = 0;
  uint64_t window_flits_created = 0;   // created inside the measurement window
  uint64_t window_flits_ejected = 0;   // ejected inside the measurement window
  uint64_t measured_packets = 0;       // created here in the window and delivered
  uint64_t latency_sum = 0, network_latency_sum = 0;
  std::vector<uint32_t> latencies;     // packet latencies of measured packets
  std::vector<uint32_t> network_latencies;
};

// One flit ejected: at chip `chip` in cycle `at` (NetworkInterface::set_eject_log).
struct EjectRecord {
  Cycle at;
  ChipId chip, src;
  uint32_t packet;
  uint16_t seq;
};

// Records keyed by packet id (R has a uint32_t `packet`): the NI's packets in flight.
// Open addressing on the id's low bits (ids are handed out in sequence, so they rarely
// collide), linear probing, backward-shift deletion; at least twice as many slots as
// entries. A pointer from find() or insert() is valid until the next insert or erase.
template <class R>
class PacketTable {
 public:
  R& insert(uint32_t packet) {  // packet must not be present
    if (2 * (n_ + 1) > slot_.size()) grow();
    uint32_t i = packet & mask_;
    while (used_[i]) i = (i + 1) & mask_;
    used_[i] = 1;
    ++n_;
    slot_[i].packet = packet;
    return slot_[i];
  }
  R* find(uint32_t packet) {
    if (slot_.empty()) return nullptr;
    for (uint32_t i = packet & mask_;; i = (i + 1) & mask_) {
      if (!used_[i]) return nullptr;
      if (slot_[i].packet == packet) return &slot_[i];
    }
  }
  // Backward shift: the entries after the hole that probed past it move up, so every
  // lookup still meets its entry before an empty slot.
  void erase(R* r) {
    uint32_t i = (uint32_t)(r - slot_.data());
    used_[i] = 0;
    --n_;
    for (uint32_t j = (i + 1) & mask_; used_[j]; j = (j + 1) & mask_) {
      const uint32_t home = slot_[j].packet & mask_;
      // Entry j stays if its home slot lies cyclically in (i, j].
      const bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
      if (stays) continue;
      slot_[i] = slot_[j];
      used_[i] = 1;
      used_[j] = 0;
      i = j;
    }
  }
  void clear() {
    std::fill(used_.begin(), used_.end(), 0);
    n_ = 0;
  }
  size_t size() const { return n_; }

 private:
  void grow() {
    std::vector<R> old;
    std::vector<uint8_t> used;
    old.swap(slot_);
    used.swap(used_);
    const size_t cap = std::max<size_t>(64, 2 * old.size());
    slot_.resize(cap);
    used_.assign(cap, 0);
    mask_ = (uint32_t)(cap - 1);
    n_ = 0;
    for (size_t i = 0; i < old.size(); ++i)
      if (used[i]) insert(old[i].packet) = old[i];
  }
  std::vector<R> slot_;
  std::vector<uint8_t> used_;
  uint32_t mask_ = 0;
  size_t n_ = 0;
};

class NetworkInterface : public sc_core::sc_module, public Clocked {
 public:
  NetworkInterface(sc_core::sc_module_name name, const NetworkConfig& cfg, ChipId id,
                   Clock& clk);

  // inject[l]: NI -> router local input lane l; eject[l]: router local output l -> NI.
  // router: this chip's router (for the first hop of a packet); peers: every NI of the
  // network indexed by chip id (to find a packet's record).
  void connect(std::vector<Link*> inject, std::vector<Link*> eject, const Router* router,
               const std::vector<NetworkInterface*>* peers);
  void set_source(PacketSource* s);
  // slots, stride: where the endpoint keeps the state an ejected flit of reassembly slot
  // k reads (slots + k * stride), for prefetch hints only (nullptr: none).
  void set_endpoint(PacketEndpoint* e, const void* slots = nullptr, size_t stride = 0) {
    ep_ = e;
    ep_slots_ = static_cast<const char*>(slots);
    ep_stride_ = stride;
  }
  // Appends every flit this NI ejects to `log` (nullptr, the default: no log). For runs
  // compared flit by flit (the mesh-level RTL check, tests/rtl/rtl_mesh_test.cpp).
  void set_eject_log(std::vector<EjectRecord>* log) { eject_log_ = log; }
  // Packet creation on/off (off during drain); the source queues keep draining.
  void set_injection(bool on);
  // Packets created in [from, to) are measured.
  void set_window(Cycle from, Cycle to) { win_from_ = from; win_to_ = to; }
  // Queues a packet of `size` flits to `dst` that may start injection at cycle `ready`
  // (> now). When a lane is free it starts, among its packets that are ready, the one
  // with the lowest `priority` (ties: the one queued first). kFifo (the default) is the
  // queueing order itself, so packets leave in the order they were queued.
  static constexpr uint64_t kFifo = ~0ull;
  void send(ChipId dst, int size, uint64_t tag, Cycle ready, uint64_t priority = kFifo);
  // Queues `count` packets to `dst` at once, as send() would one after the other (a
  // transfer's packets, read from HBM in order): packet k has `size` flits (the last
  // one `last_size`), tag tag0 + k, priority prio0 + k (kFifo: queueing order) and may
  // start from cycle ready[k] (nondecreasing in k). The lane holds only the burst's
  // next packet (it cannot start packet k+1 before k, which comes first in both
  // orders), and records exist only for packets started and not yet delivered: a
  // queued packet costs 4 bytes, not a queue entry and a record (docs/performance.md,
  // "Memory at the paper's sizes").
  void send_burst(ChipId dst, uint32_t count, int size, int last_size, uint64_t tag0,
                  const Cycle* ready, uint64_t prio0 = kFifo);

  // --- faults (models/fault/fault_controller.h) ---
  // The chip died: nothing more is injected or ejected.
  void kill();
  // Abort: packets queued but not started are discarded (never injected); a packet
  // being injected is finished, so no partial packet is left behind.
  void discard_queued();
  // Reconfiguration flush (with every router and link): lane, credit and reassembly
  // state back to reset; packets not fully injected are abandoned; every outstanding
  // packet record is closed (its flits are accounted as dropped by the flush).
  void flush();

  const NiStats& stats() const { return st_; }
  // Packets created but not yet fully injected.
  size_t queued_packets() const;
  uint64_t violations() const { return violations_; }
  const std::string& first_violation() const { return first_violation_; }
  // Expected payload word of flit `seq` of packet (src, packet) (end-to-end data check).
  static uint64_t payload_of(ChipId src, uint32_t packet, uint16_t seq) {
    return ((uint64_t)src << 40) ^ ((uint64_t)packet << 16) ^ seq ^ 0x5a5a000000000000ULL;
  }

 private:
  struct Record {  // a packet started and not yet delivered
    uint32_t packet;
    uint16_t size;
    bool measured;
    Cycle created, injected;
  };
  // Packets queued together (send_burst; send() and a packet source queue bursts of
  // one). Its lane's queue holds one entry for it, the next packet to leave; delay[k-1]
  // is ready(k) - ready0 for k > 0.
  struct Burst {
    ChipId dst = 0;
    uint32_t first = 0, count = 0;  // packet ids first .. first + count - 1
    uint16_t size = 0, last_size = 0;
    bool measured = false;
    Cycle created = 0, ready0 = 0;
    uint64_t tag0 = 0, prio0 = 0;  // prio0 = kFifo: the packet id is the priority
    std::vector<uint32_t> delay;
    Cycle ready(uint32_t k) const { return k ? ready0 + delay[k - 1] : ready0; }
    uint64_t priority(uint32_t k) const { return prio0 == kFifo ? first + k : prio0 + k; }
  };
  struct Reassembly {
    ChipId src = 0;
    uint32_t packet = 0;
    uint16_t seq = 0;
    bool open = false;
  };
  // One lane's ejection side: its link and the reassembly state of each of its VCs, so
  // an ejected flit reads one cache line here (with up to 4 VCs).
  struct alignas(64) EjectLane {
    Link* ej = nullptr;
    Reassembly r[kMaxVcs];
  };
  struct Queued {
    uint32_t packet, burst;  // burst: index into bursts_
    Cycle ready;
    uint64_t priority;
  };
  // A lane's packets waiting for injection: those not yet ready in a heap on (ready,
  // packet), those ready in a heap on (priority, packet). A packet moves from the first
  // to the second in the cycle it becomes ready, so a lane starts the most urgent ready
  // packet without scanning the rest (the engine's schedule order: an earlier phase's
  // transfer is not held up behind a later phase's that happened to be read first).
  class LaneQueue {
   public:
    void push(const Queued& q) { heap_push(waiting_, q, by_ready); }
    // Moves the packets ready at `now`; returns whether one can start.
    bool ready(Cycle now) {
      while (!waiting_.empty() && waiting_.front().ready <= now)
        heap_push(eligible_, heap_pop(waiting_, by_ready), by_priority);
      return !eligible_.empty();
    }
    Queued pop() { return heap_pop(eligible_, by_priority); }  // after ready() = true
    // The cycle the next packet becomes ready (after ready(now) = false); kNever: none.
    Cycle next_ready() const { return waiting_.empty() ? kNever : waiting_.front().ready; }
    bool empty() const { return waiting_.empty() && eligible_.empty(); }
    void clear() { waiting_.clear(), eligible_.clear(); }

   private:
    // Heap comparators ("a after b"): the heaps' fronts are the least.
    static bool by_ready(const Queued& a, const Queued& b) {
      return a.ready != b.ready ? a.ready > b.ready : a.packet > b.packet;
    }
    static bool by_priority(const Queued& a, const Queued& b) {
      return a.priority != b.priority ? a.priority > b.priority : a.packet > b.packet;
    }
    template <class C> static void heap_push(std::vector<Queued>& h, const Queued& q, C c) {
      h.push_back(q);
      std::push_heap(h.begin(), h.end(), c);
    }
    template <class C> static Queued heap_pop(std::vector<Queued>& h, C c) {
      std::pop_heap(h.begin(), h.end(), c);
      const Queued q = h.back();
      h.pop_back();
      return q;
    }
    std::vector<Queued> waiting_, eligible_;
  };
  // One local lane's injection side: its link and the state of its current packet. What
  // an injected flit touches is in the first cache line.
  struct alignas(64) Lane {
    Link* inj = nullptr;
    // The current packet's tag, destination and length, from its burst when its
    // injection starts.
    uint64_t tag = 0;
    uint32_t cur = 0;
    ChipId dst = 0;
    uint16_t seq = 0;
    uint16_t size = 0;
    bool active = false;            // a packet is being injected
    uint8_t vc = 0, vc_ptr = 0;
    int16_t credits[kMaxVcs] = {};  // per local-input VC of the router
    LaneQueue queue;                // packets waiting for injection
  };
  void reset_credits(Lane& l) {
    for (int v = 0; v < vcs_; ++v) l.credits[v] = (int16_t)buf_;
  }
  // One cycle, called by the Clock while the NI is awake.
  void evaluate() override;
  void prefetch() const override;
  void prefetch_late() const override;
  uint64_t work() const override {
    return cycles_evaluated() + kFlitWork * (st_.flits_injected + st_.flits_ejected);
  }
  // Queues a burst; packet k may start from max(ready[k], floor).
  void create(ChipId dst, uint32_t count, int size, int last_size, uint64_t tag0, Cycle created,
              const Cycle* ready, Cycle floor, uint64_t prio0);
  void drop_queued();  // every lane's queue and every burst
  void eject(EjectLane& l, int lane, Cycle now);
  // Injects at most one flit on lane l; returns the cycle it next has work (kNever: none).
  Cycle inject(Lane& l, Cycle now);
  void violation(const std::string& what);
  // The violations whose messages are built from numbers, reported out of line so the
  // per-flit paths keep their registers: a credit for VC v that is nonexistent or one
  // too many, flit f ejected at the wrong chip, or out of order.
  enum BadEvent { kBadCredit, kWrongChip, kOutOfOrder };
  [[gnu::cold, gnu::noinline]] void bad_event(BadEvent what, int v, const Flit* f);
  // The tail of packet (uint32_t)a, flit a >> 32, was ejected in cycle b (Clock::post
  // from the destination NI).
  void note(uint64_t a, uint64_t b) override;

  // The fields every cycle or flit reads first (two cache lines with the statistics'
  // counters), then the rest.
  alignas(64) const ChipId id_;
  const int vcs_, buf_;
  uint32_t busy_lanes_ = 0;            // lanes with a packet queued or being injected
  bool inject_on_ = false;
  bool dead_ = false;
  PacketSource* src_ = nullptr;
  PacketEndpoint* ep_ = nullptr;
  Lane* lane_ = nullptr;               // lanes_.data()
  EjectLane* ej_ = nullptr;            // ej_store_.data()
  std::vector<EjectRecord>* eject_log_ = nullptr;
  const char* ep_slots_ = nullptr;     // set_endpoint()
  size_t ep_stride_ = 0;
  Cycle win_from_ = kNever, win_to_ = kNever;
  NiStats st_;
  std::vector<Lane> lanes_;
  std::vector<EjectLane> ej_store_;
  const Router* router_ = nullptr;
  const std::vector<NetworkInterface*>* peers_ = nullptr;
  PacketTable<Record> in_flight_;      // packets started, not yet delivered
  std::vector<Burst> bursts_;          // queued bursts; free slots in free_bursts_
  std::vector<uint32_t> free_bursts_;
  size_t queued_ = 0;                  // packets in the lanes' queues and bursts, not started
  uint32_t next_packet_ = 0;
  uint64_t violations_ = 0;
  std::string first_violation_;
};

}  // namespace fm
