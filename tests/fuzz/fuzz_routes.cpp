// fuzz_routes: the bytes decode into a small network and a fault set; the route set is
// built the way every run builds it (validate, FaultSet, build_routes). Invariant: a
// refusal (ConfigError with a message), or a route set that
//   - the routers would load (Router::load_table's rules: every entry is "no route" or
//     a connected port with a non-empty VC mask within the VCs),
//   - check_routes accepts (connected, deadlock-free), and
//   - walked hop by hop from every live chip to every other live chip, arrives within
//     `chips` hops, never over a dead or missing link, never through a dead chip, and
//     ejects at the destination (its own entry is the local port).
// Any fault set that leaves the live chips connected must be routable by lash and auto
// (with 2 VCs when there are one-way link failures, models/routing/routes.h).
//
// Input layout (missing bytes read as 0):
//   0: width - 2 (mod 11: 2..12)      1: height - 2 (mod 11)
//   2: bit 0 torus; bits 1..3 routing (mod 5: xy yx lash fring auto)
//   3: vcs - 1 (mod 8: 1..8)          4: board w - 1, h - 1 (low, high nibble mod 3: 1..3)
//   then 3 bytes per fault (at most 24): kind (mod 5: chip, board, link, oneway link,
//   chip), x, y (mod the grid), the link direction in the kind byte's bits 4..5.
#include <cstdint>
#include <string>
#include <vector>

#include "models/noc/fault_set.h"
#include "tb/config_schema.h"
#include "models/routing/checker.h"
#include "models/routing/routes.h"
#include "tests/fuzz/fuzz_util.h"

using namespace fm;

namespace {

std::string at(const Topology2D& t, int c) {
  return "(" + std::to_string(t.x(c)) + "," + std::to_string(t.y(c)) + ")";
}

void check_tables(const NetworkConfig& n, const FaultSet& f, const RouteSet& rs) {
  const Topology2D& t = f.topology();
  const int chips = t.chips();
  if ((int)rs.tables.size() != chips) fuzz::fail("route set has " + std::to_string(rs.tables.size()) + " tables");
  for (int c = 0; c < chips; ++c) {
    if (rs.tables[c].size() != chips) fuzz::fail("table of " + at(t, c) + " has the wrong size");
    for (int d = 0; d < chips; ++d) {
      const RouteEntry& e = rs.tables[c].lookup(d);
      // The routers' own rule (route_entry_fault), with c's local port and the ports
      // that have a neighbour as the connected ones.
      uint32_t ports = 1u << kLocal;
      for (int p = 0; p < kNumNetPorts; ++p)
        if (t.neighbour(c, (Port)p) >= 0) ports |= 1u << p;
      if (route_entry_fault(e, n.vcs, ports) != RouteEntryFault::kNone)
        fuzz::fail(rs.scheme + ": the router at " + at(t, c) + " would refuse its entry for " + at(t, d) +
                   " (port " + std::to_string(e.port) + ", mask " + std::to_string(e.vc_mask) + ")");
    }
  }
  const RouteCheck chk = check_routes(f, rs.tables, n.vcs);
  if (!chk.ok()) fuzz::fail(rs.scheme + ": check_routes refuses the set: " + chk.problem);
  for (int d = 0; d < chips; ++d) {
    if (f.chip_dead(d)) continue;
    if (rs.tables[d].lookup(d).port != kLocal)
      fuzz::fail(rs.scheme + ": " + at(t, d) + " does not eject packets addressed to itself");
    for (int s = 0; s < chips; ++s) {
      if (f.chip_dead(s) || s == d) continue;
      int c = s, hops = 0;
      while (c != d) {
        const RouteEntry& e = rs.tables[c].lookup(d);
        auto bad = [&](const std::string& what) {  // the message only when it fails
          fuzz::fail(rs.scheme + ": route " + at(t, s) + " -> " + at(t, d) + " at " + at(t, c) + ": " + what);
        };
        if (e.port >= kNumNetPorts) bad("no network port (" + std::to_string(e.port) + ")");
        if (f.link_dead(c, (Port)e.port)) bad("over a dead or missing link");
        const long next = t.neighbour(c, (Port)e.port);
        if (next < 0 || f.chip_dead((ChipId)next)) bad("into a dead chip");
        if (++hops > chips) bad("more hops than chips (a loop)");
        c = (int)next;
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto byte = [&](size_t i) -> unsigned { return i < size ? data[i] : 0; };
  Config cfg;
  NetworkConfig& n = cfg.net;
  n.width = 2 + (int)(byte(0) % 11);
  n.height = 2 + (int)(byte(1) % 11);
  n.topology = byte(2) & 1 ? Topology::Torus : Topology::Mesh;
  static const Routing kSchemes[] = {Routing::XY, Routing::YX, Routing::Lash, Routing::FRing, Routing::Auto};
  n.routing = kSchemes[((byte(2) >> 1) & 7) % 5];
  n.vcs = 1 + (int)(byte(3) % 8);
  n.board_w = 1 + (int)((byte(4) & 15) % 3);
  n.board_h = 1 + (int)((byte(4) >> 4) % 3);
  for (size_t i = 5; i + 2 < size && n.faults.chips.size() + n.faults.boards.size() + n.faults.links.size() < 24;
       i += 3) {
    const unsigned kind = data[i] % 5;
    const int x = data[i + 1], y = data[i + 2];
    const int bx = (n.width + n.board_w - 1) / n.board_w, by = (n.height + n.board_h - 1) / n.board_h;
    if (kind == 1) {
      n.faults.boards.push_back({x % bx, y % by});
    } else if (kind == 2 || kind == 3) {
      LinkFault l;
      l.at = {x % n.width, y % n.height};
      l.dir = (Port)((data[i] >> 4) & 3);
      l.both = kind == 2;
      // A link off the mesh edge is a refusal of its own (tested by fuzz_fault_schedule);
      // turn it inward here so the fuzzer spends its time on routable fault sets.
      const Topology2D t(n);
      if (t.neighbour(t.id(l.at.x, l.at.y), l.dir) < 0) l.dir = opposite(l.dir);
      n.faults.links.push_back(l);
    } else {
      n.faults.chips.push_back({x % n.width, y % n.height});
    }
  }
  const std::string err = validate(cfg, Command::Routes);
  if (!err.empty()) {  // e.g. a torus with 1 VC: the CLI refuses it like this
    fuzz::note("invalid: " + err);
    return 0;
  }
  try {
    const FaultSet f(n);
    const bool connected = f.connectivity().empty();
    RouteSet rs;
    try {
      rs = build_routes(n, f);
    } catch (const ConfigError& e) {
      fuzz::expect_message(e);
      // lash routes every connected fault set, except (routes.h) with 1 VC when
      // one-way failures leave no two-way spanning tree: its fallback needs 2 VCs.
      bool oneway = false;
      for (const LinkFault& l : n.faults.links) oneway |= !l.both;
      if (connected && (n.routing == Routing::Lash || n.routing == Routing::Auto) && !(oneway && n.vcs < 2))
        fuzz::fail(std::string("lash/auto refused a connected fault set: ") + e.what());
      return 0;
    }
    if (!connected) fuzz::fail(rs.scheme + " built routes for a partitioned fault set");
    check_tables(n, f, rs);
    fuzz::note(std::to_string(n.width) + "x" + std::to_string(n.height) + " " + to_string(n.topology) + " " +
               rs.scheme + " vcs " + std::to_string(n.vcs) + " dead " + f.describe() + ": routed and checked");
  } catch (const ConfigError& e) {
    fuzz::expect_message(e);  // FaultSet: every chip dead
  }
  return 0;
}
