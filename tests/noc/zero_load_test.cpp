// Zero-load latency of a single packet against the value worked out by hand from the
// pipeline spec (docs/router-microarchitecture.md, "Zero-load latency"):
//   T0 = 1 (NI -> router) + (H + 1)(P - 1) (routers) + H * L (links) + 1 (router -> NI)
//        + (S - 1) (serialisation of the body)
// for H hops, pipeline depth P, link latency L, S flits (S <= buffer depth).
#include "models/routing/dor.h"
#include "tests/sim_util.h"

using namespace fm;
using namespace fm::test;

namespace {

struct Case {
  int w, h;
  Topology topo;
  int pipeline, link_latency, size;
  Coord src, dst;
};

// Simulates one packet created at cycle 7 and returns its latency (creation -> tail ejection).
long simulate(const Case& k) {
  const auto j = in_child([k] {
    NetworkConfig n;
    n.width = k.w;
    n.height = k.h;
    n.topology = k.topo;
    n.pipeline = k.pipeline;
    n.link_latency = n.credit_latency = k.link_latency;
    n.buf = 8;
    Network net("net", n);
    const std::string e = net.load_tables(build_dor_tables(n));
    if (!e.empty()) throw std::runtime_error(e);
    const Topology2D& t = net.topology();
    const ChipId s = t.id(k.src.x, k.src.y), d = t.id(k.dst.x, k.dst.y);
    ScriptedSource src({{7, d, k.size}});
    attach_source(net, s, &src);
    // Long enough for any path: (w + h) hops of at most pipeline + link latency each.
    sc_core::sc_start(net.clock().period() * (400.0 + 2.0 * (k.w + k.h) * (k.pipeline + k.link_latency)));
    const NiStats& st = net.ni(d).stats();
    const NiStats& from = net.ni(s).stats();  // the source keeps the latencies
    nlohmann::json r;
    r["delivered"] = st.packets_delivered;
    r["latency"] = from.latencies.empty() ? -1 : (long)from.latencies[0];
    r["violations"] = net.counters().violations;
    return r;
  });
  EXPECT_EQ(j.value("delivered", 0), 1);
  EXPECT_EQ(j.value("violations", 1), 0);
  return j.value("latency", -1L);
}

long expected(const Case& k) {
  NetworkConfig n;
  n.width = k.w;
  n.height = k.h;
  n.topology = k.topo;
  const Topology2D t(n);
  const long H = t.distance(t.id(k.src.x, k.src.y), t.id(k.dst.x, k.dst.y));
  return 1 + (H + 1) * (k.pipeline - 1) + H * k.link_latency + 1 + (k.size - 1);
}

}  // namespace

TEST(ZeroLoad, SinglePacketMatchesAnalyticLatency) {
  std::vector<Case> cases;
  for (int p = 1; p <= 4; ++p)
    for (int l : {1, 2, 5})
      for (int s : {1, 4})
        cases.push_back({4, 4, Topology::Mesh, p, l, s, {0, 0}, {3, 2}});
  cases.push_back({8, 8, Topology::Mesh, 3, 1, 8, {7, 7}, {0, 0}});
  cases.push_back({5, 3, Topology::Mesh, 2, 3, 3, {4, 0}, {1, 2}});
  cases.push_back({2, 2, Topology::Mesh, 1, 1, 1, {0, 0}, {1, 0}});
  // Torus: minimal paths use the wraparound links.
  cases.push_back({8, 8, Topology::Torus, 3, 1, 4, {0, 0}, {7, 6}});
  cases.push_back({6, 4, Topology::Torus, 4, 2, 2, {5, 3}, {1, 0}});
  cases.push_back({16, 16, Topology::Torus, 1, 1, 5, {3, 12}, {12, 3}});
  // Long links: every router on the path sleeps through each flight (Link::next_arrival)
  // and must wake in the arrival cycle of every flit.
  cases.push_back({8, 8, Topology::Mesh, 3, 200, 4, {0, 0}, {7, 6}});
  cases.push_back({6, 4, Topology::Torus, 2, 97, 8, {5, 3}, {1, 0}});
  for (const Case& k : cases) {
    EXPECT_EQ(simulate(k), expected(k))
        << k.w << "x" << k.h << (k.topo == Topology::Torus ? " torus" : " mesh") << " P=" << k.pipeline
        << " L=" << k.link_latency << " S=" << k.size;
  }
}

// Hand-worked example, P=1, L=1, one hop, one flit: created at 7, injected at 7, in the
// source router at 8 (and out the same cycle), in the destination router at 9, ejected at 10.
TEST(ZeroLoad, HandWorkedOneHop) {
  EXPECT_EQ(simulate({2, 2, Topology::Mesh, 1, 1, 1, {0, 0}, {1, 0}}), 3);
  // P=4 adds three cycles per router: 3 + 2 * 3.
  EXPECT_EQ(simulate({2, 2, Topology::Mesh, 4, 1, 1, {0, 0}, {1, 0}}), 9);
}

namespace {

// A stream of 1,000 packets of 8 flits over one hop of a 2x1 mesh on one VC, links of
// L = Lc = 1,000 cycles: returns the cycle the last one was delivered.
long stream(int buf) {
  const auto j = in_child([buf] {
    NetworkConfig n;
    n.width = 2;
    n.height = 1;
    n.vcs = 1;
    n.buf = buf;
    n.link_latency = n.credit_latency = 1000;
    Network net("net", n);
    const std::string e = net.load_tables(build_dor_tables(n));
    if (!e.empty()) throw std::runtime_error(e);
    std::vector<ScriptedSource::Packet> pk(1000, {1, net.topology().id(1, 0), 8});
    ScriptedSource s(pk);
    attach_source(net, net.topology().id(0, 0), &s);
    nlohmann::json r;
    for (Cycle t = 0; t < 200000; t += 100) {
      sc_core::sc_start(net.clock().period() * 100.0);
      if (net.ni(net.topology().id(1, 0)).stats().packets_delivered == 1000) {
        r["done"] = net.clock().now();
        break;
      }
    }
    r["violations"] = net.counters().violations;
    return r;
  });
  EXPECT_EQ(j.value("violations", 1), 0);
  return j.value("done", -1L);
}

}  // namespace

// The credit round trip (docs/router-microarchitecture.md): one VC streams at one flit
// per cycle only if B >= Lc + regSA + L + regRC = 2,002 here. With the deepest buffer
// (4,096) the 8,000 flits take 8,000 cycles plus the zero-load latency (~1,000, checked
// every 100 cycles); with 256 slots the stream is paced by 256 flits per round trip,
// at least 8,000 x 2,002 / 256 = 62,563 cycles less the first buffer's worth.
TEST(ZeroLoad, DeepBuffersCoverALongLinksRoundTrip) {
  const long deep = stream(kMaxBuf), shallow = stream(256);
  ASSERT_GT(deep, 0);
  ASSERT_GT(shallow, 0);
  EXPECT_LE(deep, 8000 + 1000 + 120) << "shallow " << shallow;
  EXPECT_GE(shallow, 8000L * 2002 / 256 - 2002) << "deep " << deep;
  EXPECT_GE(deep, 8000 + 1000) << deep << " " << shallow;  // never faster than the link allows
}
