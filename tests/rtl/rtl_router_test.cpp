// Directed tests of the RTL router (rtl/fm_router.sv, verilated into faultmesh_rtl*)
// against values worked out by hand from docs/router-microarchitecture.md, never from
// the RTL's own output. Every test runs for every configuration (typed tests); all run
// on the one verilated build (rtl/CMakeLists.txt), configured through its cfg_* pins.
//
// Notation: P pipeline depth, regRC = (P >= 3), regVA = (P >= 4), regSA = (P >= 2),
// V VCs, B buffer depth. A flit arriving in cycle t is ready at t + regRC (the spec's
// "Pipeline"); a head at the front of an IDLE VC does VA in its ready cycle; a VA grant
// in cycle c gives sa_ready = c + regVA; SA in cycle s sends the input VC's credit
// upstream in s and the flit departs in s + regSA. Hence, without contention, a head
// arriving at t0 is switched at s = t0 + regRC + regVA and departs at
// t0 + regRC + regVA + regSA = t0 + P - 1.
#include <gtest/gtest.h>
#include <verilated.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <tuple>

#include "Vfm_router.h"
#include "tests/rtl/rtl_bench.h"
#include "tests/sim_util.h"

using namespace fm;
using namespace fm::rtl;

namespace {

// One router configuration (the RTL's cfg_* pins): every pipeline depth, both pointer
// rules, the smallest buffer (B = 1) and the build's bounds (V4 B8 P4).
template <int V, int B, int P, bool I>
struct PinCfg {
  static constexpr int kVcs = V, kBuf = B, kPipeline = P;
  static constexpr bool kIslip = I;
  static RouterCfg pins() { return {V, B, P, I}; }
};
using CfgV2B4P3 = PinCfg<2, 4, 3, false>;
using CfgV1B4P1 = PinCfg<1, 4, 1, false>;
using CfgV3B4P2 = PinCfg<3, 4, 2, false>;
using CfgV4B8P4Islip = PinCfg<4, 8, 4, true>;
using CfgV4B1P2 = PinCfg<4, 1, 2, false>;

struct Event {
  int t, port;
  Flit flit;  // flit events
  int vc;     // credit events
};
struct Trace {
  bool finished = false;
  std::vector<Event> in, cr_in, out, cr_out;
  // Events of one port.
  static std::vector<Event> at(const std::vector<Event>& v, int port) {
    std::vector<Event> r;
    for (const Event& e : v)
      if (e.port == port) r.push_back(e);
    return r;
  }
};

std::vector<Event> events_from(const nlohmann::json& a, bool flits) {
  std::vector<Event> r;
  for (const auto& e : a) {
    Event ev{e.at("t"), e.at("port"), Flit{}, -1};
    if (flits) ev.flit = flit_from_json(e.at("flit"));
    else ev.vc = e.at("vc");
    r.push_back(ev);
  }
  return r;
}

// Simulates the router of configuration Cfg in a child process. FM_RTL_VCD=<dir> writes
// <dir>/<test name>.vcd.
template <class Cfg>
Trace simulate(std::vector<std::pair<ChipId, RouteEntry>> table, Stimulus stim, int cycles) {
  const char* dir = std::getenv("FM_RTL_VCD");
  const auto* info = testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string(info->test_suite_name()) + "." + info->name();
  for (char& c : name) if (c == '/') c = '_';  // typed suites are named RtlRouter/<n>
  const std::string vcd = dir ? std::string(dir) + "/" + name + ".vcd" : "";
  const auto j = test::in_child([&] {
    if (!vcd.empty()) Verilated::traceEverOn(true);
    auto bench = std::make_unique<RouterBench<Vfm_router>>("bench", Cfg::pins(), table, stim, cycles);
    if (!vcd.empty()) bench->trace_to(vcd);
    sc_core::sc_start();
    if (Verilated::threadContextp()->gotError()) throw std::runtime_error("RTL assertion failed");
    return bench->to_json_trace();
  });
  Trace tr;
  if (!j.contains("finished")) return tr;
  tr.finished = j.at("finished");
  tr.in = events_from(j.at("in"), true);
  tr.cr_in = events_from(j.at("cr_in"), false);
  tr.out = events_from(j.at("out"), true);
  tr.cr_out = events_from(j.at("cr_out"), false);
  return tr;
}

Flit make_flit(uint64_t payload, uint32_t packet, ChipId src, ChipId dst, int seq, int kind, int vc) {
  Flit f;
  f.payload = payload;
  f.packet = packet;
  f.src = src;
  f.dst = dst;
  f.seq = (uint16_t)seq;
  f.kind = (uint8_t)kind;
  f.vc = (uint8_t)vc;
  return f;
}
// Flit k of an S-flit packet: head at 0, tail at S-1.
int kind_of(int k, int size) { return (k == 0 ? kHead : 0) | (k == size - 1 ? kTail : 0); }
uint64_t payload_of(uint32_t packet, int k) { return 0x0123456789abcdefull ^ ((uint64_t)packet << 20) ^ (uint64_t)k; }

void expect_same_flit(const Flit& got, const Flit& sent, int out_vc, const std::string& what) {
  EXPECT_EQ(got.payload, sent.payload) << what;
  EXPECT_EQ(got.packet, sent.packet) << what;
  EXPECT_EQ(got.src, sent.src) << what;
  EXPECT_EQ(got.dst, sent.dst) << what;
  EXPECT_EQ(got.seq, sent.seq) << what;
  EXPECT_EQ(got.kind, sent.kind) << what;
  EXPECT_EQ(got.vc, out_vc) << what;
}

// A downstream that ejects every flit it receives and returns its credit like the NI
// over links of latency 1: a flit departing on output o at d arrives at d + 1, its
// credit is sent at d + 1 and arrives back at the router at d + 2.
void return_credits(int t, const std::vector<CycleOut>& past, CycleIn* in) {
  if (t < 2) return;
  for (int o = 0; o < kNumPorts; ++o)
    if (past[t - 2].valid[o]) in->credit[o] = past[t - 2].flit[o].vc;
}

}  // namespace

