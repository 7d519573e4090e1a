// The parallel kernel (models/noc/clock.h) gives the serial results: traffic runs on 8x8
// meshes and tori (fault-free, a failed board, failed links, a failed chip, work in one
// band only, which moves the bands) at 2 and 3 threads must give what one thread
// gives, statistic for statistic: flits injected,
// ejected and switched, packets delivered, every latency percentile, per-link
// utilisation and the per-window link flit counts of the run page. Every cycle runs on
// the workers (KernelOptions parallel_min 1, parallel Always), so the outboxes, the
// commit step and the barriers carry every send, with the clock's prefetch hints on
// (prefetch On; on their own they would run only on larger machines).
//
// These networks have routers and NIs only, evaluated by the clock: no SC_THREAD runs.
// That is what lets sim/run_tsan_tests.sh run this file (with tests/noc/clock_test.cpp)
// under ThreadSanitizer, which SystemC does not tell about its coroutine stack switches
// (docs/performance.md, "ThreadSanitizer").
//
// Each run is a forked child (tests/sim_util.h): SystemC elaborates once per process.
#include <gtest/gtest.h>

#include <cstdlib>
#include <ostream>
#include <string>
#include <vector>

#include "tb/config_schema.h"
#include "tests/sim_util.h"

namespace fm {
namespace {

struct ThreadedRun {
  nlohmann::json result;  // result_json without the host figures
  uint64_t parallel_cycles = 0, total_cycles = 0, rebalances = 0;
  int threads = 0;
  bool ok = false;
};

ThreadedRun run_with_threads(Config c, int threads) {
  c.run.threads = threads;
  // Every cycle with an awake unit goes to the workers, and the prefetch hints run there
  // too (on their own they would run only on larger machines).
  c.run.kernel.parallel_min = 1;
  c.run.kernel.parallel = KernelOptions::Parallel::Always;
  c.run.kernel.prefetch = KernelOptions::Prefetch::On;
  const nlohmann::json j = test::in_child([c] { return nlohmann::json(result_json(run_traffic(c))); });
  ThreadedRun r;
  if (j.empty()) return r;
  r.ok = j.value("ok", false);
  r.total_cycles = j.value("cycles", uint64_t(0));
  r.threads = j["simulator"].value("threads", 0);
  r.parallel_cycles = j["simulator"].value("parallel_cycles", uint64_t(0));
  r.rebalances = j["simulator"].value("rebalances", uint64_t(0));
  r.result = j;
  // Host figures differ from run to run; router_activity (in "simulator") also differs
  // between one thread and several (models/noc/clock.h): never a simulated result.
  for (const char* k : {"simulator", "wall_seconds", "router_cycles_per_second"}) r.result.erase(k);
  r.result["config"].erase("threads");
  return r;
}

struct Case {
  const char* name;
  Config cfg;
  bool moves_bands = false;  // lopsided: the clock must rebalance at 2 and 3 threads
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }  // not the bytes

Config traffic(Topology t, double rate) {
  Config c = test::small_config(8, 8, t);
  c.traffic.rate = rate;
  c.traffic.packet_min = 1;
  c.traffic.packet_max = 6;
  c.run.warmup = 100;
  c.run.cycles = 500;
  c.run.max_drain = 20000;
  return c;
}

std::vector<Case> cases() {
  std::vector<Case> v;
  v.push_back({"mesh8x8_uniform", traffic(Topology::Mesh, 0.3)});
  v.push_back({"torus8x8_uniform", traffic(Topology::Torus, 0.3)});
  {  // past saturation around a hole: a failed board (Lash routes around it)
    Config c = traffic(Topology::Mesh, 0.6);
    c.net.faults.boards = {{1, 1}};
    v.push_back({"mesh8x8_board_1_1", c});
  }
  {  // failed links, one of them one way, and a failed chip, on a torus
    Config c = traffic(Topology::Torus, 0.3);
    c.net.faults.links = {{{2, 2}, kEast, true}, {{5, 6}, kNorth, false}};
    c.net.faults.chips = {{6, 1}};
    v.push_back({"torus8x8_links_chip", c});
  }
  {  // deeper pipeline, longer links and credits: more in flight across the barriers
    Config c = traffic(Topology::Torus, 0.25);
    c.traffic.pattern = Pattern::Transpose;
    c.net.vcs = 3;
    c.net.buf = 2;
    c.net.pipeline = 4;
    c.net.link_latency = 3;
    c.net.credit_latency = 2;
    c.net.local_ports = 2;
    v.push_back({"torus8x8_transpose_lat3", c});
  }
  {  // long links: idle receivers sleep until a flight's first arrival, reading the link's
     // slots while senders in other bands write theirs (Link::next_arrival)
    Config c = traffic(Topology::Torus, 0.1);
    c.net.link_latency = c.net.credit_latency = 40;
    c.net.buf = 88;  // covers the credit round trip (pipeline + 2 x 40 + 1)
    c.run.cycles = 6000;
    v.push_back({"torus8x8_uniform_lat40", c});
  }
  {  // lopsided: only the bottom two rows send, to their neighbours, so one band of
     // chips holds the work and the clock moves the band boundaries (Clock::rebalance)
     // while units are awake and booked: the moves must not change a result
    Config c = traffic(Topology::Mesh, 0.4);
    c.traffic.pattern = Pattern::Neighbour;
    for (int x = 0; x < 8; ++x) c.traffic.sources.push_back({x, 0}), c.traffic.sources.push_back({x, 1});
    c.run.cycles = 8000;
    v.push_back({"mesh8x8_two_rows_send", c, true});
  }
  return v;
}

class KernelThreads : public testing::TestWithParam<Case> {};

TEST_P(KernelThreads, SameResultsAsOneThread) {
  const Config& c = GetParam().cfg;
  ASSERT_EQ(validate(c, Command::Traffic), "");
  const ThreadedRun one = run_with_threads(c, 1);
  ASSERT_FALSE(one.result.empty());
  ASSERT_TRUE(one.ok) << one.result.dump(1).substr(0, 2000);
  EXPECT_EQ(one.threads, 1);
  EXPECT_EQ(one.parallel_cycles, 0u);
  ASSERT_GT(one.result.value("packets_delivered", uint64_t(0)), 100u);
  for (int t : {2, 3}) {
    SCOPED_TRACE(std::to_string(t) + " threads");
    const ThreadedRun par = run_with_threads(c, t);
    ASSERT_FALSE(par.result.empty());
    EXPECT_EQ(par.threads, t);
    // Not vacuous: the cycles really ran on the workers (all but the idle ones, if any).
    EXPECT_GT(par.parallel_cycles, par.total_cycles / 2) << par.total_cycles;
    // The lopsided case does make the clock move its bands (over 8 epochs of 1,024 cycles).
    if (GetParam().moves_bands) {
      EXPECT_GT(par.rebalances, 0u);
    }
    EXPECT_EQ(par.result.value("flits_ejected", uint64_t(0)), one.result.value("flits_ejected", uint64_t(0)));
    EXPECT_EQ(par.result.value("packets_delivered", uint64_t(0)),
              one.result.value("packets_delivered", uint64_t(0)));
    // Everything else too; the first differing field is easier to read than the dump.
    if (par.result != one.result) {
      const nlohmann::json patch = nlohmann::json::diff(one.result, par.result);
      ADD_FAILURE() << "differs from one thread: " << patch.dump().substr(0, 2000);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Networks, KernelThreads, testing::ValuesIn(cases()),
                         [](const testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace fm
