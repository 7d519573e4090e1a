// The collective/DMA engine of a chip and the run state its engines share.
//
// A collective is a Schedule (models/collective/schedule.h): chunk transfers with
// dependencies. Every chip's engine executes its part: when a transfer's send
// dependencies are met it reads the chunk from HBM (TLM-2.0 b_transport, timed by the
// HBM model) and hands it to the network interface as packets of one header flit
// (carrying the transfer id and packet index) and up to ChipConfig::packet_words data
// flits. At the destination the engine takes the packet off the network, waits until
// the transfer's apply dependencies are met, and applies it: a reduce reads the local
// chunk from HBM, adds on the reduction unit (a server of reduce_gbps) and writes the
// sum back; a copy writes it. Completing a transfer releases the transfers depending
// on it. The engine has no process of its own: it acts in the NI's callbacks and in
// the host's register writes, and carries time forward as cycle stamps (loosely-timed
// TLM style), so it costs nothing between packets.
#pragma once
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "models/collective/schedule.h"
#include "models/config.h"
#include "models/noc/ni.h"

namespace fm {

// The state of one collective shared by all engines: per-transfer dependency counters,
// reverse dependency lists, per-chip work lists and phase timing.
class CollectiveRun {
 public:
  // id: tells this run's packets from an aborted run's (8 bits of every header).
  CollectiveRun(std::shared_ptr<const coll::Schedule> s, int chips, int packet_words, uint32_t id = 0);
  uint32_t id() const { return id_; }
  // Progress: data words applied so far (all chips) out of the schedule's total (the
  // fault controller's progress triggers).
  uint64_t applied_words() const {
    uint64_t n = 0;
    for (uint64_t w : applied_by_chip) n += w;
    return n;
  }
  uint64_t total_words = 0;
  // Per phase: first cycle a chunk of it was read for sending, last cycle one was applied.
  Cycle phase_start(size_t p) const;
  Cycle phase_end(size_t p) const;
  bool aborted = false;  // set by the runtime: a new START builds a fresh run
  const coll::Schedule& schedule() const { return *s_; }
  int packets_of(uint32_t x) const {
    return (int)((s_->xfers[x].len + packet_words_ - 1) / packet_words_);
  }
  int packet_words() const { return packet_words_; }
  // A resumed collective (models/collective/resume.h): the run is the continuation, and
  // each chip restores only these ranges (per chip, [first, first + len) words) instead
  // of its whole buffer. Set before the start.
  void set_restore(std::vector<std::vector<std::pair<uint32_t, uint32_t>>> r) {
    restore_ = std::move(r);
    resumed_ = true;
  }
  bool resumed() const { return resumed_; }
  const std::vector<std::pair<uint32_t, uint32_t>>& restore_of(ChipId c) const { return restore_[c]; }
  const std::vector<std::vector<std::pair<uint32_t, uint32_t>>>& restore() const { return restore_; }

  std::vector<uint32_t> send_left, apply_left;  // unmet dependencies per transfer
  std::vector<uint32_t> tx_left, rx_left;       // packets not yet injected / applied
  // Latest completion cycle among the dependencies released so far: a transfer may be
  // read (applied) no earlier than send_at (apply_at). Once a transfer has been read
  // for sending its send_at is spent, and its slot holds applied_at(x) instead (the
  // cycle its last packet was applied): one word per transfer less at 44 M transfers.
  std::vector<Cycle> send_at, apply_at;
  Cycle& applied_at(uint32_t x) { return send_at[x]; }
  // The transfers whose send (apply) dependencies include transfer i are the
  // schedule's successor lists (coll::Schedule::send_succ_off ...), not copied here.
  // Per chip: transfers it sends (in list order) and the number it receives.
  std::vector<uint32_t> out_off, out_idx;
  std::vector<uint32_t> in_count;
  // What the engines of different chips update, kept per chip (an engine runs on its
  // chip's thread, models/noc/clock.h): words applied, and per chip and phase
  // ([chip * phases + phase]) the first send and last apply cycle.
  std::vector<uint64_t> applied_by_chip;
  std::vector<Cycle> first_send, last_apply;
  size_t phases = 0;

 private:
  std::shared_ptr<const coll::Schedule> s_;
  bool resumed_ = false;
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> restore_;
  int packet_words_;
  uint32_t id_;
};

class CollectiveEngine : public sc_core::sc_module, public PacketEndpoint {
 private:
  // What every ejected flit reads, first, next to the PacketEndpoint's vtable pointer
  // (before the large HBM socket): on a 32x32 torus each line is a cache miss.
  const bool verify_;
  bool aborted_ = false;
  std::shared_ptr<CollectiveRun> run_;
  struct Slot;
  std::vector<Slot> slots_;
  uint64_t discarded_ = 0;

