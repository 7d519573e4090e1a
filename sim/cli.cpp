#include "sim/cli.h"

#include <cstdio>
#include <iostream>

#include "sim/io.h"
#include "tb/util/subprocess.h"

namespace fm {

namespace {

const char* kUsage =
    "faultmesh: cycle-level SystemC model of a TPU-like inter-chip interconnect\n"
    "\n"
    "usage: faultmesh <command> [options]    (faultmesh <command> --help for its options)\n"
    "\n"
    "commands:\n"
    "  traffic        synthetic traffic on a mesh/torus: latency, throughput, link load\n"
    "  allreduce      one allreduce on TPU-like chips, fault-free or around holes\n"
    "  latency-sweep  step the injection rate, print the latency-throughput curve and\n"
    "                 the saturation point\n"
    "  routes         build the route tables for a fault set, prove them connected and\n"
    "                 deadlock-free, and report path lengths and link loads\n"
    "  bench          simulator speed: router-cycles/s, flit-hops/s, peak RSS\n"
    "  cosim          lockstep co-simulation of the verilated RTL router against the\n"
    "                 SystemC model router: every flit and credit compared each cycle\n"
    "  sweep          run a parameter sweep spec locally or on Slurm, collect results.csv\n"
    "  plot           draw the figures a sweep's results support (gnuplot PNG + SVG)\n"
    "  view           one self-contained HTML page of a run (or two side by side): the\n"
    "                 mesh, the holes, the link load over time, the timeline\n"
    "  options        every simulation parameter: option, default, range, unit and its key\n"
    "                 in the result (the table of docs/options.md)\n"
    "  report paper   the paper's experiment: allreduce around holes on 512/1024 chips,\n"
    "                 training step and availability, docs/results.md with figures\n"
    "\n"
    "exit status: 0 ok, 2 bad input, 3 the run failed (watchdog, guard, invariant),\n"
    "             4 a result could not be written (disk full, ...)\n";

}  // namespace

namespace {

// An error message as one line of text for the terminal: a message quotes what the
// user gave (a line of a binary --config or sweep spec, a file name), so control bytes
// (ESC would drive the terminal, a newline would break the one-line rule) are written
// as \xNN.
std::string printable(const std::string& m) {
  std::string o;
  for (unsigned char ch : m) {
    if (ch < 0x20 || ch == 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", ch);
      o += b;
    } else {
      o += (char)ch;
    }
  }
  return o;
}

}  // namespace

int cli_main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kUsage;
    return args.empty() ? kExitBadInput : kExitOk;
  }
  const std::string cmd = args[0];
  args.erase(args.begin());
  // A signal removes this process's temporary files and stops its children first.
  install_signal_cleanup();
  try {
    if (cmd == "traffic") return cmd_traffic(args);
    if (cmd == "latency-sweep") return cmd_latency_sweep(args);
    if (cmd == "bench") return cmd_bench(args);
    if (cmd == "routes") return cmd_routes(args);
    if (cmd == "cosim") return cmd_cosim(args);
    if (cmd == "allreduce") return cmd_allreduce(args);
    if (cmd == "sweep") return cmd_sweep(args);
    if (cmd == "plot") return cmd_plot(args);
    if (cmd == "view") return cmd_view(args);
    if (cmd == "report") return cmd_report(args);
    if (cmd == "options") return cmd_options(args);
    throw UsageError("unknown command '" + cmd + "': allowed traffic | latency-sweep | routes | allreduce | bench | cosim | sweep | plot | view | report | options");
  } catch (const UsageError& e) {
    std::cerr << "faultmesh: error: " << printable(e.what()) << "\n";
    return kExitBadInput;
  } catch (const WriteError& e) {
    std::cerr << "faultmesh: cannot write " << printable(e.what()) << "\n";
    return kExitWriteFailed;
  } catch (const std::exception& e) {
    std::cerr << "faultmesh: internal error: " << printable(e.what()) << "\n";
    return kExitInternal;
  }
}

}  // namespace fm
