// The verilated RTL router (rtl/fm_router.sv) as a router of a Network: the mesh-level
// RTL check (docs/cosim.md, "Mesh-level check") builds a whole mesh or torus from RTL
// routers with Network's router factory and compares it with the same network built
// from the SystemC model Router, under the same traffic or allreduce.
//
// The adapter (RtlMeshRouter in the .cpp) is a clocked unit like the model Router. In
// every cycle t it reads the flit arriving on each input Link and the credit arriving on
// each output Link in t, drives them onto the RTL's pins, lets the RTL settle, and sends
// the RTL's outputs of t into the Links exactly as the model Router would: the flit on
// out_<p> departs in t (Link::send(f, t); the model sends at SA with departure
// t_SA + regSA, the RTL shows that flit on its pins in that departure cycle), the credit
// on cr_out_<p> is sent upstream in t. These are the lockstep co-simulation's
// conventions (tb/cosim.cpp), which prove the two routers equivalent port by port. The
// route table goes in through the RTL's register port, V, B, P and the arbiter through
// its cfg_* pins, during a reset sequence at time 0 before cycle 0 is evaluated.
#pragma once
#include <string>

#include "models/config.h"
#include "models/noc/network.h"

namespace fm {

// "" when a network of cfg can be built from the RTL build `bug` ("": the correct build,
// or FM_BUG_RR_STUCK / FM_BUG_LOSE_CREDIT), else one line saying why not: the RTL has
// one local port (local_ports must be 1), V, B and P must be within the build's bounds,
// and every chip needs an entry in its route table.
std::string rtl_mesh_config_error(const NetworkConfig& cfg, const std::string& bug = "");

// A router factory for Network: every router is an RTL router of the build `bug`.
// Throws std::invalid_argument when rtl_mesh_config_error(cfg, bug) is not "".
RouterFactory rtl_router_factory(const NetworkConfig& cfg, const std::string& bug = "");

}  // namespace fm
