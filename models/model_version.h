// The version of the cycle model: the network (routers, links, NIs, clock), the chips
// (collective engine, HBM, host), the fault controller and the recovery planner.
//
// A stored simulation result (the paper report's run store, docs/results.md) stands for
// a new run only when its configuration, its schedule's fingerprint
// (coll::fingerprint) and this version all match. A change to a schedule generator
// changes the fingerprints of the runs it touches and needs nothing here; any other
// change that alters a simulated cycle for the same schedule must bump this number, so
// that every stored result made by the older model is simulated again.
// tests/sim/golden_cycles_test.cpp holds the cycle counts of a few small runs for this
// version and fails when they change without a bump.
#pragma once

namespace fm {

inline constexpr int kModelVersion = 1;

}  // namespace fm
