// The faultmesh command line: the command table. cli_main dispatches to one cmd_*
// per command (sim/commands/, and sim/report/ for `report paper`); what they share is
// in sim/io.h and sim/options.h.
#pragma once
#include <string>
#include <vector>

namespace fm {

int cli_main(int argc, char** argv);

// The commands. args excludes the program and command names.
int cmd_traffic(const std::vector<std::string>& args);
int cmd_options(const std::vector<std::string>& args);
int cmd_latency_sweep(const std::vector<std::string>& args);
int cmd_bench(const std::vector<std::string>& args);
int cmd_routes(const std::vector<std::string>& args);
int cmd_cosim(const std::vector<std::string>& args);
int cmd_allreduce(const std::vector<std::string>& args);
int cmd_sweep(const std::vector<std::string>& args);
int cmd_plot(const std::vector<std::string>& args);
int cmd_view(const std::vector<std::string>& args);
int cmd_report(const std::vector<std::string>& args);

}  // namespace fm
