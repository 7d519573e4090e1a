#include "models/chip/engine.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace fm {

namespace {
// Builds a compressed list from (key, value) pairs given as a count pass and a fill pass.
template <class ForEach>
void build_csr(size_t keys, ForEach for_each, std::vector<uint32_t>* off,
               std::vector<uint32_t>* idx) {
  off->assign(keys + 1, 0);
  for_each([&](uint32_t k, uint32_t) { ++(*off)[k + 1]; });
  for (size_t i = 0; i < keys; ++i) (*off)[i + 1] += (*off)[i];
  idx->resize(off->back());
  std::vector<uint32_t> pos(off->begin(), off->end() - 1);
  for_each([&](uint32_t k, uint32_t v) { (*idx)[pos[k]++] = v; });
}
}  // namespace

CollectiveRun::CollectiveRun(std::shared_ptr<const coll::Schedule> s, int chips,
                             int packet_words, uint32_t id)
    : s_(std::move(s)), packet_words_(packet_words), id_(id) {
  const coll::Schedule& sc = *s_;
  const size_t n = sc.xfers.size();
  if (n >= (1ULL << 40)) throw std::runtime_error("collective: too many transfers");
  tx_left.resize(n);
  rx_left.resize(n);
  send_at.assign(n, 0);
  apply_at.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const coll::Xfer& x = sc.xfers[i];
    if (x.len == 0 || x.src == x.dst || (int)x.src >= chips || (int)x.dst >= chips)
      throw std::runtime_error("collective: malformed transfer " + std::to_string(i));
    if ((x.len + packet_words - 1) / packet_words >= (1u << 24))
      throw std::runtime_error("collective: a transfer needs more than 2^24 packets");
    tx_left[i] = rx_left[i] = (uint32_t)packets_of((uint32_t)i);
  }
  if (sc.send_deps.size() != n || sc.apply_deps.size() != n || sc.send_succ_off.size() != n + 1 ||
      sc.apply_succ_off.size() != n + 1)
    throw std::runtime_error("collective: schedule without its dependency lists");
  send_left = sc.send_deps;
  apply_left = sc.apply_deps;
  build_csr((size_t)chips, [&](auto emit) {
    for (uint32_t i = 0; i < n; ++i) emit(sc.xfers[i].src, i);
  }, &out_off, &out_idx);
  in_count.assign(chips, 0);
  for (const coll::Xfer& x : sc.xfers) total_words += x.len;
  for (const coll::Xfer& x : sc.xfers) ++in_count[x.dst];
  phases = sc.phases.size();
  applied_by_chip.assign(chips, 0);
  first_send.assign((size_t)chips * phases, kNever);
  last_apply.assign((size_t)chips * phases, 0);
}

Cycle CollectiveRun::phase_start(size_t p) const {
  Cycle t = kNever;
  for (size_t i = p; i < first_send.size(); i += phases) t = std::min(t, first_send[i]);
  return t;
}

Cycle CollectiveRun::phase_end(size_t p) const {
  Cycle t = 0;
  for (size_t i = p; i < last_apply.size(); i += phases) t = std::max(t, last_apply[i]);
  return t;
}

CollectiveEngine::CollectiveEngine(sc_core::sc_module_name name, const Config& cfg, ChipId id,
                                   NetworkInterface& ni, sc_core::sc_time period)
    : sc_module(name),
      verify_(cfg.coll.verify == Verify::On),
      slots_((size_t)cfg.net.local_ports * cfg.net.vcs),
      hbm("hbm"),
      id_(id),
      flit_bytes_(cfg.net.flit_bytes),
      reduce_rate_(cfg.chip.reduce_gbps / cfg.net.link_gbps * cfg.net.flit_bytes),
      schedule_order_(cfg.chip.send_order == ChipConfig::SendOrder::Schedule),
      ni_(ni),
      period_(period) {
  ni_.set_endpoint(this, slots_.data(), sizeof(Slot));
}

