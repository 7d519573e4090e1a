// Network interface of one chip: a source queue fed by a packet source, packetisation
// into head/body/tail flits, injection into the router's local input port (one flit per
// cycle, credit flow control, one packet at a time), ejection from the router's local
// output port with reassembly checks, and latency bookkeeping.
//
// The ejection side always has room: each ejected flit's credit goes back to the router
// in the cycle the flit arrives.
#pragma once
#include <deque>
#include <string>
#include <systemc>
#include <vector>

#include "models/clock.h"
#include "models/config.h"
#include "models/link.h"

namespace fm {

// Where packets come from (synthetic traffic in tb/, collectives in later issues).
class PacketSource {
 public:
  virtual ~PacketSource() = default;
  // Cycle at which the next packet is created, kNever when there is none.
  virtual Cycle next_time() const = 0;
  // Creates the packet due at next_time() and advances next_time().
  virtual void pop(ChipId* dst, int* size) = 0;
};

// Per-NI statistics; the network sums them in chip order.
struct NiStats {
  uint64_t packets_created = 0, flits_created = 0;
  uint64_t flits_injected = 0, flits_ejected = 0, packets_delivered = 0;
  uint64_t window_flits_created = 0;   // created inside the measurement window
  uint64_t window_flits_ejected = 0;   // ejected inside the measurement window
  uint64_t measured_packets = 0;       // created in the window and delivered
  uint64_t latency_sum = 0, network_latency_sum = 0;
  std::vector<uint32_t> latencies;     // packet latencies of measured packets
  std::vector<uint32_t> network_latencies;
};

class NetworkInterface : public sc_core::sc_module, public Clocked {
 public:
  NetworkInterface(sc_core::sc_module_name name, const NetworkConfig& cfg, ChipId id,
                   Clock& clk);
  SC_HAS_PROCESS(NetworkInterface);

  // inject: NI -> router local input; eject: router local output -> NI.
  // peers: every NI of the network indexed by chip id (to find a packet's record).
  void connect(Link* inject, Link* eject, const std::vector<NetworkInterface*>* peers);
  void set_source(PacketSource* s);
  // Packet creation on/off (off during drain); the source queue keeps draining.
  void set_injection(bool on);
  // Packets created in [from, to) are measured.
  void set_window(Cycle from, Cycle to) { win_from_ = from; win_to_ = to; }

  const NiStats& stats() const { return st_; }
  // Packets created but not yet fully injected.
  size_t queued_packets() const { return queue_.size() + (cur_active_ ? 1 : 0); }
  uint64_t violations() const { return violations_; }
  const std::string& first_violation() const { return first_violation_; }
  // Expected payload word of flit `seq` of packet (src, packet) (end-to-end data check).
  static uint64_t payload_of(ChipId src, uint32_t packet, uint16_t seq) {
    return ((uint64_t)src << 40) ^ ((uint64_t)packet << 16) ^ seq ^ 0x5a5a000000000000ULL;
  }

 private:
  struct Record {
    ChipId dst;
    uint16_t size;
    bool measured, delivered;
    Cycle created, injected;
  };
  struct Reassembly {
    bool open = false;
    ChipId src = 0;
    uint32_t packet = 0;
    uint16_t seq = 0;
  };
  void process();
  void eject(Cycle now);
  void inject(Cycle now);
  void violation(const std::string& what);
  Record& record(uint32_t packet) { return records_[packet - base_]; }
  void delivered(uint32_t packet);

  const ChipId id_;
  const int vcs_, buf_;
  Link* inj_ = nullptr;
  Link* ej_ = nullptr;
  const std::vector<NetworkInterface*>* peers_ = nullptr;
  PacketSource* src_ = nullptr;
  bool inject_on_ = false;
  Cycle win_from_ = kNever, win_to_ = kNever;
  std::vector<int> credits_;           // per local-input VC of the router
  std::vector<Reassembly> reasm_;      // per ejection VC
  std::deque<uint32_t> queue_;         // packets waiting for injection
  std::deque<Record> records_;         // packets base_.. not yet delivered (front)
  uint32_t base_ = 0, next_packet_ = 0;
  bool cur_active_ = false;            // a packet is being injected
  uint32_t cur_ = 0;
  uint16_t cur_seq_ = 0;
  uint8_t cur_vc_ = 0, vc_ptr_ = 0;
  NiStats st_;
  uint64_t violations_ = 0;
  std::string first_violation_;
};

}  // namespace fm
