// What the fuzz targets link instead of the parts they leave out.
//
// The fuzz build has no verilated RTL: --rtl-routers parses as usual, and its check
// (sim/rtl_options.cpp) refuses with this message, like an RTL build that does not fit.
#include "tb/rtl_mesh_router.h"

namespace fm {

std::string rtl_mesh_config_error(const NetworkConfig&, const std::string&) {
  return "the RTL routers are not in this build (tests/fuzz/ builds without Verilator)";
}

RouterFactory rtl_router_factory(const NetworkConfig& cfg, const std::string& bug) {
  throw std::invalid_argument(rtl_mesh_config_error(cfg, bug));
}

}  // namespace fm

// libsystemc refers to sc_main (its own main calls it); libFuzzer supplies main.
int sc_main(int, char**) { return 0; }