template <class Cfg>
class RtlRouter : public testing::Test {
 protected:
  static constexpr int V = Cfg::kVcs, B = Cfg::kBuf, P = Cfg::kPipeline;
  static constexpr int kRegRc = pipeline_regs(P).rc, kRegVa = pipeline_regs(P).va,
                       kRegSa = pipeline_regs(P).sa;
  static constexpr uint16_t kAllVcs = (uint16_t)((1u << V) - 1);
};

using RtlConfigs = testing::Types<CfgV2B4P3, CfgV1B4P1, CfgV3B4P2, CfgV4B8P4Islip, CfgV4B1P2>;
TYPED_TEST_SUITE(RtlRouter, RtlConfigs);

// (a) A one-flit packet (kind head+tail = 3) arrives on L, input VC 0, at t0 = 3, for
// destination 5, whose route is {E, mask = {V-1}}.
//   t0:                 BW + RC; ready at t0 + regRC.
//   t0 + regRC:         VA: candidates = mask & free(E) = {V-1}; granted (only requester);
//                       sa_ready = t0 + regRC + regVA.
//   s = t0+regRC+regVA: SA: eligible (B >= 1 credits), only requester of E: granted;
//                       credit for VC 0 sent upstream on L in cycle s.
//   s + regSA = t0 + P - 1: departs on E with vc rewritten to V-1, other fields unchanged.
// Nothing else leaves the router and no other credit is sent, in any cycle.
TYPED_TEST(RtlRouter, OneFlitPacketLocalToEast) {
  constexpr int V = TestFixture::V, P = TestFixture::P;
  const int t0 = 3;
  const Flit f = make_flit(0xfedcba9876543210ull, 0x89abcdefu, 0x1234, 5, 0, kHeadTail, 0);
  const Trace tr = simulate<TypeParam>(
      {{5, RouteEntry{kEast, (uint16_t)(1u << (V - 1))}}},
      [=](int t, const std::vector<CycleOut>&, CycleIn* in) {
        if (t == t0) in->send(kLocal, f);
      },
      t0 + P + 10);
  ASSERT_TRUE(tr.finished);
  ASSERT_EQ(tr.out.size(), 1u);
  EXPECT_EQ(tr.out[0].port, kEast);
  EXPECT_EQ(tr.out[0].t, t0 + P - 1);
  expect_same_flit(tr.out[0].flit, f, V - 1, "one-flit packet on E");
  ASSERT_EQ(tr.cr_out.size(), 1u);
  EXPECT_EQ(tr.cr_out[0].port, kLocal);
  EXPECT_EQ(tr.cr_out[0].t, t0 + TestFixture::kRegRc + TestFixture::kRegVa);
  EXPECT_EQ(tr.cr_out[0].t, tr.out[0].t - TestFixture::kRegSa);  // the SA cycle
  EXPECT_EQ(tr.cr_out[0].vc, 0);
}

