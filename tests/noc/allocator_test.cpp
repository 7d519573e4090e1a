// The router's VC allocator and switch allocator (models/noc/router.cpp, vc_allocate and
// switch_allocate) against cases worked out by hand from the cycle-exact specification,
// docs/router-microarchitecture.md ("State per router", "Pipeline", "The cycle" steps 3
// and 4). Elsewhere they are only checked indirectly, against the RTL (tests/rtl).
//
// One model Router, alone, with a Bench unit on all 5 ports through Links of latency 1
// (flits and credits). The Bench is added to the Clock after the Router, so in every
// cycle t it evaluates after the router has evaluated t (units evaluate in add order):
// it samples the router's read-only views (vc_active/vc_out_port/vc_out_vc, credits,
// vc_occupancy), reads what the router sent, and sends the scripted flits and credits
// that arrive at the router in t + 1. What it records:
//   va  "t P v -> O w": input VC (P, v) became ACTIVE holding output VC (O, w) in cycle t
//       (its VA grant cycle); "t P v idle": it became IDLE in t (its tail was switched).
//   sw  "t O w Xs": flit s of packet X was granted the switch in cycle t and sent on
//       output O, VC w (it arrives at the Bench in t + regSA + 1, regSA worked by hand).
//   cr  "t P v": the router sent a credit for VC v upstream on input P in cycle t (the
//       SA grant of (P, v) in t: it arrives at the Bench in t + 1).
// Each case runs in a forked child (SystemC elaborates once per process).
//
// Notation in the comments: ports N=0 E=1 S=2 W=3 L=4; input VC (p, v) is numbered
// i = p*V + v for VA stage 2 (N0 = 0, E0 = 2, W0 = 6, W1 = 7, L0 = 8 at V = 2). At
// P = 3 the registers are regRC = 1, regVA = 0, regSA = 1: a flit arriving in cycle a is
// ready in a + 1, a VA grant in c lets the VC bid for the switch in c, and a flit granted
// the switch in c arrives downstream in c + 2.
#include <map>
#include <memory>
#include <stdexcept>

#include "models/noc/clock.h"
#include "models/noc/link.h"
#include "models/noc/router.h"
#include "tests/sim_util.h"

using namespace fm;
using namespace fm::test;

namespace {

// A scripted packet: `name`, entering input `port` on VC `vc` for chip `dst`, its flits
// arriving at the router in the listed cycles (>= 2; one flit per input link per cycle).
struct Pkt {
  char name;
  Port port;
  int vc;
  ChipId dst;
  std::vector<Cycle> arrive;
};
// The downstream of output `port` returns a credit for VC `vc`, arriving at the router in
// cycle `arrive`.
struct CreditBack {
  Cycle arrive;
  Port port;
  int vc;
};
struct Case {
  int vcs = 2, buf = 8, pipeline = 3;
  int reg_sa = 1;  // by hand: a register after SA when pipeline >= 2
  Arbiter arbiter = Arbiter::RoundRobin;
  std::vector<RouteEntry> routes;  // per destination chip 0..n-1
  std::vector<Pkt> packets;
  std::vector<CreditBack> credits;
  Cycle cycles = 40;
};

std::string vc_name(int p, int v) { return std::string(port_name((Port)p)) + std::to_string(v); }

class Bench : public sc_core::sc_module, public Clocked {
 public:
  Bench(sc_core::sc_module_name name, Clock& clk, const Router& r, const Case& s)
      : sc_module(name), Clocked(clk), r_(r), s_(s) {
    clk.add(this);  // after the router: evaluates after it in every cycle
    wake_at(1);     // and never sleeps
    for (size_t k = 0; k < s.packets.size(); ++k) {
      const Pkt& pk = s.packets[k];
      for (size_t j = 0; j < pk.arrive.size(); ++j) {
        Flit f;
        f.packet = (uint32_t)k;
        f.src = 7;
        f.dst = pk.dst;
        f.seq = (uint16_t)j;
        f.kind = (uint8_t)((j == 0 ? kHead : 0) | (j + 1 == pk.arrive.size() ? kTail : 0));
        f.vc = (uint8_t)pk.vc;
        if (!sends_.emplace(std::make_pair(pk.arrive[j], (int)pk.port), f).second)
          throw std::logic_error("two flits on one input link in one cycle");
      }
    }
    for (int i = 0; i < kNumPorts * s.vcs; ++i) {
      j["credits"][vc_name(i / s.vcs, i % s.vcs)] = nlohmann::json::array();
      j["occ"][vc_name(i / s.vcs, i % s.vcs)] = nlohmann::json::array();
    }
    j["va"] = j["sw"] = j["cr"] = nlohmann::json::array();
  }
  Link* in[kNumPorts] = {};   // to the router's input p
  Link* out[kNumPorts] = {};  // from the router's output p
  nlohmann::json j;

