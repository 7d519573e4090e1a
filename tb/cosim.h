// Closed-loop lockstep co-simulation of the verilated RTL router (rtl/fm_router.sv)
// against the SystemC model Router (models/noc/router.cpp), both implementing
// docs/router-microarchitecture.md cycle for cycle.
//
// In one SystemC simulation the same random stimulus drives both routers every cycle:
// well-formed wormhole packets on all 5 inputs and all VCs within the router's credits,
// random downstream stalls and credit returns on all 5 outputs, a random legal route
// table. Every flit departing and every credit sent upstream is compared each cycle;
// the next cycle's stimulus is computed from those (identical) outputs, so the loop is
// closed. The run stops at the first mismatch. Model cycle t = RTL cycle t: inputs are
// the arrivals in t, outputs the departures and credits sent in t.
//
// One verilated RTL build serves every configuration: its VC count, buffer depth,
// pipeline depth and arbiter are run-time configuration pins (rtl/fm_router.sv), bounded
// by the build's parameters (rtl/CMakeLists.txt: V 1..4, B 1..8, P 1..4; rtl_bounds()).
// The two bug-injection builds run V2 B4 P3 rr only. run_cosim elaborates a SystemC
// design, so call it once per process (tests: inside fm::test::in_child).
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tb/tracer.h"

namespace fm {

struct CosimParams {
  uint64_t cycles = 100000;
  uint32_t seed = 1;
  int dests = 32;  // route table entries used (the RTL holds rtl_bounds().num_dests)
  // No-progress guard: stop (as a failure) when neither router has sent a flit for this
  // many cycles while the model router holds flits. Stimulus stalls last at most one
  // traffic phase (< 520 cycles), so a legitimate run never comes near the default.
  uint64_t watchdog = 10000;
  // Test hook (illegal input): in this cycle the sink of output port N returns a credit
  // for VC 0 that it does not owe (-1: never). Both routers must flag it.
  int64_t illegal_credit_at = -1;
  // Waveforms (nullptr: none): scopes model and rtl with the same port signal names, the
  // model's VC state and credits, and cosim.mismatch, set in the mismatch cycle, which
  // is always in the file (docs/waveforms.md).
  const WaveOptions* wave = nullptr;
};

struct CosimResult {
  bool agreed = false;
  uint64_t cycles = 0;            // cycles compared (the mismatching one included)
  uint64_t flits_compared = 0;    // (cycle, output port) pairs where either side sent a flit
  uint64_t credits_compared = 0;  // (cycle, input port) pairs where either side sent a credit
  uint64_t flits_model = 0;       // flits the model router sent
  std::string mismatch;           // "" when agreed; else cycle, port, VC and both values
  int64_t mismatch_cycle = -1;
  int mismatch_port = -1;
  std::string wave_note;          // the waveform recorder's note for the user ("" if none)
};
nlohmann::json to_json(const CosimResult& r);

// One router configuration to co-simulate: the model's NetworkConfig vcs, buf, pipeline
// and arbiter, which are also the RTL's cfg_* pins, and the RTL build it runs on.
struct RtlConfig {
  int vcs = 2, buf = 4, pipeline = 3;
  bool islip = false;
  std::string bug;  // "": the correct build; else the bug-injection define of its build
  // "V2 B4 P3 rr", with " FM_BUG_..." appended for a bug build.
  std::string name() const;
};

// The bounds of the correct RTL build (its verilated NUM_VCS, BUF_DEPTH, PIPELINE) and
// its route table size: every V 1..max_vcs, B 1..max_buf, P 1..max_pipeline, both
// arbiters can be co-simulated.
struct RtlBounds {
  int max_vcs, max_buf, max_pipeline, num_dests;
};
RtlBounds rtl_bounds();
// "" when c can run on its build, else one line naming the first option out of range
// and the supported range, e.g. "--vcs 5: the RTL co-simulation supports 1..4".
std::string rtl_config_error(const RtlConfig& c);
// V2 B4 P3 rr on the builds with FM_BUG_RR_STUCK and with FM_BUG_LOSE_CREDIT.
std::vector<RtlConfig> rtl_bug_configs();

// Runs the lockstep co-simulation in this process (once per process).
CosimResult run_cosim(const RtlConfig& cfg, const CosimParams& p);

}  // namespace fm
