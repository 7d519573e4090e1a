// What the Network needs of a chip's router, whatever implements it: the SystemC model
// Router (models/noc/router.h, the default) or the verilated RTL router behind an adapter
// (tb/rtl_mesh_router.h, the mesh-level RTL check of docs/cosim.md).
//
// A router is a clocked unit joined to the rest of the network only through Links: it
// reads flits arriving on its input links and credits arriving on its output links, and
// sends flits and credits into them. Every function here is called at elaboration or
// between simulation chunks (statistics, watchdog report), never per flit or per cycle,
// so the virtual dispatch costs nothing measurable; the SystemC Router's per-cycle path
// (evaluate(), called by the Clock) calls none of them.
#pragma once
#include <cstdint>
#include <string>
#include <systemc>

#include "models/noc/clock.h"
#include "models/noc/link.h"
#include "models/noc/types.h"
#include "models/route_table.h"

namespace fm {

class RouterBase : public sc_core::sc_module, public Clocked {
 public:
  RouterBase(sc_core::sc_module_name name, Clock& clk) : sc_module(name), Clocked(clk) {}
  // Links entering (flits in, credits out) and leaving (flits out, credits in) port p.
  virtual void connect_in(Port p, Link* l) = 0;
  virtual void connect_out(Port p, Link* l) = 0;
  // Installs the route table before the run; "" when accepted, else why not.
  virtual std::string load_table(const RouteTable& t) = 0;
  // Statistics and invariant monitors (Network::counters(), the Driver's guards).
  virtual uint64_t flits_switched() const = 0;
  virtual int buffered_flits() const = 0;
  // Time integral of the occupancy of input VC (p, v) up to cycle `now` (flit-cycles).
  virtual uint64_t occupancy_integral(Port p, int v, Cycle now) const = 0;
  virtual uint64_t violations() const = 0;
  virtual const std::string& first_violation() const = 0;
  // One line per non-empty input VC: where flits are stuck (watchdog report).
  virtual std::string describe_stuck() const = 0;
};

}  // namespace fm
