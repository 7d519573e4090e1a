#include "models/route_table.h"

#include <sstream>

namespace fm {

std::string route_entry_error(const std::string& router, ChipId dst, const RouteEntry& e, int vcs) {
  std::ostringstream m;
  m << "route table of " << router << ": entry for destination " << dst << " names port "
    << (int)e.port << " with VC mask 0x" << std::hex << e.vc_mask
    << ", which is not a connected port and a non-empty subset of the " << std::dec << vcs
    << " VCs";
  return m.str();
}

uint16_t all_vcs_mask(int vcs) { return (uint16_t)((1u << vcs) - 1); }

uint16_t vc_group_mask(int vcs, int g, int k) {
  const int lo = g * vcs / k, hi = (g + 1) * vcs / k;
  return (uint16_t)(((1u << hi) - 1) & ~((1u << lo) - 1));
}

}  // namespace fm
