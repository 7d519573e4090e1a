// The port packing of the verilated RTL router (rtl/fm_router.sv) and the per-cycle
// records of what enters and leaves a router, shared by the RTL tests (tests/rtl_bench.h)
// and the lockstep co-simulation (tb/cosim.cpp), so both drive and read the RTL the same
// way. Header only, no Verilator dependency.
#pragma once
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "models/route_table.h"
#include "models/types.h"

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
