#include "sim/cli.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "models/noc/clock.h"
#include "sim/options.h"
#include "sim/paper_report.h"
#include "sim/report.h"
#include "tb/util/subprocess.h"
#include "sim/sweep.h"
#include "sim/view.h"
#include "tb/config_schema.h"
#include "tb/traffic_run.h"

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

void write_file_atomic(const std::string& path, const std::string& text) {
  const ResultTemp tf(path);  // removed by a signal until renamed
  const std::string& tmp = tf.path();
  auto fail = [&](int err) {
    tf.remove();
    throw WriteError(path, err);
  };
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) fail(errno);
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      close(fd);
      fail(err);
    }
    done += (size_t)n;
  }
  if (close(fd) != 0) fail(errno);
  if (!tf.in_place() && std::rename(tmp.c_str(), path.c_str()) != 0) fail(errno);
}

void run_outputs_from(const po::variables_map& vm, const NetworkConfig& net, Outputs* out, WaveOptions* wave,
                      RunOptions* ro) {
  *out = outputs_from(vm);
  out->html = html_from(vm);
  *wave = wave_from(vm, &net);
  ro->progress = isatty(2) && !out->quiet;
  ro->wave = wave;
  ro->router_factory = rtl_routers_from(vm, net, *wave);
}

int cmd_traffic(const std::vector<std::string>& args) {
  po::options_description desc;
  desc.add(network_options()).add(traffic_options()).add(output_options()).add(html_options())
      .add(wave_options()).add(rtl_router_options());
  po::variables_map vm;
  if (!parse_args(args, desc,
                  "usage: faultmesh traffic [options]\n"
                  "Synthetic traffic: warm-up, measurement window, then drain until every "
                  "packet is delivered.",
                  &vm))
    return kExitOk;
  const Config cfg = config_from(vm);
  Outputs out;
  WaveOptions wave;
  RunOptions ro;
  run_outputs_from(vm, cfg.net, &out, &wave, &ro);
  const TrafficResult r = run_traffic(cfg, ro);
  return finish_run(out, result_json(r), human_summary(r), "  ", ro, wave, r.wave_note, r.ok,
                    r.stop_reason, r.message);
}

// `faultmesh options`: the declared schema's parameter table (tb/config_schema.h), the
// same text docs/options.md holds.
int cmd_options(const std::vector<std::string>& args) {
  po::options_description none;
  po::variables_map vm;
  if (!parse_args(args, none,
                  "usage: faultmesh options\nEvery simulation parameter as a Markdown table (docs/options.md).", &vm))
    return kExitOk;
  std::cout << params_markdown();
  return kExitOk;
}

int finish_run(const Outputs& out, nlohmann::ordered_json j, const std::string& summary,
               const char* indent, const RunOptions& ro, const WaveOptions& wave,
               const std::string& wave_note, bool ok, const std::string& stop_reason,
               const std::string& message) {
  if (ro.router_factory) j["config"]["rtl-routers"] = true;
  if (!out.json.empty()) write_file_atomic(out.json, j.dump(2) + "\n");
  if (!out.csv.empty()) write_file_atomic(out.csv, csv_from_json(j));
  if (!out.html.empty()) {
    // The page is named after the run's JSON file when there is one.
    const std::string& named = out.json.empty() ? out.html : out.json;
    write_run_html(out.html, j, named.substr(named.find_last_of('/') + 1));
  }
  if (!out.quiet) std::cout << summary;
  if (ro.router_factory && !out.quiet) std::cout << indent << "routers         RTL (verilated rtl/fm_router.sv)\n";
  if (wave.enabled() && !out.quiet) std::cout << indent << "waveform        " << wave.path << "\n";
  if (!wave_note.empty()) std::cerr << "faultmesh: note: " << wave_note << "\n";
  if (!ok) {
    std::cerr << "faultmesh: run failed (" << stop_reason << "): " << message << "\n";
    return kExitRunFailed;
  }
  return kExitOk;
}

int threads_per_child(int jobs) { return std::max(1, Clock::threads_for(0) / std::max(1, jobs)); }

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
