// The whole interconnect: the clock, one router and one network interface per chip,
// one Link per direction of every ICI link and of every router<->NI channel, and the
// route tables. Built once per simulation (SystemC elaborates once per process).
//
// The routers are the SystemC model Router unless a RouterFactory is given: then every
// router is what it makes (the verilated RTL router of the mesh-level RTL check,
// tb/rtl_mesh_router.h). The Network talks to routers through RouterBase only at
// elaboration and between simulation chunks, never per cycle.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "models/config.h"
#include "models/noc/fault_set.h"
#include "models/noc/clock.h"
#include "models/noc/link.h"
#include "models/noc/ni.h"
#include "models/noc/router.h"
#include "models/noc/topology.h"
#include "models/route_table.h"

namespace fm {

// Totals over the network at one instant.
struct NetCounters {
  uint64_t flits_injected = 0, flits_ejected = 0, flits_switched = 0;
  uint64_t buffered_flits = 0, queued_packets = 0, violations = 0;
  uint64_t router_cycles_evaluated = 0;
};

// Makes the router of chip `id` (sc_module name `name`) on clock `clk`. A factory's
// routers have one local port: the network must have local_ports == 1 (the NI then never
// asks its router for a first hop).
using RouterFactory = std::function<std::unique_ptr<RouterBase>(const char* name, const NetworkConfig& cfg,
                                                                ChipId id, Clock& clk)>;

class Network : public sc_core::sc_module {
 public:
  // make_router: nullptr for SystemC model routers (the default), else the factory.
  Network(sc_core::sc_module_name name, const NetworkConfig& cfg, const RouterFactory& make_router = nullptr);
  // Fails every link the fault set marks dead (a dead chip's links included).
  void apply_faults(const FaultSet& f);
  // Loads one table per router; returns "" or the first error.
  std::string load_tables(const std::vector<RouteTable>& tables);

  const NetworkConfig& config() const { return cfg_; }
  const Topology2D& topology() const { return topo_; }
  Clock& clock() { return *clock_; }
  // The clock kernel's options, and the model routers' first VC ring size; before the
  // first cycle.
  void set_kernel_options(const KernelOptions& o) {
    clock_->set_options(o);
    for (Router* r : sc_routers_) r->set_first_ring_slots(o.first_ring_slots);
  }
  int chips() const { return topo_.chips(); }
  // The SystemC model router of chip c (the waveform tracer and tests read its state);
  // only for a network built without a factory.
  Router& router(ChipId c) { return *sc_routers_.at(c); }
  // Chip c's router, whatever it is.
  RouterBase& router_unit(ChipId c) { return *routers_[c]; }
  NetworkInterface& ni(ChipId c) { return *nis_[c]; }
  // The ICI link leaving chip c through port p (nullptr at a mesh edge).
  Link* link(ChipId c, Port p) { return net_links_[c * kNumNetPorts + p].get(); }
  NetCounters counters() const;

  // --- failures during a run (models/fault/fault_controller.h); SystemC routers only ---
  // Kills chip c: its router and NI stop, the flits they and their local lanes hold are
  // lost (returned), its ICI links fail in both directions.
  uint64_t kill_chip(ChipId c);
  // The ICI link leaving c through p fails (flits in flight on it are lost and counted
  // by the link); the upstream router stops waiting for its credits.
  void fail_link(ChipId c, Port p);
  // Reconfiguration flush of every router, link and NI; returns the flits removed.
  uint64_t flush_all();
  // Flits on links (ICI and local) right now.
  uint64_t flits_in_flight() const;
  // Flits lost in failed links: (dead destination, the rest).
  std::pair<uint64_t, uint64_t> link_drops() const;
  // Every link learns which chips are dead (to classify its drops).
  void set_dead_chips(const std::vector<char>* dead);
  // The first invariant violation reported by any router or NI ("" if none).
  std::string first_violation() const;
  // Where flits are buffered now, for the watchdog report (at most max_lines lines).
  std::string describe_stuck(int max_lines = 40) const;

 private:
  NetworkConfig cfg_;
  Topology2D topo_;
  std::unique_ptr<Clock> clock_;
  std::vector<std::unique_ptr<RouterBase>> routers_;
  std::vector<Router*> sc_routers_;  // the same routers as model Routers (empty with a factory)
  std::vector<std::unique_ptr<NetworkInterface>> ni_owned_;
  std::vector<NetworkInterface*> nis_;
  std::vector<std::unique_ptr<Link>> net_links_;    // [chip][N,E,S,W]
  std::vector<std::unique_ptr<Link>> local_links_;  // [chip][lane][inject, eject]
};

}  // namespace fm
