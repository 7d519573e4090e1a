#include "models/route_table.h"

namespace fm {

uint16_t all_vcs_mask(int vcs) { return (uint16_t)((1u << vcs) - 1); }

uint16_t vc_group_mask(int vcs, int g, int k) {
  const int lo = g * vcs / k, hi = (g + 1) * vcs / k;
  return (uint16_t)(((1u << hi) - 1) & ~((1u << lo) - 1));
}

}  // namespace fm