Cycle CollectiveEngine::now() const {
  return (Cycle)std::llround(sc_core::sc_time_stamp() / period_);
}

void CollectiveEngine::violation(const std::string& what) {
  if (!violations_++) {
    std::ostringstream m;
    m << "engine of chip " << id_ << " cycle " << now() << ": " << what;
    first_violation_ = m.str();
  }
}

Cycle CollectiveEngine::hbm_access(tlm::tlm_command cmd, uint64_t w, uint32_t n,
                                   uint64_t* data, Cycle at) {
  if (!data && cmd != tlm::TLM_IGNORE_COMMAND) {
    if (scratch_.size() < n) scratch_.resize(n);
    data = scratch_.data();
  }
  const Cycle t = now();
  tlm::tlm_generic_payload& tx = hbm_tx_;  // reused: constructing one allocates
  tx.set_command(cmd);
  tx.set_address(buf_ + w * (uint64_t)flit_bytes_);
  tx.set_data_ptr(reinterpret_cast<unsigned char*>(data));
  tx.set_data_length(n * 8);
  tx.set_streaming_width(n * 8);
  tx.set_byte_enable_ptr(nullptr);
  tx.set_dmi_allowed(false);
  tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = period_ * (double)(at > t ? at - t : 0);
  hbm->b_transport(tx, delay);
  if (!tx.is_response_ok()) violation("HBM access failed: " + tx.get_response_string());
  return t + (Cycle)std::ceil(delay / period_ - 1e-9);
}

void CollectiveEngine::start(std::shared_ptr<CollectiveRun> run, uint64_t buf, Cycle t,
                             sc_core::sc_event* done, bool restore) {
  run_ = std::move(run);
  buf_ = buf;
  done_ = done;
  finished_ = aborted_ = false;
  waiting_.clear();
  for (Slot& s : slots_) s.discard = false;
  last_ = done_cycle_ = t;
  CollectiveRun& r = *run_;
  tx_packets_left_ = 0;
  for (uint32_t i = r.out_off[id_]; i < r.out_off[id_ + 1]; ++i)
    tx_packets_left_ += r.packets_of(r.out_idx[i]);
  rx_xfers_left_ = r.in_count[id_];
  // Timing only: the testbench restores the words themselves. A resumed run restores
  // the plan's ranges (one HBM read and write of each), a restart the whole buffer.
  uint64_t n = 0;
  if (r.resumed()) {
    for (const auto& range : r.restore_of(id_)) n += range.second;
  } else if (restore) {
    n = r.schedule().words;
  }
  if (n) {
    t = hbm_access(tlm::TLM_IGNORE_COMMAND, 0, (uint32_t)(2 * n), nullptr, t);
    last_ = t;
  }
  for (uint32_t i = r.out_off[id_]; i < r.out_off[id_ + 1]; ++i) {
    const uint32_t x = r.out_idx[i];
    if (r.send_left[x] == 0) make_ready(x, t);
  }
  maybe_finish();
}

// The transfer's data may be read from cycle t: one HBM read per packet, each packet
// queued at the NI for the cycle its read completes.
void CollectiveEngine::make_ready(uint32_t x, Cycle t) {
  CollectiveRun& r = *run_;
  const coll::Xfer& xf = r.schedule().xfers[x];
  Cycle& ps = r.first_send[id_ * r.phases + xf.phase];
  ps = std::min(ps, t);
  const uint32_t D = (uint32_t)r.packet_words();
  const uint32_t np = (uint32_t)r.packets_of(x);
  ready_.resize(np);
  for (uint32_t k = 0; k < np; ++k) {
    const uint32_t w0 = xf.offset + k * D, n = std::min(D, xf.len - k * D);
    uint64_t* data = nullptr;
    if (verify_) {
      std::vector<uint64_t>& st = staged_[tag_of(x, k)];
      st.resize(n);
      data = st.data();
    }
    ready_[k] = hbm_access(tlm::TLM_READ_COMMAND, w0, n, data, t);
  }
  // The packets in order, each as its read completes; schedule order: the transfer's
  // index in the schedule, then the packet's (tag and priority + k for packet k).
  const uint32_t last = xf.len - (np - 1) * D;
  ni_.send_burst(xf.dst, np, (int)D + 1, (int)last + 1, tag_of(x, 0), ready_.data(),
                 schedule_order_ ? (uint64_t)x << 24 : NetworkInterface::kFifo);
}

