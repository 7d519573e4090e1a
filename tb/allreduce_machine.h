// The allreduce testbench's machine as built for one run, shared by its two files:
// tb/allreduce_run.cpp builds and runs it, tb/allreduce_measure.cpp measures it. Private
// to those two.
#pragma once
#include <memory>
#include <vector>

#include "models/chip/chip.h"
#include "models/chip/host.h"
#include "models/fault/fault_controller.h"
#include "models/noc/network.h"
#include "tb/allreduce_run.h"
#include "tb/tracer.h"
#include "tb/view_data.h"

namespace fm::allreduce_tb {

// One allreduce machine as built for a run: the network, the chips, the host, the fault
// controller and the tracer (SystemC modules, elaborated in this order and destroyed in
// the reverse), with what the run and its measurement need from the setup.
struct Machine {
  Config cfg;  // the run's (verify resolved); the modules keep references into it
  std::shared_ptr<const FaultSet> faults;  // before the run
  RouteSet routes;
  std::unique_ptr<CollectiveLibrary> lib;
  std::shared_ptr<CollectiveRun> first;  // the collective as it starts
  uint64_t first_flits = 0;              // its flits, headers included
  Cycle compute_cycles = 0;
  std::unique_ptr<Network> net;
  std::vector<std::unique_ptr<Chip>> chips;  // by chip id; null for chips dead before the run
  std::unique_ptr<Host> host;
  std::unique_ptr<FaultController> ctl;  // only with failures during the run
  std::unique_ptr<Tracer> tracer;
};

// Measure: counters, conservation, timing from the first START to the last completion,
// bounds on the final topology, phases, link utilization, and the sums (verify). ok:
// the run was not stopped early; done: the cycles simulated.
void measure(Machine& m, const LinkWindows& link_windows, bool ok, Cycle done, AllreduceResult& r);

}  // namespace fm::allreduce_tb
