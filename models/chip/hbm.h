// The HBM of one chip as a TLM-2.0 loosely-timed target: a bandwidth server in front
// of an optional backing store.
//
// Addresses are byte addresses of the gradient buffer. The model stores one 64-bit
// word per flit-sized block (NetworkConfig::flit_bytes bytes) — the representative
// word that travels in one data flit — so a transaction covering n blocks carries
// data_length = 8 * n bytes of words, while its timing charges the n * flit_bytes bytes
// the real memory would move. Without a backing store (timing-only runs) data is not
// touched.
//
// TLM_IGNORE_COMMAND is an internal bulk copy (restoring a buffer from its input copy):
// it is charged bandwidth for its length and moves no data.
//
// Timing: requests are served in the order they are issued at `bytes_per_cycle`; a
// request issued with annotated delay d (the initiator's local time offset) starts at
// max(now + d, end of the previous request), and b_transport returns the delay to its
// completion.
#pragma once
#include <tlm>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

#include "models/noc/types.h"

namespace fm {

class Hbm : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Hbm> socket;

  // capacity in bytes; block = flit_bytes; store: keep data words (verification).
  Hbm(sc_core::sc_module_name name, uint64_t capacity, int block_bytes,
      double bytes_per_cycle, sc_core::sc_time period, bool store);

  uint64_t bytes_moved() const { return moved_; }
  // The (fractional) cycle at which the last request issued completes: until then the
  // memory is working for the chip although no flit may move (a restore of the whole
  // buffer, a backlog of reads and writes), which the no-progress watchdog must not take
  // for a stall.
  double busy_until() const { return busy_until_; }
  // Direct view of the words (tests, result checks): word i covers block i.
  const std::vector<uint64_t>& words() const { return words_; }
  std::vector<uint64_t>& words() { return words_; }
  bool stores() const { return store_; }

 private:
  void b_transport(tlm::tlm_generic_payload& tx, sc_core::sc_time& delay);

  const uint64_t capacity_;
  const int block_;
  const double rate_;  // bytes per cycle
  const sc_core::sc_time period_;
  const bool store_;
  std::vector<uint64_t> words_;
  double busy_until_ = 0;  // cycle (fractional) at which the last request completes
  uint64_t moved_ = 0;
};

}  // namespace fm
