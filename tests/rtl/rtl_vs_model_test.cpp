// Replay comparison of the RTL router against the SystemC model Router (not yet the
// lockstep co-simulation of the later step, but the same check on recorded traffic).
//
// 1. A child process runs one model Router (models/noc/router.cpp) with a traffic unit on
//    all 5 ports through Links of latency 1: flow-controlled upstreams sending random
//    packets on random VCs, downstreams that eject and return credits after random
//    delays. It records, per model cycle t, the flits and credits ARRIVING at the router
//    (what Link::receive / receive_credit give it in t) and the flits DEPARTING and
//    credits SENT by the router in t.
// 2. A second child drives the verilated RTL router with exactly the recorded arrivals,
//    RTL cycle t = model cycle t, and records what it sends.
// 3. Every departing flit and every credit sent must be identical, cycle for cycle.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <tuple>

#include <verilated.h>

#include "Vfm_router.h"
#include "models/noc/clock.h"
#include "models/noc/link.h"
#include "models/noc/router.h"
#include "tests/rtl/rtl_bench.h"
#include "tests/sim_util.h"

using namespace fm;
using namespace fm::rtl;

namespace {

// One router configuration, set on the RTL's cfg_* pins (one verilated build for all).
template <int V, int B, int P, bool I>
struct Replay {
  static constexpr int kVcs = V, kBuf = B, kPipeline = P;
  static constexpr bool kIslip = I;
};
using ReplayV2B4P3 = Replay<2, 4, 3, false>;
using ReplayV1B4P1 = Replay<1, 4, 1, false>;
using ReplayV3B4P2 = Replay<3, 4, 2, false>;
using ReplayV4B8P4Islip = Replay<4, 8, 4, true>;

struct TrafficParams {
  int vcs, buf, ndest, cycles, inject_until;
  int inject_one_in;  // an upstream tries to send in a cycle with probability 1 - 1/n
  int max_packet;
  int credit_delay_max;  // downstream credit return delay 0..max cycles after receipt
  uint32_t seed;
};

// What the two test benches of the model router share: the router's 5 input links they
// drive and 5 output links they drain, one method on the tick, and the trace of every
// flit and credit crossing the links, each recorded as it is sent or received.
class TraceUnit : public sc_core::sc_module, public Clocked {
 public:
  SC_HAS_PROCESS(TraceUnit);
  TraceUnit(sc_core::sc_module_name name, Clock& clk) : sc_module(name), Clocked(clk) {
    SC_METHOD(tick);
    sensitive << clk.tick();
    dont_initialize();
  }
  Link* in[kNumPorts] = {};   // to the router's input p
  Link* out[kNumPorts] = {};  // from the router's output p
  nlohmann::json trace = {{"in", nlohmann::json::array()},
                          {"cr_in", nlohmann::json::array()},
                          {"out", nlohmann::json::array()},
                          {"cr_out", nlohmann::json::array()}};

 protected:
  // The bench's cycle t.
  virtual void cycle(Cycle t) = 0;
  // The router's departure of t - 1 on output p, arriving now (flit links have latency
  // 1): recorded and put in *f; false when there is none.
  bool eject(int p, Cycle t, Flit* f) {
    if (!out[p]->receive(t, f)) return false;
    trace["out"].push_back({{"t", t - 1}, {"port", p}, {"flit", to_json(*f)}});
    return true;
  }
  // The next credit the router sent on input p in t - 1 (arriving now), recorded; -1
  // when there is none left.
  int take_credit(int p, Cycle t) {
    const int v = in[p]->receive_credit(t);
    if (v >= 0) trace["cr_out"].push_back({{"t", t - 1}, {"port", p}, {"vc", v}});
    return v;
  }
  // Downstream of output p: returns a credit for VC v, arriving at the router in t + 1.
  void return_credit(int p, int v, Cycle t) {
    out[p]->send_credit(v, t);
    trace["cr_in"].push_back({{"t", t + 1}, {"port", p}, {"vc", v}});
  }
  // Upstream of input p: sends flit g, arriving at the router in t + 1.
  void inject(int p, const Flit& g, Cycle t) {
    in[p]->send(g, t);
    trace["in"].push_back({{"t", t + 1}, {"port", p}, {"flit", to_json(g)}});
  }