 private:
  void evaluate() override {
    const Cycle t = clk_.now();
    // The router's state after cycle t.
    for (int p = 0; p < kNumPorts; ++p) {
      for (int v = 0; v < s_.vcs; ++v) {
        const bool a = r_.vc_active((Port)p, v);
        if (a != active_[p][v]) {
          j["va"].push_back(std::to_string(t) + " " + vc_name(p, v) +
                            (a ? " -> " + vc_name(r_.vc_out_port((Port)p, v), r_.vc_out_vc((Port)p, v)) : " idle"));
          active_[p][v] = a;
        }
        j["credits"][vc_name(p, v)].push_back(r_.credits((Port)p, v));
        j["occ"][vc_name(p, v)].push_back(r_.vc_occupancy((Port)p, v));
      }
    }
    // Flits the router switched in t - 1 - regSA arrive now; credits it sent in t - 1.
    for (int p = 0; p < kNumPorts; ++p) {
      Flit f;
      if (out[p]->receive(t, &f)) {
        j["sw"].push_back(std::to_string(t - 1 - s_.reg_sa) + " " + vc_name(p, f.vc) + " " +
                          s_.packets.at(f.packet).name + std::to_string(f.seq));
      }
      for (int v; (v = in[p]->receive_credit(t)) >= 0;) j["cr"].push_back(std::to_string(t - 1) + " " + vc_name(p, v));
    }
    // What arrives at the router in t + 1.
    for (int p = 0; p < kNumPorts; ++p) {
      const auto it = sends_.find({t + 1, p});
      if (it != sends_.end()) in[p]->send(it->second, t);
    }
    for (const CreditBack& c : s_.credits)
      if (c.arrive == t + 1) out[c.port]->send_credit(c.vc, t);
  }
  const Router& r_;
  const Case s_;
  std::map<std::pair<Cycle, int>, Flit> sends_;
  bool active_[kNumPorts][kMaxVcs] = {};
};

// Runs one router through the setup; returns the Bench's record plus the violations.
nlohmann::json run(const Case& s) {
  return in_child([s] {
    NetworkConfig cfg;
    cfg.vcs = s.vcs;
    cfg.buf = s.buf;
    cfg.pipeline = s.pipeline;
    cfg.arbiter = s.arbiter;
    Clock clk("clock", sc_core::sc_time(cfg.cycle_ns(), sc_core::SC_NS));
    Router router("router", cfg, 0, clk);
    Bench bench("bench", clk, router, s);
    std::vector<std::unique_ptr<Link>> links;
    for (int p = 0; p < kNumPorts; ++p) {
      links.push_back(std::make_unique<Link>(("in" + std::to_string(p)).c_str(), 1, 1, s.vcs * s.buf));
      links.back()->bind(&bench, p, &router, p);
      router.connect_in((Port)p, links.back().get());
      bench.in[p] = links.back().get();
      links.push_back(std::make_unique<Link>(("out" + std::to_string(p)).c_str(), 1, 1, s.vcs * s.buf));
      links.back()->bind(&router, p, &bench, p);
      router.connect_out((Port)p, links.back().get());
      bench.out[p] = links.back().get();
    }
    RouteTable table((int)s.routes.size());
    for (size_t d = 0; d < s.routes.size(); ++d) table.set((ChipId)d, s.routes[d]);
    const std::string e = router.load_table(table);
    if (!e.empty()) throw std::runtime_error(e);
    sc_core::sc_start(clk.period() * (double)s.cycles);
    nlohmann::json j = bench.j;
    j["violations"] = router.violations();
    j["first_violation"] = router.first_violation();
    j["buffered"] = router.buffered_flits();
    return j;
  });
}

using Strings = std::vector<std::string>;
Strings strings(const nlohmann::json& j, const char* key) {
  return j.contains(key) ? j.at(key).get<Strings>() : Strings{"<no result>"};
}
// Per-cycle samples of `what` ("credits", "occ") of VC `vc` after cycles [from, to]
// (the Bench samples from cycle 1 on: entry t - 1 is cycle t).
std::vector<int> samples(const nlohmann::json& j, const char* what, const char* vc, Cycle from, Cycle to) {
  std::vector<int> r;
  if (!j.contains(what)) return r;
  const auto& a = j.at(what).at(vc);
  for (Cycle t = from; t <= to; ++t) r.push_back(t - 1 < a.size() ? a.at(t - 1).get<int>() : -1);
  return r;
}
void expect_clean(const nlohmann::json& j) {
  EXPECT_EQ(j.value("violations", -1), 0) << j.value("first_violation", std::string());
  EXPECT_EQ(j.value("buffered", -1), 0) << "flits left in the router";
}

// Routes used below (dst -> port, VC mask).
const RouteEntry kLocal01{kLocal, 0b01};  // dst 0: this chip (unused)

}  // namespace

