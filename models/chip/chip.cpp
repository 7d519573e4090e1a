#include "models/chip/chip.h"

#include <cmath>
#include <cstring>
#include <tuple>

#include "models/collective/algorithms.h"

namespace fm {

const char* regs::error_name(uint32_t e) {
  switch (e) {
    case kNoError: return "none";
    case kBadOp: return "bad operation";
    case kBadSize: return "bad size";
    case kMisaligned: return "misaligned buffer or chunk";
    case kOutOfRange: return "buffer beyond HBM";
    case kBadAlgo: return "unknown algorithm or order";
    case kBadParticipants: return "bad participant set";
    case kRefused: return "algorithm refused";
    case kStartWhileBusy: return "busy";
    case kBadDtype: return "unknown data type";
    case kBadSlices: return "bad slice count";
  }
  return "?";
}

bool Descriptor::operator<(const Descriptor& o) const {
  return std::tie(op, dtype, algo, order, buf, size, chunk, slices, line, participants) <
         std::tie(o.op, o.dtype, o.algo, o.order, o.buf, o.size, o.chunk, o.slices, o.line, o.participants);
}

std::shared_ptr<CollectiveRun> CollectiveLibrary::get(const Descriptor& d) {
  auto it = runs_.find(d);
  if (it != runs_.end() && !it->second->aborted) return it->second;
  coll::AlgoParams p;
  p.algo = (coll::Algo)d.algo;
  p.order = (coll::Order)d.order;
  const uint64_t fb = cfg_.net.flit_bytes;
  p.words = (uint32_t)((d.size + fb - 1) / fb);
  p.chunk_words = (uint32_t)(d.chunk / fb);
  p.slices = d.slices;
  p.line = (coll::Line)d.line;
  return install(d, std::make_shared<const coll::Schedule>(coll::build_schedule(*faults_, p)));
}

std::shared_ptr<CollectiveRun> CollectiveLibrary::install(const Descriptor& d,
                                                          std::shared_ptr<const coll::Schedule> s) {
  auto run = std::make_shared<CollectiveRun>(std::move(s), cfg_.net.chips(), cfg_.chip.packet_words,
                                            ++built_);
  runs_[d] = run;
  return run;
}

Chip::Chip(sc_core::sc_module_name name, const Config& cfg, ChipId id, NetworkInterface& ni,
           CollectiveLibrary& lib, sc_core::sc_time period, bool store_data)
    : sc_module(name),
      ctrl("ctrl"),
      cfg_(cfg),
      id_(id),
      lib_(lib),
      period_(period),
      hbm_("hbm", cfg.chip.hbm_bytes, cfg.net.flit_bytes,
           cfg.chip.hbm_gbps / cfg.net.link_gbps * cfg.net.flit_bytes, period, store_data),
      engine_("engine", cfg, id, ni, period) {
  engine_.hbm.bind(hbm_.socket);
  ctrl.register_b_transport(this, &Chip::b_transport);
  d_.participants.assign(((size_t)cfg.net.chips() + 31) / 32, 0);
  SC_METHOD(on_done);
  sensitive << engine_done_;
  dont_initialize();
}

void Chip::b_transport(tlm::tlm_generic_payload& tx, sc_core::sc_time& delay) {
  (void)delay;
  const uint64_t addr = tx.get_address();
  if (tx.get_data_length() != 4 || addr % 4 || tx.get_byte_enable_ptr()) {
    tx.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  uint32_t v = 0;
  bool ok;
  if (tx.is_write()) {
    std::memcpy(&v, tx.get_data_ptr(), 4);
    if (addr == regs::kCtrl) {
      if (v == 2) {  // abort (fault recovery): only a running collective can be aborted
        const bool ok = status_ == regs::kBusy;
        if (ok) {
          engine_.abort();
          engine_done_.cancel();
          status_ = regs::kAborted;
        }
        tx.set_response_status(ok ? tlm::TLM_OK_RESPONSE : tlm::TLM_GENERIC_ERROR_RESPONSE);
        return;
      }
      if (v != 1) {
        tx.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
        return;
      }
      tx.set_response_status(start() ? tlm::TLM_OK_RESPONSE : tlm::TLM_GENERIC_ERROR_RESPONSE);
      return;
    }
    ok = write_reg(addr, v);
  } else if (tx.is_read()) {
    ok = read_reg(addr, &v);
    if (ok) std::memcpy(tx.get_data_ptr(), &v, 4);
  } else {
    tx.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  tx.set_response_status(ok ? tlm::TLM_OK_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

bool Chip::write_reg(uint64_t a, uint32_t v) {
  if (status_ == regs::kBusy && a != regs::kCtrl) return false;  // descriptor is frozen while running
  switch (a) {
    case regs::kOp: d_.op = v; return true;
    case regs::kDtype: d_.dtype = v; return true;
    case regs::kAlgo: d_.algo = v; return true;
    case regs::kOrder: d_.order = v; return true;
    case regs::kBufLo: d_.buf = (d_.buf & ~0xffffffffULL) | v; return true;
    case regs::kBufHi: d_.buf = (d_.buf & 0xffffffffULL) | (uint64_t)v << 32; return true;
    case regs::kSizeLo: d_.size = (d_.size & ~0xffffffffULL) | v; return true;
    case regs::kSizeHi: d_.size = (d_.size & 0xffffffffULL) | (uint64_t)v << 32; return true;
    case regs::kChunk: d_.chunk = v; return true;
    case regs::kSlices: d_.slices = v; return true;
    case regs::kLine: d_.line = v; return true;
  }
  if (a >= regs::kPartBase && a < regs::kPartBase + 4 * d_.participants.size()) {
    d_.participants[(a - regs::kPartBase) / 4] = v;
    return true;
  }
  return false;
}

bool Chip::read_reg(uint64_t a, uint32_t* v) const {
  switch (a) {
    case regs::kId: *v = id_; return true;
    case regs::kStatus: *v = status_; return true;
    case regs::kError: *v = error_; return true;
    case regs::kOp: *v = d_.op; return true;
    case regs::kDtype: *v = d_.dtype; return true;
    case regs::kAlgo: *v = d_.algo; return true;
    case regs::kOrder: *v = d_.order; return true;
    case regs::kBufLo: *v = (uint32_t)d_.buf; return true;
    case regs::kBufHi: *v = (uint32_t)(d_.buf >> 32); return true;
    case regs::kSizeLo: *v = (uint32_t)d_.size; return true;
    case regs::kSizeHi: *v = (uint32_t)(d_.size >> 32); return true;
    case regs::kChunk: *v = d_.chunk; return true;
    case regs::kSlices: *v = d_.slices; return true;
    case regs::kLine: *v = d_.line; return true;
    case regs::kDoneLo: *v = (uint32_t)done_cycle_; return true;
    case regs::kDoneHi: *v = (uint32_t)(done_cycle_ >> 32); return true;
  }
  if (a >= regs::kPartBase && a < regs::kPartBase + 4 * d_.participants.size()) {
    *v = d_.participants[(a - regs::kPartBase) / 4];
    return true;
  }
  return false;
}

void Chip::fail(uint32_t code, const std::string& text) {
  status_ = regs::kFailed;
  error_ = code;
  error_text_ = text;
}

bool Chip::start() {
  if (status_ == regs::kBusy) {
    // Keep the running collective; only report the refused START.
    error_ = regs::kStartWhileBusy;
    error_text_ = "START while a collective is running";
    return false;
  }
  const uint64_t fb = cfg_.net.flit_bytes;
  const uint32_t elem = d_.dtype == 1 ? 2 : 4;
  if (d_.op != 1) { fail(regs::kBadOp, "OP " + std::to_string(d_.op) + ": only 1 (allreduce) exists"); return false; }
  if (d_.dtype > 1) { fail(regs::kBadDtype, "DTYPE " + std::to_string(d_.dtype) + ": allowed 0 (fp32), 1 (bf16)"); return false; }
  if (d_.size == 0 || d_.size % elem) { fail(regs::kBadSize, "SIZE " + std::to_string(d_.size) + ": must be a positive multiple of the element size " + std::to_string(elem)); return false; }
  if (d_.buf % fb || d_.chunk == 0 || d_.chunk % fb) { fail(regs::kMisaligned, "BUF and CHUNK must be multiples of the flit size " + std::to_string(fb) + " (CHUNK > 0)"); return false; }
  if (d_.buf + d_.size > cfg_.chip.hbm_bytes || d_.buf + d_.size < d_.buf) { fail(regs::kOutOfRange, "BUF + SIZE beyond the HBM capacity"); return false; }
  if (d_.size / fb >= (1ULL << 32)) { fail(regs::kBadSize, "SIZE: at most 2^32 flits"); return false; }
  if (d_.algo > (uint32_t)coll::Algo::Snake || d_.order > (uint32_t)coll::Order::Both) { fail(regs::kBadAlgo, "ALGO " + std::to_string(d_.algo) + " / ORDER " + std::to_string(d_.order) + ": unknown"); return false; }
  if (d_.line > (uint32_t)coll::Line::Auto) { fail(regs::kBadAlgo, "LINE " + std::to_string(d_.line) + ": allowed 0 (ring), 1 (chain), 2 (auto)"); return false; }
  if (d_.slices > coll::kMaxSlices) { fail(regs::kBadSlices, "SLICES " + std::to_string(d_.slices) + ": allowed 0 (auto) or 1.." + std::to_string(coll::kMaxSlices)); return false; }
  const FaultSet& f = lib_.faults();
  for (int c = 0; c < cfg_.net.chips(); ++c) {
    const bool part = (d_.participants[c / 32] >> (c % 32)) & 1;
    if (part == f.chip_dead(c)) {
      fail(regs::kBadParticipants, part ? "participant " + std::to_string(c) + " is dead"
                                        : "live chip " + std::to_string(c) + " is not a participant (the group must be every live chip)");
      return false;
    }
  }
  for (size_t w = 0; w < d_.participants.size(); ++w) {
    const int first = (int)w * 32;
    const uint32_t valid = cfg_.net.chips() - first >= 32 ? ~0u : (1u << (cfg_.net.chips() - first)) - 1;
    if (d_.participants[w] & ~valid) { fail(regs::kBadParticipants, "participant bit beyond the last chip"); return false; }
  }
  std::shared_ptr<CollectiveRun> run;
  try {
    run = lib_.get(d_);
  } catch (const ConfigError& e) {
    fail(regs::kRefused, e.what());
    return false;
  }
  // A restart first restores the gradient from its input copy (one HBM read and write of
  // the buffer): the earlier run changed the buffer in place, whether this chip was
  // aborted or had already finished its part.
  const bool restore = status_ == regs::kAborted || status_ == regs::kDone;
  status_ = regs::kBusy;
  error_ = regs::kNoError;
  error_text_.clear();
  engine_.start(run, d_.buf, (Cycle)std::llround(sc_core::sc_time_stamp() / period_), &engine_done_,
                restore);
  return true;
}

void Chip::on_done() {
  if (status_ != regs::kBusy || !engine_.completed()) return;  // not this run's completion
  status_ = regs::kDone;
  done_cycle_ = engine_.done_cycle();
  done_.notify();
}

}  // namespace fm
