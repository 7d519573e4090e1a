// Closed-loop lockstep co-simulation of the verilated RTL router (rtl/fm_router.sv)
// against the SystemC model Router (models/router.cpp), both implementing
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
// RTL parameters are compile-time: only the configurations verilated by
// rtl/CMakeLists.txt can be simulated (rtl_configs()). run_cosim elaborates a SystemC
// design, so call it once per process (tests: inside fm::test::in_child).
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tb/tracer.h"

namespace fm {

struct CosimParams {
  uint64_t cycles = 100000;
  uint32_t seed = 1;
  int dests = 32;  // route table entries used (the RTL holds 64)
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

// One verilated RTL configuration.
struct RtlConfig {
  std::string name;  // e.g. "V2 B4 P3 rr"
  int vcs, buf, pipeline;
  bool islip;
  std::string bug;  // "" or the bug-injection define it was verilated with
};

// The verilated configurations of the correct RTL (without injected bugs).
std::vector<RtlConfig> rtl_configs();
// V2 B4 P3 rr verilated with FM_BUG_RR_STUCK and with FM_BUG_LOSE_CREDIT.
std::vector<RtlConfig> rtl_bug_configs();
// The bug-free configuration with these parameters, if it was verilated.
std::optional<RtlConfig> find_rtl_config(int vcs, int buf, int pipeline, bool islip);
// "V2 B4 P3 rr, V1 B4 P1 rr, ..." for error messages.
std::string rtl_config_list();

// Runs the lockstep co-simulation in this process (once per process).
CosimResult run_cosim(const RtlConfig& cfg, const CosimParams& p);

}  // namespace fm