// Spec, "The cycle" 3: VA is separable and input-first. Two heads for E with mask {0,1}
// arrive in cycle 10 on N0 (i = 0) and W0 (i = 6); both are ready in 11.
// Cycle 11, stage 1: each requests the first candidate at or after its va_ptr (0): both
// ask for E0. Stage 2: E0 grants the first requester at or after va_out_ptr[E][0] = 0:
// N0. W0 loses although E1 was free (separable allocation). rr: W0's va_ptr = 1.
// Cycle 12: W0's candidates are {1} (E0 is held): it requests and gets E1.
// SA (step 4, stage 2 over input ports): 11 N0 alone (sa_out_ptr[E] -> 1); from 12 both
// bid for E: 12 W (first at or after 1; ptr -> 4), 13 N (wraps to 0; ptr -> 1), 14 W,
// 15 N (tail: N0 idle), 16 W (tail: W0 idle).
TEST(VcAllocator, SameCycleHeadsAskForTheSameVcAndTheLoserTakesTheNextOne) {
  Case s;
  s.routes = {kLocal01, {kEast, 0b11}};
  s.packets = {{'X', kNorth, 0, 1, {10, 11, 12}}, {'Y', kWest, 0, 1, {10, 11, 12}}};
  const auto j = run(s);
  EXPECT_EQ(strings(j, "va"), (Strings{"11 N0 -> E0", "12 W0 -> E1", "15 N0 idle", "16 W0 idle"}));
  EXPECT_EQ(strings(j, "sw"), (Strings{"11 E0 X0", "12 E1 Y0", "13 E0 X1", "14 E1 Y1", "15 E0 X2", "16 E1 Y2"}));
  expect_clean(j);
}

// Fewer free output VCs than requesters: mask {0} only. X (N0) and Y (W0) heads arrive
// in 10, ready in 11: both request E0, N0 wins (va_out_ptr[E][0] = 0), the pointer moves
// to N0 + 1 = 1. Y's candidates stay empty (E0 held) while X streams: X0 11, X1 12, X2
// (tail) 13; E0 is allocatable from 14 and N0 is IDLE after 13.
// Z, a second packet on N0, arrives in 13 and 14: its head is at the front of N0 when X's
// tail leaves in 13, so it requests VA from 14. Cycle 14: N0 (i = 0) and W0 (i = 6) both
// request E0; from the pointer 1, W0 comes first (distance 5 against 9): the earlier loser
// wins (va_out_ptr -> 7). Y0 14, Y1 (tail) 15: E0 free from 16, granted to N0 in 16,
// Z0 16, Z1 17.
TEST(VcAllocator, LoserWaitsForTheWinnersTailThenWinsByRoundRobin) {
  Case s;
  s.routes = {kLocal01, {kEast, 0b01}};
  s.packets = {{'X', kNorth, 0, 1, {10, 11, 12}}, {'Y', kWest, 0, 1, {10, 11}}, {'Z', kNorth, 0, 1, {13, 14}}};
  const auto j = run(s);
  EXPECT_EQ(strings(j, "va"), (Strings{"11 N0 -> E0", "13 N0 idle", "14 W0 -> E0", "15 W0 idle", "16 N0 -> E0",
                                       "17 N0 idle"}));
  EXPECT_EQ(strings(j, "sw"),
            (Strings{"11 E0 X0", "12 E0 X1", "13 E0 X2", "14 E0 Y0", "15 E0 Y1", "16 E0 Z0", "17 E0 Z1"}));
  expect_clean(j);
}

