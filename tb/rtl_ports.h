// The port packing of the verilated RTL router (rtl/fm_router.sv) and the per-cycle
// records of what enters and leaves a router, shared by the RTL tests (tests/rtl/rtl_bench.h)
// and the lockstep co-simulation (tb/cosim.cpp), so both drive and read the RTL the same
// way: the flit/credit packing, the per-cycle records, and the signals that connect a
// verilated fm_router (any configuration) to them. Header only, no Verilator dependency.
#pragma once
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <systemc>

#include "models/noc/types.h"
#include "models/route_table.h"

namespace fm::rtl {

// Port packing of rtl/fm_router.sv: meta = {packet, src, dst}, ctl = {seq, kind, vc}.
inline uint64_t meta_of(const Flit& f) {
  return (uint64_t)f.packet << 32 | (uint64_t)(f.src & 0xffff) << 16 | (f.dst & 0xffff);
}
inline uint32_t ctl_of(const Flit& f) {
  return (uint32_t)f.seq << 6 | (uint32_t)(f.kind & 3) << 4 | (f.vc & 15);
}
inline Flit flit_of(uint64_t payload, uint64_t meta, uint32_t ctl) {
  Flit f;
  f.payload = payload;
  f.packet = (uint32_t)(meta >> 32);
  f.src = (ChipId)((meta >> 16) & 0xffff);
  f.dst = (ChipId)(meta & 0xffff);
  f.seq = (uint16_t)(ctl >> 6);
  f.kind = (uint8_t)((ctl >> 4) & 3);
  f.vc = (uint8_t)(ctl & 15);
  return f;
}
// Route table register word {vc_mask[15:0], 5'b0, port[2:0]}.
inline uint32_t route_word(const RouteEntry& e) { return (uint32_t)e.vc_mask << 8 | (e.port & 7); }

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
// model's NetworkConfig vcs, buf, pipeline and arbiter. Each must be within the bounds
// the RTL was verilated with (rtl/CMakeLists.txt); the RTL asserts otherwise.
struct RouterCfg {
  int vcs = 2, buf = 4, pipeline = 3;
  bool islip = false;
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
    FM_BIND(n, 0)
    FM_BIND(e, 1)
    FM_BIND(s, 2)
    FM_BIND(w, 3)
    FM_BIND(l, 4)
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
      const Flit f = in.valid[p] ? in.flit[p] : Flit{};
      in_valid[p].write(in.valid[p]);
      in_payload[p].write(f.payload);
      in_meta[p].write(meta_of(f));
      in_ctl[p].write(ctl_of(f));
      cr_in_valid[p].write(in.credit[p] >= 0);
      cr_in_vc[p].write(in.credit[p] >= 0 ? (uint32_t)in.credit[p] : 0u);
    }
  }
  CycleOut sample() const {
    CycleOut o;
    for (int p = 0; p < kNumPorts; ++p) {
      o.valid[p] = out_valid[p].read();
      if (o.valid[p]) o.flit[p] = flit_of(out_payload[p].read(), out_meta[p].read(), out_ctl[p].read());
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
