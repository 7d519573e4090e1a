// The versions of the cycle model. kModelVersion covers what every run executes: the
// network (routers, links, NIs, clock) and the chips (collective engine, HBM, host).
// kRecoveryVersion covers what only runs with failures during the run execute.
//
// A stored simulation result (the paper report's run store, docs/sweeps.md) stands for
// a new run only when its configuration, its schedule's fingerprint
// (coll::fingerprint) and this version (and kRecoveryVersion, for a run with failures
// during the run) all match. A change to a schedule generator
// changes the fingerprints of the runs it touches and needs nothing here; any other
// change that alters a simulated cycle for the same schedule must bump this number, so
// that every stored result made by the older model is simulated again.
// tests/sim/golden_cycles_test.cpp holds the cycle counts of a few small runs for this
// version and fails when they change without a bump.
// A result's JSON carries both ("model_version", and "recovery_version": 0 for a run
// without --fail-at).
#pragma once

namespace fm {

inline constexpr int kModelVersion = 1;

// The version of what only runs with failures during the run (--fail-at) execute: the
// fault controller's detection, drain and recovery decisions and the resume planner.
// A change that alters a simulated cycle of such a run only bumps this one, so the
// stored results of runs without --fail-at stay valid.
// 3: the resume planner makes a plan over its memory bound in strips (before, it refused
// it and the collective restarted from its inputs: the 32x32 tori at 16 MiB and more).
// 4: a plan whose continuation's busiest link would carry more than a restart's plus its
// restore restarts instead (Host::restart).
// The run store keeps the older records neither change touches
// (sim/report/run_store.cpp, recovery_stands).
inline constexpr int kRecoveryVersion = 4;

}  // namespace fm
