// The port packing of the verilated RTL router (rtl/fm_router.sv) and the per-cycle
// records of what enters and leaves a router, shared by the RTL tests (tests/rtl/rtl_bench.h)
// and the lockstep co-simulation (tb/cosim.cpp), so both drive and read the RTL the same
// way: the flit/credit packing, the per-cycle records, and the signals that connect a
// verilated fm_router (any configuration) to them. Header only, no Verilator dependency.
#pragma once
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <systemc>

#include "models/config.h"
#include "models/noc/types.h"
#include "models/route_table.h"

namespace fm::rtl {

// The flit as fm_router's three port words: payload, meta = {packet, src, dst} and
// ctl = {seq, kind, vc}, each field as wide as models/noc/types.h says (kPacketBits,
// kChipIdBits, kSeqBits, kKindBits, kVcBits; tb/rtl_mesh_router.cpp checks them against
// fm_pkg).
struct FlitWords {
  uint64_t payload = 0, meta = 0;
  uint32_t ctl = 0;
};
static_assert(kPayloadBits == 64 && kPacketBits + 2 * kChipIdBits <= 64 &&
                  kSeqBits + kKindBits + kVcBits <= 32,
              "the port words hold the flit fields");

// The low `bits` bits set.
constexpr uint64_t low_bits(int bits) { return bits >= 64 ? ~0ULL : (1ULL << bits) - 1; }

// Packs a flit onto the RTL's ports: the one packer (both benches, the co-simulation
// and the mesh adapter drive the RTL through Signals::drive). A field that does not fit
// its width (a chip id >= 2^kChipIdBits, a VC >= 2^kVcBits) throws std::out_of_range
// instead of being cut: the RTL would see another flit.
inline FlitWords pack_flit(const Flit& f) {
  if (((f.src | f.dst) & ~low_bits(kChipIdBits)) || (f.vc & ~low_bits(kVcBits)) ||
      (f.kind & ~low_bits(kKindBits)) || (f.seq & ~low_bits(kSeqBits)) ||
      (f.packet & ~low_bits(kPacketBits)))
    throw std::out_of_range("flit (src " + std::to_string(f.src) + ", dst " + std::to_string(f.dst) +
                            ", vc " + std::to_string(f.vc) + ") does not fit the RTL router's " +
                            std::to_string(kChipIdBits) + "-bit chip ids / " + std::to_string(kVcBits) +
                            "-bit VCs");
  FlitWords w;
  w.payload = f.payload;
  w.meta = (uint64_t)f.packet << (2 * kChipIdBits) | (uint64_t)f.src << kChipIdBits | f.dst;
  w.ctl = (uint32_t)f.seq << (kKindBits + kVcBits) | (uint32_t)f.kind << kVcBits | f.vc;
  return w;
}
// Unpacks the RTL's port words into a flit: the inverse of pack_flit().
inline Flit unpack_flit(const FlitWords& w) {
  Flit f;
  f.payload = w.payload;
  f.packet = (uint32_t)(w.meta >> (2 * kChipIdBits) & low_bits(kPacketBits));
  f.src = (ChipId)(w.meta >> kChipIdBits & low_bits(kChipIdBits));
  f.dst = (ChipId)(w.meta & low_bits(kChipIdBits));
  f.seq = (uint16_t)(w.ctl >> (kKindBits + kVcBits) & low_bits(kSeqBits));
  f.kind = (uint8_t)(w.ctl >> kVcBits & low_bits(kKindBits));
  f.vc = (uint8_t)(w.ctl & low_bits(kVcBits));
  return f;
}

// What arrives at the router in one cycle: per port, a flit on the input and a credit
// for the output (-1: none).
struct CycleIn {
  std::array<bool, kNumPorts> valid{};
  std::array<Flit, kNumPorts> flit{};
  std::array<int, kNumPorts> credit{-1, -1, -1, -1, -1};
  void send(Port p, const Flit& f) { valid[p] = true; flit[p] = f; }
};
// What the router sends in one cycle: per port, a flit departing on the output and a
// credit sent upstream on the input (-1: none).
struct CycleOut {
  std::array<bool, kNumPorts> valid{};
  std::array<Flit, kNumPorts> flit{};
  std::array<int, kNumPorts> credit{-1, -1, -1, -1, -1};
};

// The run-time configuration of the RTL router (its cfg_* pins, sampled in reset): the
// model's NetworkConfig vcs, buf, pipeline and arbiter, with NetworkConfig's defaults
// (not a second set). Each must be within the bounds the RTL was verilated with
// (rtl/CMakeLists.txt); the RTL asserts otherwise.
struct RouterCfg {
  int vcs = NetworkConfig{}.vcs, buf = NetworkConfig{}.buf, pipeline = NetworkConfig{}.pipeline;
  bool islip = NetworkConfig{}.arbiter == Arbiter::ISlip;
  // The pins of a model router configuration (the benches build them through this).
  static RouterCfg of(const NetworkConfig& c) {
    return {c.vcs, c.buf, c.pipeline, c.arbiter == Arbiter::ISlip};
  }
};

// The signals of every RTL router port except the clock (which each bench drives its own
// way): bind() connects them to a verilated fm_router, configure() sets the
// configuration pins (call before reset), drive() presents one cycle's arrivals,
// sample() reads one cycle's departures, write_route() presents one route-table register
// write (held until the next call or end_writes()).
struct Signals {
  sc_core::sc_signal<bool> rst_n;
  sc_core::sc_signal<uint32_t> cfg_vcs, cfg_buf, cfg_pipeline;
  sc_core::sc_signal<bool> cfg_islip;
  sc_core::sc_signal<bool> in_valid[kNumPorts], out_valid[kNumPorts];
  sc_core::sc_signal<uint64_t> in_payload[kNumPorts], in_meta[kNumPorts];
  sc_core::sc_signal<uint64_t> out_payload[kNumPorts], out_meta[kNumPorts];
  sc_core::sc_signal<uint32_t> in_ctl[kNumPorts], out_ctl[kNumPorts];
  sc_core::sc_signal<bool> cr_in_valid[kNumPorts], cr_out_valid[kNumPorts];
  sc_core::sc_signal<uint32_t> cr_in_vc[kNumPorts], cr_out_vc[kNumPorts];
  sc_core::sc_signal<bool> tbl_we;
  sc_core::sc_signal<uint32_t> tbl_addr, tbl_data;