// The VA stage-1 pointer rule (spec, step 3 "Pointers"): rr sets va_ptr = requested VC + 1
// whenever the input VC requests; islip = granted VC + 1 only when granted.
// X (N0, one flit, head+tail) and Y (W0, two flits) for E with mask {0,1} arrive in 10.
// Cycle 11: both request E0 (va_ptr 0); N0 wins; X0 is switched in 11 and, a tail, frees
// E0 from 12. W0's va_ptr: rr 1 (it requested E0), islip 0 (not granted).
// Cycle 12: W0's candidates are {0, 1}: rr picks from 1 -> E1; islip from 0 -> E0.
TEST(VcAllocator, IslipKeepsTheLosersPointerRoundRobinMovesIt) {
  for (const Arbiter a : {Arbiter::RoundRobin, Arbiter::ISlip}) {
    Case s;
    s.arbiter = a;
    s.routes = {kLocal01, {kEast, 0b11}};
    s.packets = {{'X', kNorth, 0, 1, {10}}, {'Y', kWest, 0, 1, {10, 11}}};
    const auto j = run(s);
    const std::string w = a == Arbiter::RoundRobin ? "E1" : "E0";
    EXPECT_EQ(strings(j, "va"), (Strings{"12 W0 -> " + w, "13 W0 idle"})) << to_string(a);
    EXPECT_EQ(strings(j, "sw"), (Strings{"11 E0 X0", "12 " + w + " Y0", "13 " + w + " Y1"})) << to_string(a);
    expect_clean(j);
  }
}

// Switch allocation stage 2 (over input ports, sa_out_ptr[o] = p + 1 on a grant). X (N0,
// route E mask {0}) and Y (W0, route E mask {1}) of 4 flits arrive in 10..13. Cycle 11:
// both are granted VA (different output VCs) and both bid for E: from sa_out_ptr[E] = 0, N
// wins (ptr 1); 12: from 1, W (ptr 4); 13: from 4 wraps to N (ptr 1); ... each input's
// next flit is ready in time, so the grants alternate N, W, N, W, ... to 18. The credit
// for each switched flit goes upstream in its grant cycle on its own input.
TEST(SwitchAllocator, OutputPortAlternatesBetweenInputPorts) {
  Case s;
  s.routes = {kLocal01, {kEast, 0b01}, {kEast, 0b10}};
  s.packets = {{'X', kNorth, 0, 1, {10, 11, 12, 13}}, {'Y', kWest, 0, 2, {10, 11, 12, 13}}};
  const auto j = run(s);
  EXPECT_EQ(strings(j, "va"), (Strings{"11 N0 -> E0", "11 W0 -> E1", "17 N0 idle", "18 W0 idle"}));
  EXPECT_EQ(strings(j, "sw"), (Strings{"11 E0 X0", "12 E1 Y0", "13 E0 X1", "14 E1 Y1", "15 E0 X2", "16 E1 Y2",
                                       "17 E0 X3", "18 E1 Y3"}));
  EXPECT_EQ(strings(j, "cr"), (Strings{"11 N0", "12 W0", "13 N0", "14 W0", "15 N0", "16 W0", "17 N0", "18 W0"}));
  expect_clean(j);
}

