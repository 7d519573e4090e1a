// The invariant monitors fire: a credit the router never lent, a body flit with no
// open packet, and a failed link that carries nothing.
#include "models/routing/dor.h"
#include "tests/sim_util.h"

using namespace fm;
using namespace fm::test;

namespace {
NetworkConfig two_by_two() {
  NetworkConfig n;
  n.width = n.height = 2;
  return n;
}
}  // namespace

TEST(Monitors, CreditAboveBufferDepthIsReported) {
  const auto j = in_child([] {
    const NetworkConfig n = two_by_two();
    Network net("net", n);
    net.load_tables(build_dor_tables(n));
    // A credit for VC 0 of router 0's East output, which already holds all B credits.
    // Credits are applied when the router next evaluates a cycle: a packet through
    // router 0 makes it do so.
    net.link(0, kEast)->send_credit(0, 0);
    ScriptedSource src({{3, 1, 1}});
    attach_source(net, 0, &src);
    sc_core::sc_start(net.clock().period() * 20.0);
    return nlohmann::json{{"violations", net.counters().violations},
                          {"first", net.first_violation()}};
  });
  EXPECT_EQ(j.value("violations", 0), 1);
  EXPECT_NE(j.value("first", std::string()).find("credit count above buffer depth"), std::string::npos);
}

TEST(Monitors, CreditForNonexistentVcIsReported) {
  const auto j = in_child([] {
    const NetworkConfig n = two_by_two();
    Network net("net", n);
    net.load_tables(build_dor_tables(n));
    net.link(0, kEast)->send_credit(5, 0);  // the router has 2 VCs
    ScriptedSource src({{3, 1, 1}});
    attach_source(net, 0, &src);
    sc_core::sc_start(net.clock().period() * 20.0);
    return nlohmann::json{{"violations", net.counters().violations},
                          {"first", net.first_violation()},
                          {"credits_n", net.router(0).credits(kNorth, 0)}};
  });
  EXPECT_EQ(j.value("violations", 0), 1);
  EXPECT_NE(j.value("first", std::string()).find("credit for nonexistent vc 5"), std::string::npos);
  EXPECT_EQ(j.value("credits_n", 0), 8);  // no other port's counter was touched
}

TEST(Monitors, BodyFlitWithoutHeadIsReported) {
  const auto j = in_child([] {
    const NetworkConfig n = two_by_two();
    Network net("net", n);
    net.load_tables(build_dor_tables(n));
    Flit f;
    f.src = 0;
    f.dst = 1;
    f.seq = 1;
    f.kind = kBody;
    net.link(0, kEast)->send(f, 0);
    sc_core::sc_start(net.clock().period() * 10.0);
    // (Router 0 also reports the credit router 1 returns for a flit it never sent.)
    return nlohmann::json{{"violations", net.router(1).violations()},
                          {"first", net.router(1).first_violation()}};
  });
  EXPECT_EQ(j.value("violations", 0), 1);
  EXPECT_NE(j.value("first", std::string()).find("does not continue the packet"), std::string::npos);
}

TEST(Monitors, HeadInterleavedIntoOpenPacketIsReported) {
  const auto j = in_child([] {
    const NetworkConfig n = two_by_two();
    Network net("net", n);
    net.load_tables(build_dor_tables(n));
    Flit a;
    a.src = 0;
    a.dst = 1;
    a.kind = kHead;  // packet 0 opens VC 0 ...
    net.link(0, kEast)->send(a, 0);
    Flit b = a;
    b.packet = 1;    // ... and packet 1's head arrives on the same VC before its tail
    net.link(0, kEast)->send(b, 1);
    sc_core::sc_start(net.clock().period() * 10.0);
    // (Router 0 also reports the credit router 1 returns for a flit it never sent.)
    return nlohmann::json{{"violations", net.router(1).violations()},
                          {"first", net.router(1).first_violation()}};
  });
  EXPECT_GE(j.value("violations", 0), 1);
  EXPECT_NE(j.value("first", std::string()).find("interleaved"), std::string::npos);
}

TEST(Links, FailedLinkCarriesNothing) {
  const auto j = in_child([] {
    const NetworkConfig n = two_by_two();
    Network net("net", n);
    net.load_tables(build_dor_tables(n));
    net.link(0, kEast)->fail();
    ScriptedSource src({{0, 1, 3}});
    attach_source(net, 0, &src);
    sc_core::sc_start(net.clock().period() * 50.0);
    return nlohmann::json{{"delivered", net.ni(1).stats().flits_ejected},
                          {"dropped", net.link(0, kEast)->dropped_flits()},
                          {"sent", net.link(0, kEast)->flits_sent()}};
  });
  EXPECT_EQ(j.value("delivered", 1), 0);
  EXPECT_EQ(j.value("dropped", 0), 3);
  EXPECT_EQ(j.value("sent", 1), 0);
}