void CollectiveEngine::abort() {
  if (!run_ || aborted_) return;
  aborted_ = true;
  finished_ = true;
  waiting_.clear();
  ni_.discard_queued();
}

uint64_t CollectiveEngine::payload(uint64_t tag, uint16_t seq) {
  if (seq == 0) return tag;  // the header flit: transfer and packet index
  if (!verify_) return 0;
  auto it = staged_.find(tag);
  if (it == staged_.end() || seq > it->second.size()) {
    violation("no staged data for an outgoing flit");
    return 0;
  }
  return it->second[seq - 1];
}

void CollectiveEngine::injected(uint64_t tag, Cycle t) {
  if (verify_) staged_.erase(tag);
  if (!current(tag)) return;  // the last packet of an aborted run left
  CollectiveRun& r = *run_;
  const uint32_t x = xfer_of(tag);
  const coll::Xfer& xf = r.schedule().xfers[x];
  const uint32_t k = packet_of(tag);
  words_sent_ += std::min<uint32_t>(r.packet_words(), xf.len - k * r.packet_words());
  --tx_packets_left_;
  last_ = std::max(last_, t);
  if (--r.tx_left[x] == 0) {
    // Write-after-read: transfers into this chip that overwrite what x read may go on.
    const coll::Schedule& s = r.schedule();
    for (uint32_t j = s.apply_succ_off[x]; j < s.apply_succ_off[x + 1]; ++j) {
      const uint32_t y = s.apply_succ_idx[j];
      if (r.schedule().xfers[y].dst == xf.src) release_apply(y, t);
    }
  }
  maybe_finish();
}

void CollectiveEngine::ejected(const Flit& f, int slot, Cycle t) {
  if (!run_) {
    violation("collective data arrived before this chip started the collective");
    return;
  }
  CollectiveRun& r = *run_;
  Slot& s = slots_[slot];
  if (f.head()) s.discard = !current(f.payload);
  if (s.discard) {  // a packet of an aborted run: dropped here, counted
    ++discarded_;
    return;
  }
  if (f.head()) {
    const uint64_t x = xfer_of(f.payload);
    if (x >= r.schedule().xfers.size() || r.schedule().xfers[x].dst != id_ ||
        r.schedule().xfers[x].src != f.src) {
      violation("packet header names transfer " + std::to_string(x) + ", which is not one into this chip from chip " + std::to_string(f.src));
      return;
    }
    s.x = (uint32_t)x;
    s.k = packet_of(f.payload);
    s.data.clear();
    if (f.tail()) violation("a packet without data");
    return;
  }
  if (verify_) s.data.push_back(f.payload);
  if (!f.tail()) return;
  const coll::Xfer& xf = r.schedule().xfers[s.x];
  const uint32_t D = (uint32_t)r.packet_words();
  const uint32_t n = std::min(D, xf.len - s.k * D);
  if (f.seq != n) {
    violation("packet of transfer " + std::to_string(s.x) + " has " + std::to_string(f.seq) +
              " data flits, expected " + std::to_string(n));
    return;
  }
  if (r.apply_left[s.x] == 0) {
    apply(s.x, s.k, std::max(t, r.apply_at[s.x]), s.data.data());
  } else {
    waiting_[s.x].push_back({s.k, t, verify_ ? s.data : std::vector<uint64_t>()});
  }
}

