#include "models/chip/hbm.h"

#include <algorithm>
#include <cstring>

namespace fm {

Hbm::Hbm(sc_core::sc_module_name name, uint64_t capacity, int block_bytes,
         double bytes_per_cycle, sc_core::sc_time period, bool store)
    : sc_module(name),
      socket("socket"),
      capacity_(capacity),
      block_(block_bytes),
      rate_(bytes_per_cycle),
      period_(period),
      store_(store) {
  socket.register_b_transport(this, &Hbm::b_transport);
}

void Hbm::b_transport(tlm::tlm_generic_payload& tx, sc_core::sc_time& delay) {
  const uint64_t addr = tx.get_address();
  const uint64_t words = tx.get_data_length() / 8;
  const uint64_t bytes = words * block_;
  // IGNORE is a bulk copy inside the HBM (restore of a buffer): bandwidth only, no data,
  // and its length may cover a read and a write of the whole buffer.
  const bool bulk = tx.get_command() == tlm::TLM_IGNORE_COMMAND;
  if (tx.get_data_length() % 8 || addr % block_ || (!bulk && (addr + bytes > capacity_ || addr + bytes < addr))) {
    tx.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  if (store_ && tx.get_command() != tlm::TLM_IGNORE_COMMAND) {
    const uint64_t first = addr / block_;
    if (words_.size() < first + words) words_.resize(first + words, 0);
    uint64_t* w = words_.data() + first;
    if (tx.is_read()) std::memcpy(tx.get_data_ptr(), w, words * 8);
    else std::memcpy(w, tx.get_data_ptr(), words * 8);
  }
  const double now = sc_core::sc_time_stamp() / period_;
  const double start = std::max(now + delay / period_, busy_until_);
  busy_until_ = start + (double)bytes / rate_;
  delay = period_ * (busy_until_ - now);
  moved_ += bytes;
  tx.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace fm