 private:
  void tick() { cycle(clk_.now()); }
};

// Drives the model router's 5 input links and drains its 5 output links.
class TrafficUnit : public TraceUnit {
 public:
  TrafficUnit(sc_core::sc_module_name name, Clock& clk, const TrafficParams& tp,
              std::vector<RouteEntry> routes)
      : TraceUnit(name, clk), tp_(tp), routes_(std::move(routes)), rng_(tp.seed) {
    for (auto& port : credits_)
      for (int& c : port) c = tp.buf;
  }

 private:
  void cycle(Cycle t) override {
    for (int p = 0; p < kNumPorts; ++p) {
      // The router's departures of t - 1 arrive now.
      Flit f;
      if (eject(p, t, &f)) due_[p].push_back({t + rng_() % (tp_.credit_delay_max + 1), f.vc});
      // Credits the router sent in t - 1 arrive now.
      for (int v; (v = take_credit(p, t)) >= 0;) ++credits_[p][v];
      // Downstream of output p: return the oldest due credit (one per cycle); it
      // arrives at the router in t + 1.
      if (!due_[p].empty() && due_[p].front().first <= t) {
        return_credit(p, due_[p].front().second, t);
        due_[p].erase(due_[p].begin());
      }
      // Upstream of input p: one flit of a random VC with a credit; arrives in t + 1.
      if (rng_() % tp_.inject_one_in == 0) continue;
      const int v0 = (int)(rng_() % tp_.vcs);
      for (int i = 0; i < tp_.vcs; ++i) {
        const int v = (v0 + i) % tp_.vcs;
        if (!credits_[p][v] || ((int)t >= tp_.inject_until && !left_[p][v])) continue;
        if (!left_[p][v]) {
          size_[p][v] = left_[p][v] = 1 + (int)(rng_() % tp_.max_packet);
          cur_[p][v] = Flit{};
          cur_[p][v].packet = next_packet_[p]++;
          cur_[p][v].src = (ChipId)(100 + p);
          cur_[p][v].dst = (ChipId)(rng_() % tp_.ndest);
          cur_[p][v].vc = (uint8_t)v;
        }
        Flit g = cur_[p][v];
        g.seq = (uint16_t)(size_[p][v] - left_[p][v]);
        g.kind = (uint8_t)((g.seq == 0 ? kHead : 0) | (left_[p][v] == 1 ? kTail : 0));
        g.payload = rng_() | (uint64_t)rng_() << 32;
        --left_[p][v];
        --credits_[p][v];
        inject(p, g, t);
        break;
      }
    }
  }
  TrafficParams tp_;
  std::vector<RouteEntry> routes_;
  std::mt19937 rng_;
  int credits_[kNumPorts][kMaxVcs];
  int left_[kNumPorts][kMaxVcs] = {}, size_[kNumPorts][kMaxVcs] = {};
  Flit cur_[kNumPorts][kMaxVcs];
  uint32_t next_packet_[kNumPorts] = {};
  std::vector<std::pair<Cycle, int>> due_[kNumPorts];
};

// Runs the model router with the traffic unit; returns its trace (sorted by cycle).
nlohmann::json run_model(const TrafficParams& tp, const std::vector<RouteEntry>& routes, int pipeline,
                         bool islip) {
  return test::in_child([&] {
    NetworkConfig cfg;
    cfg.vcs = tp.vcs;
    cfg.buf = tp.buf;
    cfg.pipeline = pipeline;
    cfg.arbiter = islip ? Arbiter::ISlip : Arbiter::RoundRobin;
    Clock clk("clock", sc_core::sc_time(cfg.cycle_ns(), sc_core::SC_NS));
    Router router("router", cfg, 0, clk);
    TrafficUnit tb("tb", clk, tp, routes);
    std::vector<std::unique_ptr<Link>> links;
    for (int p = 0; p < kNumPorts; ++p) {
      links.push_back(std::make_unique<Link>(("in" + std::to_string(p)).c_str(), 1, 1, tp.vcs * tp.buf));
      links.back()->bind(&tb, p, &router, p);
      router.connect_in((Port)p, links.back().get());
      tb.in[p] = links.back().get();
      links.push_back(std::make_unique<Link>(("out" + std::to_string(p)).c_str(), 1, 1, tp.vcs * tp.buf));
      links.back()->bind(&router, p, &tb, p);
      router.connect_out((Port)p, links.back().get());
      tb.out[p] = links.back().get();
    }
    RouteTable table(tp.ndest);
    for (int d = 0; d < tp.ndest; ++d) table.set(d, routes[d]);
    const std::string e = router.load_table(table);
    if (!e.empty()) throw std::runtime_error(e);
    sc_core::sc_start(clk.period() * (double)tp.cycles);
    if (router.violations()) throw std::runtime_error(router.first_violation());
    nlohmann::json j = tb.trace;
    j["switched"] = router.flits_switched();
    return j;
  });
}

// Drives the model router's input links from a script (flit i sent in cycle t_i, so it
// arrives in t_i + 1), ejects everything on its outputs and returns each flit's credit at
// once, recording the same trace as TrafficUnit.
class ScriptUnit : public TraceUnit {
 public:
  struct Send {
    Cycle t;
    int port;
    Flit f;
  };
  ScriptUnit(sc_core::sc_module_name name, Clock& clk, std::vector<Send> script)
      : TraceUnit(name, clk), script_(std::move(script)) {}