// Applies packet k of transfer x from cycle `at`: reduce = HBM read, add, HBM write;
// copy = HBM write.
void CollectiveEngine::apply(uint32_t x, uint32_t k, Cycle at, const uint64_t* data) {
  CollectiveRun& r = *run_;
  const coll::Xfer& xf = r.schedule().xfers[x];
  const uint32_t D = (uint32_t)r.packet_words();
  const uint32_t w0 = xf.offset + k * D, n = std::min(D, xf.len - k * D);
  Cycle done;
  if (xf.reduce) {
    std::vector<uint64_t> local;
    if (verify_) local.resize(n);
    const Cycle t1 = hbm_access(tlm::TLM_READ_COMMAND, w0, n, verify_ ? local.data() : nullptr, at);
    reduce_busy_ = std::max((double)t1, reduce_busy_) + (double)n * flit_bytes_ / reduce_rate_;
    if (verify_)
      for (uint32_t i = 0; i < n; ++i) local[i] += data[i];
    words_reduced_ += n;
    done = hbm_access(tlm::TLM_WRITE_COMMAND, w0, n, verify_ ? local.data() : nullptr,
                      (Cycle)std::ceil(reduce_busy_ - 1e-9));
  } else {
    done = hbm_access(tlm::TLM_WRITE_COMMAND, w0, n,
                      verify_ ? const_cast<uint64_t*>(data) : nullptr, at);
  }
  Cycle& at_x = r.applied_at(x);  // x was read at its source before any packet came
  at_x = r.rx_left[x] == (uint32_t)r.packets_of(x) ? done : std::max(at_x, done);
  r.applied_by_chip[id_] += n;
  last_ = std::max(last_, done);
  Cycle& pe = r.last_apply[id_ * r.phases + xf.phase];
  pe = std::max(pe, done);
  if (--r.rx_left[x] == 0) transfer_applied(x);
}

// Every packet of x has been applied: release what depends on x's data being here.
void CollectiveEngine::transfer_applied(uint32_t x) {
  CollectiveRun& r = *run_;
  const coll::Schedule& s = r.schedule();
  const Cycle t = r.applied_at(x);
  --rx_xfers_left_;
  for (uint32_t j = s.send_succ_off[x]; j < s.send_succ_off[x + 1]; ++j) {
    const uint32_t y = s.send_succ_idx[j];
    r.send_at[y] = std::max(r.send_at[y], t);
    if (--r.send_left[y] == 0) make_ready(y, r.send_at[y]);
  }
  for (uint32_t j = s.apply_succ_off[x]; j < s.apply_succ_off[x + 1]; ++j) {
    const uint32_t y = s.apply_succ_idx[j];
    if (r.schedule().xfers[y].dst == id_) release_apply(y, t);
  }
  maybe_finish();
}

void CollectiveEngine::release_apply(uint32_t y, Cycle t) {
  CollectiveRun& r = *run_;
  r.apply_at[y] = std::max(r.apply_at[y], t);
  if (--r.apply_left[y] != 0) return;
  auto it = waiting_.find(y);
  if (it == waiting_.end()) return;
  std::vector<Arrived> w = std::move(it->second);
  waiting_.erase(it);
  for (const Arrived& a : w) apply(y, a.k, std::max(a.at, r.apply_at[y]), a.data.data());
}

void CollectiveEngine::maybe_finish() {
  if (finished_ || !run_ || tx_packets_left_ || rx_xfers_left_) return;
  finished_ = true;
  done_cycle_ = last_;
  const Cycle t = now();
  if (!done_) return;
  // SystemC events are notified on the simulation's own thread (Clock::defer).
  const sc_core::sc_time d = period_ * (double)(done_cycle_ > t ? done_cycle_ - t : 0);
  sc_core::sc_event* ev = done_;
  ni_.clock().defer([ev, d] { ev->notify(d); });
}

}  // namespace fm
