// --rtl-routers (sim/options.h): apart from the other option groups so that the option
// parsers build without the verilated RTL (tests/fuzz/ links them alone).
#include "sim/options.h"
#include "tb/rtl_mesh_router.h"

namespace fm {

po::options_description rtl_router_options() {
  po::options_description o("RTL routers (docs/cosim.md, \"Mesh-level check\")");
  o.add_options()("rtl-routers", po::bool_switch(),
                  "build the network from the verilated RTL router (rtl/) instead of the SystemC "
                  "model router; needs --local-ports 1 and V, B, P within the RTL build");
  return o;
}

RouterFactory rtl_routers_from(const po::variables_map& vm, const NetworkConfig& net, const WaveOptions& wave) {
  if (!vm["rtl-routers"].as<bool>()) return nullptr;
  const std::string err = rtl_mesh_config_error(net);
  if (!err.empty()) throw UsageError("--rtl-routers: " + err);
  if (wave.enabled()) throw UsageError("--rtl-routers: " + wave.option + " needs the SystemC model routers");
  return rtl_router_factory(net);
}

}  // namespace fm
