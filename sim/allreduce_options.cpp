// The allreduce command's options and their validation into a Config (sim/options.h),
// apart from the command itself so that the option parsers build without the
// simulator (sweep specs use them too; tests/fuzz/ links them alone).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "models/collective/algorithms.h"
#include "models/noc/fault_set.h"
#include "sim/cli.h"
#include "sim/options.h"
#include "tb/allreduce_run.h"
#include "tb/memory.h"

namespace fm {

namespace {

const double kMaxComputeUs = 1e7;

po::options_description collective_options() {
  const Config d;
  po::options_description o("Collective and chip");
  o.add_options()
    ("algo", po::value<std::string>()->default_value(coll::to_string(d.coll.algo)),
     (std::string(coll::kAlgoNames) + " (docs/collectives.md)").c_str())
    ("order", po::value<std::string>()->default_value(coll::to_string(d.coll.order)),
     "2-D phase order: xy | yx | both (half the data each way at once)")
    ("bytes", po::value<std::string>()->default_value("16MiB"),
     "gradient bytes per chip, e.g. 64MiB, 100MB, 4096")
    ("dtype", po::value<std::string>()->default_value("fp32"), "fp32 | bf16 (element size)")
    ("chunk", po::value<std::string>()->default_value("auto"),
     "pipelining chunk of every schedule (a multiple of --flit-bytes); auto: bytes/256 "
     "clamped to 4..64 KiB, so small collectives still pipeline")
    ("line", po::value<std::string>()->default_value(coll::to_string(d.coll.line)),
     "2-D family lines: ring (natural ring where it closes, else alternate-node) | chain "
     "(reduce toward each owner from both ends, copy back: S per link direction) | auto "
     "(ring where it closes, chain where not)")
    ("slices", po::value<std::string>()->default_value("auto"),
     "2-D family: the buffer cut into N slices run one after another, 1..64, so a "
     "slice's later phases (and ft2d's fold) overlap the next slice's rings (auto: 4, "
     "for 2d, shrink and ft2d alike)")
    ("verify", po::value<std::string>()->default_value("auto")->implicit_value("on"),
     "on | off | auto: flits carry data words and every chip's sum is checked "
     "(auto: on when all chips' words fit in 1 GiB); --verify alone: on")
    ("packet-words", po::value<int>()->default_value(d.chip.packet_words),
     "data flits per packet, 1..1024 (plus one header flit)")
    ("send-order", po::value<std::string>()->default_value("schedule"),
     "which ready packet a lane starts first: schedule (earliest transfer in the schedule) | "
     "fifo (first read from HBM)")
    ("hbm-bw", po::value<double>()->default_value(d.chip.hbm_gbps), "HBM bandwidth per chip, GB/s")
    ("hbm-bytes", po::value<std::string>()->default_value("32GiB"), "HBM capacity per chip")
    ("reduce-bw", po::value<double>()->default_value(d.chip.reduce_gbps),
     "reduction unit throughput, GB/s of incoming data")
    ("compute-us", po::value<double>()->default_value(d.chip.compute_us),
     "compute time of a training step before the allreduce, microseconds, 0..1e7 (10 s; "
     "simulated cycle by cycle like the allreduce)")
    ("fail-at", po::value<std::vector<std::string>>()->composing(),
     "a failure during the run: WHEN:chip:x,y | WHEN:board:bx,by | WHEN:link:x,y:D[:oneway], "
     "WHEN a cycle (120000), a share of the data reduced (50%) or the start of a phase "
     "(@reduce-scatter-y, @all-gather-x+500: that many cycles later); repeatable (docs/faults.md)")
    ("fail-schedule", po::value<std::string>(),
     "a file of failures during the run, one --fail-at value per line, # comments (docs/faults.md)")
    ("detect-cycles", po::value<long long>()->default_value((long long)d.recovery.detect),
     "cycles from a failure until the neighbours report it")
    ("drain-quiet", po::value<long long>()->default_value((long long)d.recovery.quiet),
     "recovery: flush the network once no flit has moved for this many cycles")
    ("restart-algo", po::value<std::string>()->default_value(coll::to_string(d.recovery.restart_algo)),
     "the algorithm the collective restarts with after a failure")
    ("watchdog", po::value<long long>()->default_value((long long)d.run.watchdog),
     "stop when no flit moves for this many cycles while work waits")
    ("max-cycles", po::value<std::string>()->default_value("auto"),
     "stop when the allreduce has not finished after this many cycles "
     "(auto: 16x the busiest chip's own traffic, docs/errors.md)");
  return o;
}

void collective_from(const po::variables_map& vm, Config* c) {
  CollectiveConfig& k = c->coll;
  ChipConfig& ch = c->chip;
  const auto str = [&](const char* n) { return vm[n].as<std::string>(); };
  if (!coll::parse_algo(str("algo"), &k.algo))
    throw UsageError("--algo " + str("algo") + ": allowed " + coll::kAlgoNames);
  if (!coll::parse_order(str("order"), &k.order))
    throw UsageError("--order " + str("order") + ": allowed xy | yx | both");
  if (!coll::parse_line(str("line"), &k.line))
    throw UsageError("--line " + str("line") + ": allowed ring | chain | auto");
  if (!parse_bytes(str("bytes"), &k.bytes))
    throw UsageError("--bytes " + str("bytes") + ": expected a positive whole number of bytes, e.g. 64MiB, 100MB, 4096");
  if (str("dtype") == "fp32") k.dtype = DType::Fp32;
  else if (str("dtype") == "bf16") k.dtype = DType::Bf16;
  else throw UsageError("--dtype " + str("dtype") + ": allowed fp32 | bf16");
  const uint64_t elem = k.dtype == DType::Bf16 ? 2 : 4;
  if (k.bytes % elem)
    throw UsageError("--bytes " + str("bytes") + ": must be a multiple of the " + str("dtype") +
                     " element size (" + std::to_string(elem) + " bytes)");
  const uint64_t fb = (uint64_t)c->net.flit_bytes;
  if (str("chunk") == "auto") {
    const uint64_t want = std::min<uint64_t>(64 << 10, std::max<uint64_t>(4 << 10, k.bytes / 256));
    k.chunk_bytes = std::max<uint64_t>(fb, want / fb * fb);
  } else if (!parse_bytes(str("chunk"), &k.chunk_bytes) || k.chunk_bytes % fb || k.chunk_bytes >= (1ULL << 32))
    throw UsageError("--chunk " + str("chunk") + ": must be a positive multiple of --flit-bytes (" +
                     std::to_string(fb) + ") below 4 GiB");
  if (k.bytes / fb >= (1ULL << 32))
    throw UsageError("--bytes " + str("bytes") + ": at most 2^32 flits of data per chip");
  if (str("slices") == "auto") {
    k.slices = 0;
  } else {
    const std::string v = str("slices");
    char* end = nullptr;
    const unsigned long n = v.empty() || !std::isdigit((unsigned char)v[0]) ? 0 : std::strtoul(v.c_str(), &end, 10);
    if (n < 1 || n > coll::kMaxSlices || !end || *end)
      throw UsageError("--slices " + v + ": allowed auto or 1.." + std::to_string(coll::kMaxSlices));
    k.slices = (uint32_t)n;
  }
  if (str("verify") == "on") k.verify = Verify::On;
  else if (str("verify") == "off") k.verify = Verify::Off;
  else if (str("verify") == "auto") k.verify = Verify::Auto;
  else throw UsageError("--verify " + str("verify") + ": allowed on | off | auto");
  ch.packet_words = vm["packet-words"].as<int>();
  if (ch.packet_words < 1 || ch.packet_words > 1024)
    throw UsageError("--packet-words " + std::to_string(ch.packet_words) + ": allowed 1..1024");
  if (str("send-order") == "schedule") ch.send_order = ChipConfig::SendOrder::Schedule;
  else if (str("send-order") == "fifo") ch.send_order = ChipConfig::SendOrder::Fifo;
  else throw UsageError("--send-order " + str("send-order") + ": allowed schedule | fifo");
  ch.hbm_gbps = vm["hbm-bw"].as<double>();
  ch.reduce_gbps = vm["reduce-bw"].as<double>();
  if (!(ch.hbm_gbps > 0) || !(ch.reduce_gbps > 0))
    throw UsageError("--hbm-bw and --reduce-bw must be positive GB/s");
  if (!parse_bytes(str("hbm-bytes"), &ch.hbm_bytes))
    throw UsageError("--hbm-bytes " + str("hbm-bytes") + ": expected bytes, e.g. 32GiB");
  if (k.bytes > ch.hbm_bytes)
    throw UsageError("--bytes " + str("bytes") + " does not fit in --hbm-bytes " + str("hbm-bytes"));
  // Up to 10 s, more than any training step's compute and within what a run can
  // simulate (0.5 s of wall time per ms on a 4x4 mesh); 1e300 overflowed the cycle count.
  ch.compute_us = vm["compute-us"].as<double>();
  if (!(ch.compute_us >= 0 && ch.compute_us <= kMaxComputeUs)) {
    char v[32];  // as typed, as far as a double keeps it: 10000001, 1e+300, inf
    std::snprintf(v, sizeof v, "%.15g", ch.compute_us);
    throw UsageError("--compute-us " + std::string(v) + ": allowed 0..1e7 microseconds (10 s)");
  }
  // One failure of the schedule; `where` names it in errors ("--fail-at X", "FILE line N").
  auto add_timed = [&](const std::string& f, const std::string& where) {
    TimedFault t;
    const std::string e = parse_timed_fault(f, &t);
    if (!e.empty()) throw UsageError(where + ": " + e);
    FaultConfig one;
    one.timed.push_back(t);
    const std::string place = place_error(c->net, with_timed(one, {0}));
    if (!place.empty()) throw UsageError(where + ": " + place);
    c->net.faults.timed.push_back(t);
  };
  if (vm.count("fail-schedule")) {
    const std::string path = str("fail-schedule");
    std::ifstream in;
    open_input_file(path, "--fail-schedule " + path, &in);
    std::string line;
    for (int no = 1; std::getline(in, line); ++no) {
      if (const size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
      const size_t a = line.find_first_not_of(" \t\r"), b = line.find_last_not_of(" \t\r");
      if (a == std::string::npos) continue;  // blank or comment
      add_timed(line.substr(a, b - a + 1), "--fail-schedule " + path + " line " + std::to_string(no));
    }
  }
  if (vm.count("fail-at"))
    for (const std::string& f : vm["fail-at"].as<std::vector<std::string>>()) add_timed(f, "--fail-at " + f);
  c->recovery.detect = cycles_opt(vm, "detect-cycles", 0);
  c->recovery.quiet = cycles_opt(vm, "drain-quiet", 8);
  if (!coll::parse_algo(str("restart-algo"), &c->recovery.restart_algo))
    throw UsageError("--restart-algo " + str("restart-algo") + ": allowed " + coll::kAlgoNames);
  c->run.watchdog = cycles_opt(vm, "watchdog", 1);
  const std::string mc = str("max-cycles");
  if (mc == "auto") {
    c->run.max_cycles = 0;
  } else {
    uint64_t v = 0;
    size_t pos = 0;
    try {
      if (!mc.empty() && std::isdigit((unsigned char)mc[0])) v = std::stoull(mc, &pos);
    } catch (...) {
      pos = 0;
    }
    if (pos != mc.size() || v < 1) throw UsageError("--max-cycles " + mc + ": allowed auto or a whole number of cycles >= 1");
    c->run.max_cycles = v;
  }
}

}  // namespace

po::options_description allreduce_options() {
  NetworkConfig nd;
  nd.local_ports = 4;  // a chip's DMA engines feed all four links at once
  nd.vcs = 4;          // lash around holes needs them to stay minimal on a torus (docs/routing.md)
  po::options_description desc;
  desc.add(network_options(nd)).add(collective_options());
  return desc;
}

Config allreduce_config_from(const po::variables_map& vm) {
  // One memory check, once the collective is known: of the whole estimate, never a
  // partial one of the network alone that a smaller limit would report first.
  Config cfg = config_from(vm, /*check_network_memory=*/false);
  collective_from(vm, &cfg);
  check_memory(estimate_allreduce_memory(cfg, FaultSet(cfg.net), verifies(cfg)), cfg.run.mem_limit);
  return cfg;
}

}  // namespace fm