// Switch allocation stage 1 (over the VCs of one input port, sa_in_ptr[p]). Both VCs of W
// must hold flits at once, which one input link (a flit a cycle) cannot build while they
// drain; so their output VCs are held first. P (L0 -> E, mask {0}) and Q (N0 -> S, mask
// {0}) send their heads in 2 (VA + SA in 3: L0 holds E0, N0 holds S0) and their tails in
// 20 (switched in 21: E0 and S0 allocatable from 22). Meanwhile A (W0 -> E0) arrives in
// 3..5 and B (W1 -> S0) in 6..8; their heads find no free candidate until 22.
// Cycle 22: VA grants A E0 and B S0. SA: W's eligible VCs {0, 1}; from sa_in_ptr[W] = 0 it
// picks 0 (A, ptr 1), granted (E has no other bidder); 23 picks 1 (B, ptr 0); ... so A
// and B alternate 22..27. No bid loses in stage 2, so rr and islip agree.
TEST(SwitchAllocator, InputPortAlternatesBetweenItsVcs) {
  for (const Arbiter a : {Arbiter::RoundRobin, Arbiter::ISlip}) {
    Case s;
    s.arbiter = a;
    s.routes = {kLocal01, {kEast, 0b01}, {kSouth, 0b01}};
    s.packets = {{'P', kLocal, 0, 1, {2, 20}}, {'Q', kNorth, 0, 2, {2, 20}}, {'A', kWest, 0, 1, {3, 4, 5}},
                 {'B', kWest, 1, 2, {6, 7, 8}}};
    const auto j = run(s);
    EXPECT_EQ(strings(j, "va"), (Strings{"3 N0 -> S0", "3 L0 -> E0", "21 N0 idle", "21 L0 idle", "22 W0 -> E0",
                                         "22 W1 -> S0", "26 W0 idle", "27 W1 idle"}))
        << to_string(a);
    EXPECT_EQ(strings(j, "sw"), (Strings{"3 E0 P0", "3 S0 Q0", "21 E0 P1", "21 S0 Q1", "22 E0 A0", "23 S0 B0",
                                         "24 E0 A1", "25 S0 B1", "26 E0 A2", "27 S0 B2"}))
        << to_string(a);
    expect_clean(j);
  }
}

// The SA stage-1 pointer rule (spec, step 4): rr sets sa_in_ptr[p] = picked VC + 1
// whenever stage 1 picks; islip = granted VC + 1 only when stage 2 grants.
// As above, P (L0 -> E0) and Q (input E, VC 0 -> S0) hold E0 and S0 from 3 to 21; P's
// grants at E come from L, so sa_out_ptr[E] = L + 1 = 0 (mod 5). A (W0 -> E0, 3..5) and
// B (W1 -> S0, 6..8) get their VCs in 22, and C (N0 -> E, mask {1}: E1) arrives in
// 21..24 (flit k ready in 22 + k) and gets E1 in 22.
// Cycle 22: W picks A (ptr 0) for E, N picks C for E; E grants from 0: N (ptr 1). A lost.
//   rr: sa_in_ptr[W] = 1 (A was picked). islip: stays 0 (A was not granted).
// rr, 23: W picks B -> S (granted; ptr 0); E: C1. 24: W picks A; E from 1 grants W (ptr
//   4). 25: B1 and C2 (E from 4 wraps to N). 26: A1. 27: B2 and C3. 28: A2.
// islip, 23: W picks A again; E from 1 grants W (ptr 4; W's ptr 1). 24: W picks B -> S;
//   E: C1 (ptr 1). 25: A1. 26: B1, C2. 27: A2 (tail). 28: B2, C3.
TEST(SwitchAllocator, IslipRetriesTheLosingVcRoundRobinMovesOn) {
  for (const Arbiter a : {Arbiter::RoundRobin, Arbiter::ISlip}) {
    Case s;
    s.arbiter = a;
    s.routes = {kLocal01, {kEast, 0b01}, {kSouth, 0b01}, {kEast, 0b10}};
    s.packets = {{'P', kLocal, 0, 1, {2, 20}}, {'Q', kEast, 0, 2, {2, 20}},  {'A', kWest, 0, 1, {3, 4, 5}},
                 {'B', kWest, 1, 2, {6, 7, 8}}, {'C', kNorth, 0, 3, {21, 22, 23, 24}}};
    const auto j = run(s);
    const Strings rr{"3 E0 P0", "3 S0 Q0", "21 E0 P1", "21 S0 Q1", "22 E1 C0", "23 E1 C1", "23 S0 B0",
                     "24 E0 A0", "25 E1 C2", "25 S0 B1", "26 E0 A1", "27 E1 C3", "27 S0 B2", "28 E0 A2"};
    const Strings islip{"3 E0 P0", "3 S0 Q0", "21 E0 P1", "21 S0 Q1", "22 E1 C0", "23 E0 A0", "24 E1 C1",
                        "24 S0 B0", "25 E0 A1", "26 E1 C2", "26 S0 B1", "27 E0 A2", "28 E1 C3", "28 S0 B2"};
    EXPECT_EQ(strings(j, "sw"), a == Arbiter::RoundRobin ? rr : islip) << to_string(a);
    expect_clean(j);
  }
}