 private:
  void cycle(Cycle t) override {
    for (int p = 0; p < kNumPorts; ++p) {
      Flit f;
      if (eject(p, t, &f)) return_credit(p, f.vc, t);
      while (take_credit(p, t) >= 0) continue;  // credits are only recorded
    }
    for (const Send& s : script_)
      if (s.t == t) inject(s.port, s.f, t);
  }
  std::vector<Send> script_;
};

struct Ev {
  long t;
  int port;
  std::string what;  // flit or credit, printed
  bool operator==(const Ev& o) const { return t == o.t && port == o.port && what == o.what; }
};
std::vector<Ev> events(const nlohmann::json& a, long before) {
  std::vector<Ev> r;
  for (const auto& e : a) {
    if (e.at("t").get<long>() >= before) continue;
    r.push_back({e.at("t").get<long>(), e.at("port").get<int>(),
                 e.contains("flit") ? e.at("flit").dump() : "credit vc " + e.at("vc").dump()});
  }
  std::stable_sort(r.begin(), r.end(), [](const Ev& x, const Ev& y) {
    return std::tie(x.t, x.port) < std::tie(y.t, y.port);
  });
  return r;
}

// First difference of two event lists, "" when equal.
std::string diff(const std::vector<Ev>& model, const std::vector<Ev>& rtl, const char* what) {
  const size_t n = std::min(model.size(), rtl.size());
  for (size_t i = 0; i < n; ++i) {
    if (!(model[i] == rtl[i])) {
      return std::string(what) + " #" + std::to_string(i) + ": model cycle " + std::to_string(model[i].t) +
             " port " + std::to_string(model[i].port) + " " + model[i].what + " | rtl cycle " +
             std::to_string(rtl[i].t) + " port " + std::to_string(rtl[i].port) + " " + rtl[i].what;
    }
  }
  if (model.size() != rtl.size())
    return std::string(what) + ": model " + std::to_string(model.size()) + " events, rtl " +
           std::to_string(rtl.size());
  return "";
}

// The no-route agreement test's set-up: V2 B4 P3, table {0: L, 1: E, 2: no route,
// 3: N}, and the sends (model cycle, input port, dst, VC; each arrives a cycle later).
struct RtlVsModelNoRouteCfg {
  int vcs = 2, buf = 4, pipeline = 3, cycles = 40;
  std::vector<RouteEntry> routes = {{kLocal, 3}, {kEast, 3}, {kNoRoute, 0}, {kNorth, 3}};
  std::vector<std::tuple<int, int, int, int>> sends = {
      {2, kLocal, 2, 0}, {4, kLocal, 1, 0}, {9, kLocal, 2, 1}, {12, kNorth, 1, 1},
      {13, kNorth, 3, 0}, {20, kLocal, 0, 1}};
};

}  // namespace