 public:
  tlm_utils::simple_initiator_socket<CollectiveEngine> hbm;

  CollectiveEngine(sc_core::sc_module_name name, const Config& cfg, ChipId id,
                   NetworkInterface& ni, sc_core::sc_time period);

  // Starts this chip's part of `run` at cycle `now` on the buffer at byte address
  // `buf`; `done` is notified when the chip's part has completed (done_cycle()).
  // restore: first copy the gradient back from its input copy (a restart after an abort).
  void start(std::shared_ptr<CollectiveRun> run, uint64_t buf, Cycle now, sc_core::sc_event* done,
             bool restore = false);
  bool completed() const { return run_ && finished_ && !aborted_; }
  bool busy() const { return run_ != nullptr && !finished_; }
  // Abort (fault recovery): no new packets; queued ones are discarded; packets of this
  // run that still arrive are discarded and counted (discarded_flits()).
  void abort();
  // Flits ejected here that belonged to an aborted run.
  uint64_t discarded_flits() const { return discarded_; }
  Cycle done_cycle() const { return done_cycle_; }
  // Engine statistics.
  uint64_t words_sent() const { return words_sent_; }
  uint64_t words_reduced() const { return words_reduced_; }
  uint64_t violations() const { return violations_; }
  const std::string& first_violation() const { return first_violation_; }

  // PacketEndpoint.
  uint64_t payload(uint64_t tag, uint16_t seq) override;
  void injected(uint64_t tag, Cycle now) override;
  void ejected(const Flit& f, int slot, Cycle now) override;

 private:
  struct Arrived {  // a packet waiting for its transfer's apply dependencies
    uint32_t k;
    Cycle at;
    std::vector<uint64_t> data;
  };
  struct Slot {  // reassembly of the packet arriving on one lane/VC (slots_)
    uint32_t x = 0, k = 0;
    bool discard = false;  // the packet belongs to an aborted run
    std::vector<uint64_t> data;
  };
  // Header payload: run id (8 bits) | transfer (32 bits) | packet index (24 bits).
  uint64_t tag_of(uint32_t x, uint32_t k) const {
    return (uint64_t)(run_->id() & 0xff) << 56 | (uint64_t)x << 24 | k;
  }
  static uint32_t xfer_of(uint64_t tag) { return (uint32_t)(tag >> 24); }
  static uint32_t packet_of(uint64_t tag) { return (uint32_t)(tag & 0xffffff); }
  bool current(uint64_t tag) const { return !aborted_ && run_ && (tag >> 56) == (run_->id() & 0xff); }

  void make_ready(uint32_t x, Cycle t);
  void apply(uint32_t x, uint32_t k, Cycle at, const uint64_t* data);
  void transfer_applied(uint32_t x);
  void release_apply(uint32_t y, Cycle t);
  void maybe_finish();
  // One HBM access of n words at word index w of the buffer, issued at cycle `at`;
  // returns the cycle it completes.
  Cycle hbm_access(tlm::tlm_command cmd, uint64_t w, uint32_t n, uint64_t* data, Cycle at);
  Cycle now() const;
  void violation(const std::string& what);

  const ChipId id_;
  const int flit_bytes_;
  const double reduce_rate_;  // bytes per cycle
  const bool schedule_order_;  // NI lanes start ready packets in schedule order (else FIFO)
  NetworkInterface& ni_;
  const sc_core::sc_time period_;
  uint64_t buf_ = 0;
  sc_core::sc_event* done_ = nullptr;
  bool finished_ = false;
  Cycle done_cycle_ = 0, last_ = 0;  // last: latest cycle any of its work completes
  uint64_t tx_packets_left_ = 0, rx_xfers_left_ = 0;
  double reduce_busy_ = 0;
  std::unordered_map<uint32_t, std::vector<Arrived>> waiting_;
  std::unordered_map<uint64_t, std::vector<uint64_t>> staged_;  // verify: packet data read for sending
  std::vector<uint64_t> scratch_;
  std::vector<Cycle> ready_;  // make_ready: each packet's HBM read completion
  // The HBM transaction object, reused by every access (all its fields are set per
  // access; the HBM keeps no reference to it after b_transport returns).
  tlm::tlm_generic_payload hbm_tx_;
  uint64_t words_sent_ = 0, words_reduced_ = 0;
  uint64_t violations_ = 0;
  std::string first_violation_;
};

}  // namespace fm