// Every port code and "no route" through the codec and the RTL's table: entries
// dst 10 + p = {port p, mask {V-1}} for p = 0..4 and dst 20 = kNoRoute are written as
// route_word() words. One-flit packets on L, VC 0, 4 cycles apart (B = 1 has its slot
// back by then): the one to 10 + p leaves on port p at t + P - 1 with vc V-1, as in (a);
// the one to dst 20 (third, at t = 11) is dropped in its arrival cycle, its slot credited
// back on L in that cycle (the model's receive step), never leaves, and fails the RTL's
// "no route" assertion; the packets after it are unaffected.
TYPED_TEST(RtlRouter, EveryPortAndNoRouteThroughTheTable) {
  constexpr int V = TestFixture::V, P = TestFixture::P;
  for (int p = 0; p < kNumPorts; ++p) {  // the codec on its own
    const RouteEntry e{(uint8_t)p, (uint16_t)(1u << (V - 1))};
    RouteEntry d;
    ASSERT_TRUE(route_from_word(route_word(e), &d));
    EXPECT_EQ(d.port, p);
    EXPECT_EQ(d.vc_mask, e.vc_mask);
  }
  std::vector<std::pair<ChipId, RouteEntry>> table;
  for (int p = 0; p < kNumPorts; ++p) table.push_back({(ChipId)(10 + p), RouteEntry{(uint8_t)p, (uint16_t)(1u << (V - 1))}});
  table.push_back({20, RouteEntry{kNoRoute, 0}});
  // Sends: t = 3, 7, 11 (dst 20), 15, 19, 23 -> dsts 10, 11, 20, 12, 13, 14.
  const std::vector<ChipId> dsts = {10, 11, 20, 12, 13, 14};
  std::vector<Flit> sent;
  for (size_t i = 0; i < dsts.size(); ++i)
    sent.push_back(make_flit(payload_of((uint32_t)i, 0), (uint32_t)i, 0x42, dsts[i], 0, kHeadTail, 0));
  const Stimulus stim = [=](int t, const std::vector<CycleOut>& past, CycleIn* in) {
    return_credits(t, past, in);
    if (t >= 3 && (t - 3) % 4 == 0 && (size_t)(t - 3) / 4 < sent.size()) in->send(kLocal, sent[(t - 3) / 4]);
  };
  const auto j = test::in_child([&] {
    Verilated::threadContextp()->fatalOnError(false);
    RouterBench<Vfm_router> bench("bench", TypeParam::pins(), table, stim, 40);
    sc_core::sc_start();
    nlohmann::json r = bench.to_json_trace();
    r["rtl_error"] = Verilated::threadContextp()->gotError();
    return r;
  });
  ASSERT_TRUE(j.contains("finished") && j.at("finished") == true);
  EXPECT_TRUE(j.at("rtl_error") == true) << "the no-route head must fail the RTL's assertion";
  const std::vector<Event> out = events_from(j.at("out"), true), cr = events_from(j.at("cr_out"), false);
  ASSERT_EQ(out.size(), 5u);
  for (size_t i = 0, k = 0; i < dsts.size(); ++i) {
    const int t = 3 + 4 * (int)i;
    if (dsts[i] == 20) continue;
    EXPECT_EQ(out[k].port, (int)dsts[i] - 10) << "dst " << dsts[i];
    EXPECT_EQ(out[k].t, t + P - 1) << "dst " << dsts[i];
    expect_same_flit(out[k].flit, sent[i], V - 1, "dst " + std::to_string(dsts[i]));
    ++k;
  }
  ASSERT_EQ(cr.size(), 6u);  // one per packet, the dropped one's in its arrival cycle
  for (size_t i = 0; i < dsts.size(); ++i) {
    EXPECT_EQ(cr[i].port, kLocal);
    EXPECT_EQ(cr[i].vc, 0);
    EXPECT_EQ(cr[i].t, 3 + 4 * (int)i + (dsts[i] == 20 ? 0 : TestFixture::kRegRc + TestFixture::kRegVa))
        << "dst " << dsts[i];
  }
}

