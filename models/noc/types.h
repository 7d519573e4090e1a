// Basic shared types: cycle counts, chip ids, port/direction numbering and flits.
// The direction numbering and the wire field widths here are the ones the RTL package
// (rtl/fm_pkg.sv) declares; tb/rtl_mesh_router.cpp static_asserts them equal.
#pragma once
#include <cstdint>

namespace fm {

using Cycle = uint64_t;
using ChipId = uint32_t;
constexpr Cycle kNever = ~Cycle(0);

// Router ports. N/E/S/W are the four ICI ports; LOCAL connects the network interface.
// North is +y, East is +x (origin at the south-west corner, see docs/router-microarchitecture.md).
// A router may have up to kMaxLocalPorts local ports ("lanes", NetworkConfig::local_ports)
// numbered kLocal, kLocal + 1, ...; route tables only ever name kLocal ("eject here"), and
// the router picks the lane (docs/router-microarchitecture.md, "Local lanes").
enum Port : uint8_t { kNorth = 0, kEast = 1, kSouth = 2, kWest = 3, kLocal = 4 };
constexpr int kNumPorts = 5;  // ports of a router with one local lane (the RTL's port count)
constexpr int kNumNetPorts = 4;
constexpr int kMaxLocalPorts = 4;
constexpr int kMaxPorts = kNumNetPorts + kMaxLocalPorts;
// The local lane a flit arriving on port `in` ejects through, and the lane a packet
// whose first hop leaves through `first_hop` is injected on: lanes are dealt out by
// direction (N,E,S,W -> 0,1,2,3 modulo the lane count), so with four lanes each ICI
// direction has its own lane and ejection never serialises two directions.
inline int lane_of(int port, int lanes) {
  return (port < kNumNetPorts ? port : port - kNumNetPorts) % lanes;
}
constexpr int kMaxVcs = 16;
// Deepest VC buffer: enough to cover the credit round trip of a long inter-chip link at
// full rate on one VC at the longest link and credit latencies (1,000 cycles each), 13 bits
// (0..4096) in the RTL's configuration port and the waveforms.
constexpr int kMaxBuf = 4096;
// Buffered flits per port (VCs x depth) at most: the links' credit rings count them in
// 16 bits, and at 32 bytes a slot a port then holds at most 1 MiB.
constexpr int kMaxPortFlits = 32768;
constexpr int kMaxPipeline = 4;  // router pipeline depth 1..4 (NetworkConfig::pipeline)

// Field widths of a flit on the wire (the RTL router's ports, rtl/fm_pkg.sv; the
// adapters static_assert each against the verilated package). The model holds chip ids
// in 32 bits (ChipId) but a wire chip id, and so an RTL route-table address, has
// kChipIdBits: the RTL adapters refuse a network whose chip ids do not fit.
constexpr int kPayloadBits = 64;
constexpr int kPacketBits = 32;
constexpr int kChipIdBits = 16;
constexpr int kSeqBits = 16;
constexpr int kKindBits = 2;
constexpr int kVcBits = 4;
constexpr int kPortBits = 3;  // the RTL's port code: 0..4, and its "no route" code
static_assert(kVcBits < 32 && (1 << kVcBits) == kMaxVcs, "the VC field holds every VC");
static_assert(kChipIdBits <= 8 * (int)sizeof(ChipId), "ChipId holds a wire chip id");
// Chips a network may have for its chip ids to fit on the wire (ids 0..chips-1).
constexpr int64_t kMaxWireChips = int64_t(1) << kChipIdBits;

// The pipeline registers of a router of pipeline depth P (docs/router-microarchitecture.md
// "Pipeline"): one after RC when P >= 3, after VA when P >= 4, after SA when P >= 2, each
// 0 or 1 (the cycles it adds). The one statement of the rule for the model Router; the
// RTL's is fm_pkg::reg_rc/reg_va/reg_sa over the thresholds below, which the RTL adapter
// static_asserts against fm_pkg's.
constexpr int kRegRcFrom = 3, kRegVaFrom = 4, kRegSaFrom = 2;
struct PipelineRegs {
  int rc, va, sa;
};
constexpr PipelineRegs pipeline_regs(int pipeline) {
  return {pipeline >= kRegRcFrom ? 1 : 0, pipeline >= kRegVaFrom ? 1 : 0, pipeline >= kRegSaFrom ? 1 : 0};
}

inline Port opposite(Port p) {
  switch (p) {
    case kNorth: return kSouth;
    case kSouth: return kNorth;
    case kEast: return kWest;
    case kWest: return kEast;
    default: return kLocal;
  }
}
const char* port_name(Port p);  // "N","E","S","W","L", then "L1".."L3"

// Flit kinds are two bits: a single-flit packet is both head and tail.
enum FlitKind : uint8_t { kBody = 0, kHead = 1, kTail = 2, kHeadTail = 3 };

// One flit as it sits in a buffer or on a link. Packets are identified by
// (src, packet): `packet` is the source's own sequence number, so ids do not depend on
// the order in which processes run.
struct Flit {
  uint64_t payload = 0;  // data word (allreduce verification mode); 0 in traffic runs
  uint32_t packet = 0;   // per-source packet sequence number
  ChipId src = 0;
  ChipId dst = 0;
  uint16_t seq = 0;      // index of this flit within its packet
  uint8_t kind = kBody;  // FlitKind bits
  uint8_t vc = 0;        // virtual channel on the link it travels / buffer it sits in
  bool head() const { return kind & kHead; }
  bool tail() const { return kind & kTail; }
};

}  // namespace fm