// Credits (spec, "Pipeline": a flit bids only if its output VC holds a credit; step 1
// applies the credits arriving in t before SA). B = 2: every output VC starts with 2
// credits, and the Bench returns none unless told. A (W0 -> E0, 4 flits, arriving 10..13:
// the input buffer never holds more than 2) switches A0 in 11 and A1 in 12, leaving E0
// with 0 credits: A2 (ready 13) may not bid. B (W1 -> E1, arriving 14, 15) is not held
// up by it: VA in 15, B0 15, B1 16 (stage 1 passes over W0, which has no credit).
// A credit for E0 arriving in 20 lets A2 go in 20; the next, arriving in 25, lets A3 go in
// 25. In between E0 holds 0 credits and W0 keeps its flits (2 from 13 to 19, 1 to 24).
TEST(SwitchAllocator, NoCreditNoGrantUntilACreditReturns) {
  Case s;
  s.buf = 2;
  s.routes = {kLocal01, {kEast, 0b01}, {kEast, 0b10}};
  s.packets = {{'A', kWest, 0, 1, {10, 11, 12, 13}}, {'B', kWest, 1, 2, {14, 15}}};
  s.credits = {{20, kEast, 0}, {25, kEast, 0}};
  const auto j = run(s);
  EXPECT_EQ(strings(j, "sw"), (Strings{"11 E0 A0", "12 E0 A1", "15 E1 B0", "16 E1 B1", "20 E0 A2", "25 E0 A3"}));
  EXPECT_EQ(strings(j, "cr"), (Strings{"11 W0", "12 W0", "15 W1", "16 W1", "20 W0", "25 W0"}));
  // Credits of E0 after cycles 10..26: 2, 1 (A0), then 0; the credit of 20 is spent in 20.
  EXPECT_EQ(samples(j, "credits", "E0", 10, 26),
            (std::vector<int>{2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(samples(j, "credits", "E1", 14, 17), (std::vector<int>{2, 1, 0, 0}));
  // W0 after cycles 10..26: A0 (10); A0 in, out (11: 1); A2 in, A1 out (12: 1); A3 in (13:
  // 2) ... A2 out (20: 1) ... A3 out (25: 0).
  EXPECT_EQ(samples(j, "occ", "W0", 10, 26),
            (std::vector<int>{1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 0, 0}));
  expect_clean(j);
}

// Pipeline depth (spec, "Pipeline"): regRC = (P >= 3), regVA = (P >= 4), regSA = (P >= 2).
// X (W0 -> E0, 2 flits) arrives in 10 and 11. Head ready 10 + regRC, VA then; first bid
// for the switch at max(VA + regVA, ready); the body (ready 11 + regRC) follows a cycle
// later; each enters the link regSA after its grant and arrives a cycle later.
//   P=1: VA 10, grants 10, 11, arrivals 11, 12.   P=2: VA 10, grants 10, 11, arr. 12, 13.
//   P=3: VA 11, grants 11, 12, arrivals 13, 14.   P=4: VA 11, grants 12, 13, arr. 14, 15.
// (Head arrival to departure is P - 1 cycles: the zero-load section's per-router cost.)
TEST(AllocatorPipeline, AllocationStagesFollowThePipelineDepth) {
  struct Want {
    int va, g0, g1;
  };
  const Want want[] = {{10, 10, 11}, {10, 10, 11}, {11, 11, 12}, {11, 12, 13}};
  for (int P = 1; P <= 4; ++P) {
    const Want& w = want[P - 1];
    Case s;
    s.pipeline = P;
    s.reg_sa = P >= 2 ? 1 : 0;
    s.routes = {kLocal01, {kEast, 0b01}};
    s.packets = {{'X', kWest, 0, 1, {10, 11}}};
    const auto j = run(s);
    const auto n = [](int c) { return std::to_string(c); };
    EXPECT_EQ(strings(j, "va"), (Strings{n(w.va) + " W0 -> E0", n(w.g1) + " W0 idle"})) << "P=" << P;
    EXPECT_EQ(strings(j, "sw"), (Strings{n(w.g0) + " E0 X0", n(w.g1) + " E0 X1"})) << "P=" << P;
    // The credits upstream, in the grant cycles: independent of the reg_sa used above.
    EXPECT_EQ(strings(j, "cr"), (Strings{n(w.g0) + " W0", n(w.g1) + " W0"})) << "P=" << P;
    expect_clean(j);
  }
}