// (b) A 4-flit packet (kinds 1, 0, 0, 2; seq 0..3) arrives on W, input VC V-1, one flit
// per cycle at t0 .. t0 + 3, for destination 9 whose route is {N, all VCs}. B >= 4, so
// the upstream needs no credit back and the router's output VC never runs out.
//   Head: as in (a), VA picks the first free VC of the mask at or after va_ptr = 0,
//   i.e. VC 0; SA at s = t0 + regRC + regVA; departs at t0 + P - 1.
//   Flit k arrives at t0 + k, ready at t0 + k + regRC; it reaches the front when flit
//   k - 1 is switched (s + k - 1), the VC is ACTIVE since s, so it is switched at s + k.
// So flit k departs on N at t0 + P - 1 + k with vc 0 (one flit per cycle, in order), and
// the credit for VC V-1 goes out on W at s + k.
TYPED_TEST(RtlRouter, FourFlitPacketStreamsOneFlitPerCycle) {
  constexpr int V = TestFixture::V, B = TestFixture::B, P = TestFixture::P;
  if (B < 4) GTEST_SKIP() << "needs B >= 4";
  const int t0 = 2, size = 4;
  std::vector<Flit> pkt;
  for (int k = 0; k < size; ++k) pkt.push_back(make_flit(payload_of(7, k), 7, 3, 9, k, kind_of(k, size), V - 1));
  const Trace tr = simulate<TypeParam>(
      {{9, RouteEntry{kNorth, TestFixture::kAllVcs}}},
      [=](int t, const std::vector<CycleOut>& past, CycleIn* in) {
        return_credits(t, past, in);
        if (t >= t0 && t < t0 + size) in->send(kWest, pkt[t - t0]);
      },
      t0 + P + size + 10);
  ASSERT_TRUE(tr.finished);
  ASSERT_EQ(tr.out.size(), (size_t)size);
  ASSERT_EQ(tr.cr_out.size(), (size_t)size);
  const int s = t0 + TestFixture::kRegRc + TestFixture::kRegVa;
  for (int k = 0; k < size; ++k) {
    EXPECT_EQ(tr.out[k].port, kNorth) << "flit " << k;
    EXPECT_EQ(tr.out[k].t, t0 + P - 1 + k) << "flit " << k;
    expect_same_flit(tr.out[k].flit, pkt[k], 0, "flit " + std::to_string(k));
    EXPECT_EQ(tr.cr_out[k].port, kWest) << "credit " << k;
    EXPECT_EQ(tr.cr_out[k].t, s + k) << "credit " << k;
    EXPECT_EQ(tr.cr_out[k].vc, V - 1) << "credit " << k;
  }
}