  template <class Dut>
  void bind(Dut& dut) {
    dut.rst_ni(rst_n);
    dut.cfg_vcs_i(cfg_vcs);
    dut.cfg_buf_i(cfg_buf);
    dut.cfg_pipeline_i(cfg_pipeline);
    dut.cfg_islip_i(cfg_islip);
#define FM_BIND(p, i)                        \
  dut.in_##p##_valid_i(in_valid[i]);         \
  dut.in_##p##_payload_i(in_payload[i]);     \
  dut.in_##p##_meta_i(in_meta[i]);           \
  dut.in_##p##_ctl_i(in_ctl[i]);             \
  dut.out_##p##_valid_o(out_valid[i]);       \
  dut.out_##p##_payload_o(out_payload[i]);   \
  dut.out_##p##_meta_o(out_meta[i]);         \
  dut.out_##p##_ctl_o(out_ctl[i]);           \
  dut.cr_in_##p##_valid_i(cr_in_valid[i]);   \
  dut.cr_in_##p##_vc_i(cr_in_vc[i]);         \
  dut.cr_out_##p##_valid_o(cr_out_valid[i]); \
  dut.cr_out_##p##_vc_o(cr_out_vc[i]);
    FM_BIND(n, kNorth)
    FM_BIND(e, kEast)
    FM_BIND(s, kSouth)
    FM_BIND(w, kWest)
    FM_BIND(l, kLocal)
#undef FM_BIND
    dut.tbl_we_i(tbl_we);
    dut.tbl_addr_i(tbl_addr);
    dut.tbl_data_i(tbl_data);
  }
  void configure(const RouterCfg& c) {
    cfg_vcs.write((uint32_t)c.vcs);
    cfg_buf.write((uint32_t)c.buf);
    cfg_pipeline.write((uint32_t)c.pipeline);
    cfg_islip.write(c.islip);
  }
  void drive(const CycleIn& in) {
    for (int p = 0; p < kNumPorts; ++p) {
      const FlitWords w = pack_flit(in.valid[p] ? in.flit[p] : Flit{});
      in_valid[p].write(in.valid[p]);
      in_payload[p].write(w.payload);
      in_meta[p].write(w.meta);
      in_ctl[p].write(w.ctl);
      cr_in_valid[p].write(in.credit[p] >= 0);
      cr_in_vc[p].write(in.credit[p] >= 0 ? (uint32_t)in.credit[p] : 0u);
    }
  }
  CycleOut sample() const {
    CycleOut o;
    for (int p = 0; p < kNumPorts; ++p) {
      o.valid[p] = out_valid[p].read();
      if (o.valid[p]) o.flit[p] = unpack_flit({out_payload[p].read(), out_meta[p].read(), out_ctl[p].read()});
      o.credit[p] = cr_out_valid[p].read() ? (int)cr_out_vc[p].read() : -1;
    }
    return o;
  }
  void write_route(uint32_t dst, const RouteEntry& e) {
    tbl_we.write(true);
    tbl_addr.write(dst);
    tbl_data.write(route_word(e));
  }
  void end_writes() { tbl_we.write(false); }
};

inline nlohmann::json to_json(const Flit& f) {
  return {{"payload", f.payload}, {"packet", f.packet}, {"src", f.src}, {"dst", f.dst},
          {"seq", f.seq},         {"kind", f.kind},     {"vc", f.vc}};
}
inline Flit flit_from_json(const nlohmann::json& j) {
  Flit f;
  f.payload = j.at("payload");
  f.packet = j.at("packet");
  f.src = j.at("src");
  f.dst = j.at("dst");
  f.seq = j.at("seq");
  f.kind = j.at("kind");
  f.vc = j.at("vc");
  return f;
}

}  // namespace fm::rtl