template <class Cfg>
class RtlVsModel : public testing::Test {};

using ReplayConfigs = testing::Types<ReplayV2B4P3, ReplayV1B4P1, ReplayV3B4P2, ReplayV4B8P4Islip>;
TYPED_TEST_SUITE(RtlVsModel, ReplayConfigs);

TYPED_TEST(RtlVsModel, RandomTrafficReplayMatchesCycleForCycle) {
  using Cfg = TypeParam;
  // Heavy load (an upstream sends in 3 cycles of 4), then a light one, with slow and fast
  // downstreams: contention in both allocators and back-pressure.
  for (const auto& [one_in, delay, seed] : {std::tuple{4, 4, 1u}, {2, 0, 2u}, {8, 12, 3u}, {4, 1, 4u}}) {
    TrafficParams tp{Cfg::kVcs, Cfg::kBuf, 16, 3000, 2000, one_in, 6, delay, seed};
    std::mt19937 rng(seed * 7919 + Cfg::kVcs);
    std::vector<RouteEntry> routes(tp.ndest);
    for (RouteEntry& e : routes) {
      e.port = (uint8_t)(rng() % kNumPorts);
      do e.vc_mask = (uint16_t)(rng() & ((1u << Cfg::kVcs) - 1)); while (!e.vc_mask);
    }
    const nlohmann::json m = run_model(tp, routes, Cfg::kPipeline, Cfg::kIslip);
    ASSERT_TRUE(m.contains("in")) << "model run failed";
    // Replay the model's arrivals into the RTL.
    std::vector<CycleIn> arrivals(tp.cycles);
    for (const auto& e : m.at("in")) {
      const long t = e.at("t");
      if (t < tp.cycles) arrivals[t].send((Port)e.at("port").get<int>(), flit_from_json(e.at("flit")));
    }
    for (const auto& e : m.at("cr_in")) {
      const long t = e.at("t");
      if (t < tp.cycles) arrivals[t].credit[e.at("port").get<int>()] = e.at("vc");
    }
    std::vector<std::pair<ChipId, RouteEntry>> table;
    for (int d = 0; d < tp.ndest; ++d) table.push_back({(ChipId)d, routes[d]});
    const nlohmann::json r = test::in_child([&] {
      RouterBench<Vfm_router> bench(
          "bench", RouterCfg{Cfg::kVcs, Cfg::kBuf, Cfg::kPipeline, Cfg::kIslip}, table,
          [&](int t, const std::vector<CycleOut>&, CycleIn* in) { *in = arrivals[t]; }, tp.cycles);
      sc_core::sc_start();
      return bench.to_json_trace();
    });
    ASSERT_TRUE(r.contains("out")) << "RTL run failed";
    // The model's trace ends with departures of cycle cycles - 2 (seen one cycle later).
    const long end = tp.cycles - 2;
    const auto mo = events(m.at("out"), end), ro = events(r.at("out"), end);
    const auto mc = events(m.at("cr_out"), end), rc = events(r.at("cr_out"), end);
    EXPECT_GT(mo.size(), 2000u) << "too little traffic to mean much";
    EXPECT_EQ(diff(mo, ro, "flit"), "") << "seed " << seed;
    EXPECT_EQ(diff(mc, rc, "credit"), "") << "seed " << seed;
  }
}