// (c) The downstream never returns a credit. Input L carries packet A on input VC 0 to
// destination 5 = {E, mask {0}} and, when V >= 2, packet B on input VC 1 to destination
// 6 = {E, mask {V-1}}; each is far longer than the buffers (3B + 5 flits). The upstream
// obeys flow control over a credit link of latency 1: it starts with B credits per VC,
// a credit the router sends in cycle c counts from c + 1, and each cycle it sends one
// flit of the packet whose turn it is (alternating) if that VC has a credit.
//   Each output VC starts with B credits and gets none back; SA needs a credit, and each
//   switched flit takes one. So exactly B flits of A leave on E VC 0 (seq 0 .. B-1, in
//   order) and exactly B of B on E VC V-1, nothing else leaves, and every flit switched
//   returns one credit upstream: exactly B credits per input VC on L. The upstream then
//   has sent B + B flits per packet (its initial credits and the returned ones) and the
//   router holds B per input VC.
//   Then, at tc (long after the stall), one credit for E VC 0 arrives: A's front flit
//   (seq B) is ACTIVE, ready, and the only eligible VC for E, so it is switched at tc
//   (credit for input VC 0 out on L at tc) and departs on E at tc + regSA; nothing more.
TYPED_TEST(RtlRouter, NoCreditsBackStallsAfterBufDepthFlitsPerOutputVc) {
  constexpr int V = TestFixture::V, B = TestFixture::B;
  const int npkt = V >= 2 ? 2 : 1, size = 3 * B + 5;
  const int tc = 4 * B + 30, cycles = tc + 20;
  struct Upstream {
    int credits[2];
    int sent[2] = {0, 0};
    int turn = 0;
  };
  auto up = std::make_shared<Upstream>();
  up->credits[0] = up->credits[1] = B;
  const ChipId dst[2] = {5, 6};
  const Stimulus stim = [=](int t, const std::vector<CycleOut>& past, CycleIn* in) {
    if (t > 0 && past[t - 1].credit[kLocal] >= 0) ++up->credits[past[t - 1].credit[kLocal]];
    for (int i = 0; i < npkt; ++i) {
      const int k = (up->turn + i) % npkt;
      if (up->credits[k] == 0 || up->sent[k] == size) continue;
      const int n = up->sent[k]++;
      --up->credits[k];
      in->send(kLocal, make_flit(payload_of(100 + k, n), 100 + k, 1, dst[k], n, kind_of(n, size), k));
      up->turn = (k + 1) % npkt;
      break;
    }
    if (t == tc) in->credit[kEast] = 0;
  };
  std::vector<std::pair<ChipId, RouteEntry>> table = {{5, RouteEntry{kEast, 1}}};
  if (npkt == 2) table.push_back({6, RouteEntry{kEast, (uint16_t)(1u << (V - 1))}});
  const Trace tr = simulate<TypeParam>(table, stim, cycles);
  ASSERT_TRUE(tr.finished);

  std::map<int, int> sent_per_vc;
  for (const Event& e : tr.in) ++sent_per_vc[e.flit.vc];
  for (int k = 0; k < npkt; ++k) {
    EXPECT_EQ(sent_per_vc[k], 2 * B + (k == 0 ? 1 : 0)) << "upstream VC " << k;
  }

  int seen[2] = {0, 0};
  int last_before_tc = -1;
  for (const Event& e : tr.out) {
    ASSERT_EQ(e.port, kEast) << "cycle " << e.t;
    const int k = e.flit.packet - 100;
    ASSERT_TRUE(k >= 0 && k < npkt) << "cycle " << e.t;
    EXPECT_EQ(e.flit.vc, k == 0 ? 0 : V - 1) << "cycle " << e.t;
    EXPECT_EQ(e.flit.seq, seen[k]) << "packet " << k << " cycle " << e.t;
    ++seen[k];
    if (e.t < tc) last_before_tc = e.t;
    if (e.t >= tc) {
      EXPECT_EQ(k, 0);
      EXPECT_EQ(e.t, tc + TestFixture::kRegSa) << "the flit released by the late credit";
    }
  }
  EXPECT_EQ(seen[0], B + 1) << "E VC 0: B flits, then one more for the late credit";
  if (npkt == 2) {
    EXPECT_EQ(seen[1], B) << "E VC " << V - 1;
  }
  EXPECT_LT(last_before_tc, tc - 20) << "the output must have stalled well before tc";

  int credits[2] = {0, 0};
  for (const Event& e : tr.cr_out) {
    ASSERT_EQ(e.port, kLocal) << "cycle " << e.t;
    ASSERT_TRUE(e.vc >= 0 && e.vc < npkt) << "cycle " << e.t;
    ++credits[e.vc];
    if (e.t >= tc) {
      EXPECT_EQ(e.t, tc);
      EXPECT_EQ(e.vc, 0);
    }
  }
  EXPECT_EQ(credits[0], B + 1);
  if (npkt == 2) {
    EXPECT_EQ(credits[1], B);
  }
}

// (d) Two inputs compete for one output. N and S each receive a 4-flit packet on input
// VC 0 at t0 .. t0 + 3 for destination 7 = {L, all VCs} (needs V >= 2, B >= 4; the
// downstream returns credits as in (b)).
//   VA at t0 + regRC: N (i = 0) and S (i = 2V) both request the first free VC at or
//   after va_ptr = 0: L VC 0. Its pointer is 0, so N wins; S's request is lost. Next
//   cycle S requests L VC 1 (VC 0 is no longer free) and wins: sa_ready(S) =
//   t0 + regRC + 1 + regVA.
//   SA: at s = t0 + regRC + regVA only N bids: N0; sa_out_ptr[L] = 1. From s + 1 both
//   bid every cycle; the pointer alternates the grant: S (ptr 1 -> 3), N (ptr 3 wraps to
//   0 -> 1), S, ... So L carries N0 S0 N1 S1 N2 S2 N3 S3 departing at s + regSA + j,
//   j = 0..7; N's on VC 0, S's on VC 1. Credits: VC 0 on N at s, s+2, s+4, s+6 and
//   VC 0 on S at s+1, s+3, s+5, s+7.
TYPED_TEST(RtlRouter, TwoInputsShareAnOutputRoundRobin) {
  constexpr int V = TestFixture::V, B = TestFixture::B;
  if (V < 2 || B < 4) GTEST_SKIP() << "needs V >= 2 and B >= 4";
  const int t0 = 2, size = 4;
  std::vector<Flit> pn, ps;
  for (int k = 0; k < size; ++k) {
    pn.push_back(make_flit(payload_of(11, k), 11, 20, 7, k, kind_of(k, size), 0));
    ps.push_back(make_flit(payload_of(12, k), 12, 21, 7, k, kind_of(k, size), 0));
  }
  const Trace tr = simulate<TypeParam>(
      {{7, RouteEntry{kLocal, TestFixture::kAllVcs}}},
      [=](int t, const std::vector<CycleOut>& past, CycleIn* in) {
        return_credits(t, past, in);
        if (t >= t0 && t < t0 + size) {
          in->send(kNorth, pn[t - t0]);
          in->send(kSouth, ps[t - t0]);
        }
      },
      t0 + TestFixture::P + 2 * size + 10);
  ASSERT_TRUE(tr.finished);
  const int s = t0 + TestFixture::kRegRc + TestFixture::kRegVa;
  ASSERT_EQ(tr.out.size(), 2u * size);
  for (int j = 0; j < 2 * size; ++j) {
    const bool from_n = j % 2 == 0;
    const Flit& sent = from_n ? pn[j / 2] : ps[j / 2];
    EXPECT_EQ(tr.out[j].port, kLocal) << "departure " << j;
    EXPECT_EQ(tr.out[j].t, s + TestFixture::kRegSa + j) << "departure " << j;
    expect_same_flit(tr.out[j].flit, sent, from_n ? 0 : 1, "departure " + std::to_string(j));
  }
  const auto crn = Trace::at(tr.cr_out, kNorth), crs = Trace::at(tr.cr_out, kSouth);
  ASSERT_EQ(crn.size(), (size_t)size);
  ASSERT_EQ(crs.size(), (size_t)size);
  for (int k = 0; k < size; ++k) {
    EXPECT_EQ(crn[k].t, s + 2 * k) << "credit N " << k;
    EXPECT_EQ(crn[k].vc, 0);
    EXPECT_EQ(crs[k].t, s + 2 * k + 1) << "credit S " << k;
    EXPECT_EQ(crs[k].vc, 0);
  }
  EXPECT_EQ(tr.cr_out.size(), 2u * size);
}