// A head flit whose destination has no route (kNoRoute, a dead chip): the model drops it
// with a violation and credits its slot back in its arrival cycle; the RTL, whose table
// holds the no-route word, drops it with an assertion and sends the same credit in the
// same cycle. One-flit packets on L and N (V2 B4 P3) to dst 1 (route E) and dst 2 (no
// route), never in a cycle where the same input also switches a flit; every departure
// and every credit must be identical, and both must flag the dropped heads.
TEST(RtlVsModelNoRoute, DroppedAndCreditedInTheSameCycle) {
  const RtlVsModelNoRouteCfg c;
  const nlohmann::json m = test::in_child([&] {
    NetworkConfig cfg;
    cfg.vcs = c.vcs;
    cfg.buf = c.buf;
    cfg.pipeline = c.pipeline;
    Clock clk("clock", sc_core::sc_time(cfg.cycle_ns(), sc_core::SC_NS));
    Router router("router", cfg, 0, clk);
    std::vector<ScriptUnit::Send> script;
    uint32_t packet = 0;
    for (const auto& [t, port, dst, vc] : c.sends) {
      Flit f;
      f.packet = packet++;
      f.src = 7;
      f.dst = (ChipId)dst;
      f.kind = kHeadTail;
      f.vc = (uint8_t)vc;
      f.payload = 0x5555 + packet;
      script.push_back({(Cycle)t, port, f});
    }
    ScriptUnit tb("tb", clk, script);
    std::vector<std::unique_ptr<Link>> links;
    for (int p = 0; p < kNumPorts; ++p) {
      links.push_back(std::make_unique<Link>(("in" + std::to_string(p)).c_str(), 1, 1, c.vcs * c.buf));
      links.back()->bind(&tb, p, &router, p);
      router.connect_in((Port)p, links.back().get());
      tb.in[p] = links.back().get();
      links.push_back(std::make_unique<Link>(("out" + std::to_string(p)).c_str(), 1, 1, c.vcs * c.buf));
      links.back()->bind(&router, p, &tb, p);
      router.connect_out((Port)p, links.back().get());
      tb.out[p] = links.back().get();
    }
    RouteTable table(4);
    for (int d = 0; d < 4; ++d) table.set(d, c.routes[d]);
    const std::string e = router.load_table(table);
    if (!e.empty()) throw std::runtime_error(e);
    sc_core::sc_start(clk.period() * (double)c.cycles);
    nlohmann::json j = tb.trace;
    j["violations"] = router.violations();
    j["first_violation"] = router.first_violation();
    return j;
  });
  ASSERT_TRUE(m.contains("in")) << "model run failed";
  EXPECT_EQ(m.at("violations").get<int>(), 2);
  EXPECT_NE(m.at("first_violation").get<std::string>().find("which has no route"), std::string::npos);
  std::vector<CycleIn> arrivals(c.cycles);
  for (const auto& e : m.at("in")) arrivals[e.at("t").get<long>()].send((Port)e.at("port").get<int>(), flit_from_json(e.at("flit")));
  for (const auto& e : m.at("cr_in")) {
    const long t = e.at("t");
    if (t < c.cycles) arrivals[t].credit[e.at("port").get<int>()] = e.at("vc");
  }
  std::vector<std::pair<ChipId, RouteEntry>> table;
  for (int d = 0; d < 4; ++d) table.push_back({(ChipId)d, c.routes[d]});
  const nlohmann::json r = test::in_child([&] {
    Verilated::threadContextp()->fatalOnError(false);
    RouterBench<Vfm_router> bench(
        "bench", RouterCfg{c.vcs, c.buf, c.pipeline, false}, table,
        [&](int t, const std::vector<CycleOut>&, CycleIn* in) { *in = arrivals[t]; }, c.cycles);
    sc_core::sc_start();
    nlohmann::json j = bench.to_json_trace();
    j["rtl_error"] = Verilated::threadContextp()->gotError();
    return j;
  });
  ASSERT_TRUE(r.contains("out")) << "RTL run failed";
  EXPECT_TRUE(r.at("rtl_error").get<bool>()) << "the RTL must flag the no-route heads";
  const long end = c.cycles - 2;
  const auto mo = events(m.at("out"), end), ro = events(r.at("out"), end);
  const auto mc = events(m.at("cr_out"), end), rc = events(r.at("cr_out"), end);
  EXPECT_EQ(mo.size(), 4u);  // the four routed packets
  EXPECT_EQ(mc.size(), 6u);  // a credit for every packet, dropped or not
  EXPECT_EQ(diff(mo, ro, "flit"), "");
  EXPECT_EQ(diff(mc, rc, "credit"), "");
}