// (e) Random legal traffic on all five ports at once (not cycle-exact: the invariants of
// the spec that hold for any timing). Every input port has a flow-controlled upstream
// (B credits per VC, a returned credit counts from the next cycle, packets of 1..6
// flits, one packet at a time per VC, VCs interleaved on the link), every output port a
// downstream that returns each credit 2..6 cycles after the flit departs (at most one
// per cycle). Routes are random {port, non-empty VC mask}. The RTL's own assertions
// check flow control (no write into a full buffer, no credit count above B). Checked:
//   - every flit sent leaves exactly once, on its route's port, on an output VC in the
//     route's mask, no earlier than P - 1 cycles after it arrived for a head (RC, VA, SA
//     registers) and regRC + regSA cycles for a body or tail (no VA);
//   - the flits of each output VC form whole packets, one after the other (wormhole);
//   - each input VC sends upstream exactly one credit per flit it received.
TYPED_TEST(RtlRouter, RandomTrafficDeliversEveryFlitInWormholeOrder) {
  constexpr int V = TestFixture::V, B = TestFixture::B, P = TestFixture::P;
  const int ndest = 16, inject_until = 1500, cycles = 2500;
  std::mt19937 rng(12345 + V * 100 + B * 10 + P);
  std::vector<std::pair<ChipId, RouteEntry>> table;
  for (int d = 0; d < ndest; ++d) {
    RouteEntry e;
    e.port = (uint8_t)(rng() % kNumPorts);
    do e.vc_mask = (uint16_t)(rng() & TestFixture::kAllVcs); while (!e.vc_mask);
    table.push_back({(ChipId)d, e});
  }
  struct Side {
    std::mt19937 rng;
    int credits[kNumPorts][kMaxVcs];
    int left[kNumPorts][kMaxVcs] = {};  // flits of the open packet still to send
    int size[kNumPorts][kMaxVcs] = {};
    Flit cur[kNumPorts][kMaxVcs];
    uint32_t next_packet[kNumPorts] = {};
    std::vector<std::pair<int, int>> due[kNumPorts];  // (cycle, vc) of credits to return
  };
  auto st = std::make_shared<Side>();
  st->rng.seed(777 + P);
  for (auto& port : st->credits)
    for (int& c : port) c = B;
  const Stimulus stim = [=](int t, const std::vector<CycleOut>& past, CycleIn* in) {
    Side& s = *st;
    for (int p = 0; p < kNumPorts; ++p) {
      if (t > 0 && past[t - 1].credit[p] >= 0) ++s.credits[p][past[t - 1].credit[p]];
      if (t > 0 && past[t - 1].valid[p])
        s.due[p].push_back({t - 1 + 2 + (int)(s.rng() % 5), past[t - 1].flit[p].vc});
      // Downstream of output p: the oldest due credit, one per cycle.
      if (!s.due[p].empty() && s.due[p].front().first <= t) {
        in->credit[p] = s.due[p].front().second;
        s.due[p].erase(s.due[p].begin());
      }
      // Upstream of input p: one flit of a random VC that has a credit. After
      // inject_until, packets already started are finished, no new one starts.
      if (s.rng() % 4 == 0) continue;
      const int v0 = (int)(s.rng() % V);
      for (int i = 0; i < V; ++i) {
        const int v = (v0 + i) % V;
        if (!s.credits[p][v] || (t >= inject_until && !s.left[p][v])) continue;
        if (!s.left[p][v]) {
          s.size[p][v] = s.left[p][v] = 1 + (int)(s.rng() % 6);
          s.cur[p][v] = make_flit(0, s.next_packet[p]++, (ChipId)(100 + p), (ChipId)(s.rng() % ndest), -1, 0, v);
        }
        Flit f = s.cur[p][v];
        f.seq = (uint16_t)(s.size[p][v] - s.left[p][v]);
        f.kind = (uint8_t)kind_of(f.seq, s.size[p][v]);
        f.payload = payload_of(f.packet * 8 + p, f.seq);
        --s.left[p][v];
        --s.credits[p][v];
        in->send((Port)p, f);
        break;
      }
    }
  };
  const Trace tr = simulate<TypeParam>(table, stim, cycles);
  ASSERT_TRUE(tr.finished);

  // Sent flits by (src, packet, seq).
  using Key = std::tuple<ChipId, uint32_t, int>;
  std::map<Key, Event> sent;
  std::map<std::pair<int, int>, int> sent_per_ivc;
  for (const Event& e : tr.in) {
    sent[{e.flit.src, e.flit.packet, e.flit.seq}] = e;
    ++sent_per_ivc[{e.port, e.flit.vc}];
  }
  ASSERT_GT(tr.in.size(), 1000u);
  std::map<Key, int> seen;
  std::map<std::pair<int, int>, Flit> last_on_ovc;  // previous flit on output VC
  for (const Event& e : tr.out) {
    const Key k{e.flit.src, e.flit.packet, e.flit.seq};
    ASSERT_TRUE(sent.count(k)) << "cycle " << e.t << ": flit never sent";
    ASSERT_EQ(seen[k]++, 0) << "cycle " << e.t << ": flit left twice";
    const Event& in = sent.at(k);
    const RouteEntry& r = table[in.flit.dst].second;
    EXPECT_EQ(e.port, r.port) << "cycle " << e.t;
    EXPECT_TRUE(r.vc_mask >> e.flit.vc & 1) << "cycle " << e.t << " vc " << (int)e.flit.vc;
    // A head needs VA: P - 1 cycles at least; a body/tail only RC and ST registers.
    const int min_latency = (e.flit.kind & kHead) ? P - 1 : TestFixture::kRegRc + TestFixture::kRegSa;
    EXPECT_GE(e.t, in.t + min_latency) << "cycle " << e.t;
    EXPECT_EQ(e.flit.payload, in.flit.payload);
    EXPECT_EQ(e.flit.kind, in.flit.kind);
    EXPECT_EQ(e.flit.dst, in.flit.dst);
    // Wormhole: a head follows a tail (or nothing); a body/tail continues its packet.
    auto it = last_on_ovc.find({e.port, e.flit.vc});
    const bool prev_closed = it == last_on_ovc.end() || (it->second.kind & kTail);
    if (e.flit.kind & kHead) {
      EXPECT_TRUE(prev_closed) << "cycle " << e.t << ": head interleaved on output "
                               << e.port << " vc " << (int)e.flit.vc;
    } else {
      ASSERT_FALSE(prev_closed) << "cycle " << e.t;
      EXPECT_EQ(it->second.src, e.flit.src) << "cycle " << e.t;
      EXPECT_EQ(it->second.packet, e.flit.packet) << "cycle " << e.t;
      EXPECT_EQ(it->second.seq + 1, e.flit.seq) << "cycle " << e.t;
    }
    last_on_ovc[{e.port, e.flit.vc}] = e.flit;
  }
  EXPECT_EQ(tr.out.size(), tr.in.size()) << "every flit delivered after the drain";
  std::map<std::pair<int, int>, int> credits_per_ivc;
  for (const Event& e : tr.cr_out) ++credits_per_ivc[{e.port, e.vc}];
  EXPECT_EQ(credits_per_ivc, sent_per_ivc);
}

// The configuration pins are range-checked: V above the build's NUM_VCS, B of 0 or above
// its BUF_DEPTH, P of 0 or above its PIPELINE each fail the RTL's assertion after reset;
// the build's bounds themselves do not.
TEST(RtlRouterConfig, OutOfRangeConfigurationFailsAnAssertion) {
  auto run = [](RouterCfg c) {
    return run_isolated([c] {
      Verilated::threadContextp()->fatalOnError(false);
      RouterBench<Vfm_router> bench("bench", c, {}, [](int, const std::vector<CycleOut>&, CycleIn*) {}, 5);
      sc_core::sc_start();
      return std::string(Verilated::threadContextp()->gotError() ? "assertion" : "clean");
    }).output;
  };
  EXPECT_EQ(run({FM_RTL_MAX_VCS, FM_RTL_MAX_BUF, FM_RTL_MAX_PIPELINE, true}), "clean");
  EXPECT_EQ(run({1, 1, 1, false}), "clean");
  EXPECT_EQ(run({FM_RTL_MAX_VCS + 1, 4, 3, false}), "assertion");
  EXPECT_EQ(run({0, 4, 3, false}), "assertion");
  EXPECT_EQ(run({2, 0, 3, false}), "assertion");
  EXPECT_EQ(run({2, FM_RTL_MAX_BUF + 1, 3, false}), "assertion");
  EXPECT_EQ(run({2, 4, 0, false}), "assertion");
  EXPECT_EQ(run({2, 4, FM_RTL_MAX_PIPELINE + 1, false}), "assertion");
}
