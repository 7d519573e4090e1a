// Waveforms (tb/tracer.h, docs/waveforms.md): well-formed VCD, flit arrivals at the
// cycles the zero-load formula predicts, windows honoured (also the history kept for
// --wave-around-fault), FST output, the GTKWave save files against real runs, the
// co-simulation file holding its mismatch, results unchanged by tracing, bad options.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <set>
#include <sstream>

#include "models/routing/dor.h"
#include "tb/cosim.h"
#include "tb/tracer.h"
#include "tests/sim_util.h"
#include "tests/tb/vcd_util.h"

using namespace fm;
using namespace fm::test;

#include "tests/cli_util.h"


namespace {


// Files in directory d whose name contains `part`.
std::vector<std::string> files_with(const std::string& d, const std::string& part) {
  std::vector<std::string> r;
  if (DIR* dir = opendir(d.c_str())) {
    while (dirent* e = readdir(dir))
      if (std::string(e->d_name).find(part) != std::string::npos) r.push_back(e->d_name);
    closedir(dir);
  }
  return r;
}

const char* kSmallRun = "traffic --mesh 4x4 --rate 0.2 --packet 1-4 --warmup 100 --cycles 300 --seed 3 -q";

}  // namespace

TEST(Wave, VcdIsWellFormed) {
  const std::string v = tmpdir() + "/small.vcd";
  const Outcome r = run(std::string(kSmallRun) + " --vcd " + v);
  ASSERT_EQ(r.code, 0) << r.err;
  const Vcd d = read_vcd(v);
  EXPECT_EQ(d.error, "");
  // 16 chips: every router is traced by default, with its ports, VCs and ICI links.
  for (const char* s : {"net.faults.event", "net.faults.count[15:0]", "net.router_0_0.in_L.valid",
                        "net.router_3_3.out_W.vc[3:0]", "net.router_2_1.in_E.vc1.occupancy[12:0]",
                        "net.router_2_1.out_N.vc0.credits[12:0]", "net.link_1_2_S.flits_in_flight[15:0]"})
    EXPECT_TRUE(d.has(s)) << s;
  EXPECT_FALSE(d.has("net.link_3_0_E.dead")) << "no link leaves the mesh edge";
  ASSERT_GT(d.times.size(), 100u);
  EXPECT_EQ(d.times.front(), 0u);
  // Traffic moved: some router input saw head flits, and credits stay within 0..B.
  EXPECT_FALSE(d.times_of("net.router_1_1.in_L.kind[1:0]", 1).empty());
  const auto& ch = d.changes.at(d.vars.at("net.router_1_1.out_E.vc0.credits[12:0]").id);
  for (const auto& [t, val] : ch) EXPECT_LE(val, 8u) << t;
  EXPECT_GT(ch.size(), 2u);
}

// One 2-flit packet on a 2x2 mesh from (0,0) to (1,1) (XY: E then N), P = 3, L = 2,
// created at cycle 7. docs/router-microarchitecture.md: the head enters the source router
// at t0 + 1 and each router adds P - 1 cycles, each link L, so it arrives in router k of
// its path at t0 + 1 + k (P - 1 + L) and leaves it P - 1 cycles later; the tail follows
// one cycle behind and is ejected at t0 + T0, T0 = 2 + (H + 1)(P - 1) + H L + (S - 1) = 13.
TEST(Wave, SinglePacketArrivalsFollowTheZeroLoadFormula) {
  const std::string v = tmpdir() + "/one_packet.vcd";
  const auto j = in_child([v] {
    NetworkConfig n;
    n.width = n.height = 2;
    n.pipeline = 3;
    n.link_latency = n.credit_latency = 2;
    Network net("net", n);
    const std::string e = net.load_tables(build_dor_tables(n));
    if (!e.empty()) throw std::runtime_error(e);
    WaveOptions o;
    o.format = WaveFormat::Vcd;
    o.path = v;
    o.option = "--vcd";
    auto tracer = Tracer::attach(net, o);
    ScriptedSource src({{7, net.topology().id(1, 1), 2}});
    attach_source(net, 0, &src);
    sc_core::sc_start(net.clock().period() * 40.0);
    tracer->finish();
    nlohmann::json r;
    r["latency"] = net.ni(0).stats().latencies.at(0);  // kept by the source NI
    return r;
  });
  const long t0 = 7, P = 3, L = 2, H = 2, S = 2;
  const long T0 = 2 + (H + 1) * (P - 1) + H * L + (S - 1);
  ASSERT_EQ(j.value("latency", -1L), T0);
  const Vcd d = read_vcd(v);
  ASSERT_EQ(d.error, "");
  struct Hop {
    const char* in;   // input port signal scope of router k
    const char* out;  // output port it leaves on
  };
  const Hop path[] = {{"net.router_0_0.in_L", "net.router_0_0.out_E"},
                      {"net.router_1_0.in_W", "net.router_1_0.out_N"},
                      {"net.router_1_1.in_S", "net.router_1_1.out_L"}};
  for (int k = 0; k < 3; ++k) {
    const uint64_t arrive = t0 + 1 + k * (P - 1 + L), leave = arrive + P - 1;
    for (const auto& [scope, at] : {std::pair{path[k].in, arrive}, std::pair{path[k].out, leave}}) {
      const std::string s = scope;
      EXPECT_EQ(d.times_of(s + ".valid", 1), std::vector<uint64_t>{at}) << s;
      EXPECT_EQ(d.times_of(s + ".valid", 0).back(), at + S) << s << ": head and tail, one cycle apart";
      EXPECT_EQ(d.at(s + ".kind[1:0]", at), kHead) << s;
      EXPECT_EQ(d.at(s + ".kind[1:0]", at + 1), kTail) << s;
      EXPECT_EQ(d.at(s + ".seq[15:0]", at + 1), 1) << s;
      EXPECT_EQ(d.at(s + ".src[31:0]", at), 0) << s;
      EXPECT_EQ(d.at(s + ".dst[31:0]", at), 3) << s;
    }
  }
  // The last departure is one cycle before the tail's ejection at t0 + T0.
  EXPECT_EQ(d.times_of("net.router_1_1.out_L.valid", 0).back() - 1, (uint64_t)(t0 + T0 - 1));
  // The source router's local input VC holding the packet is ACTIVE from its VA grant
  // (one cycle after arrival at P = 3) until the tail leaves.
  const uint64_t a0 = t0 + 1;
  long long active = 0;
  for (int v = 0; v < 2; ++v)
    active += d.at("net.router_0_0.in_L.vc" + std::to_string(v) + ".state", a0 + 1);
  EXPECT_EQ(active, 1);
  // A credit goes back upstream in the cycle each flit wins the switch (SA), one cycle
  // before it enters the output link (the register after SA at P = 3): head, then tail.
  EXPECT_EQ(d.times_of("net.router_0_0.in_L.credit_valid", 1), std::vector<uint64_t>{a0 + P - 2});
  EXPECT_EQ(d.times_of("net.router_0_0.in_L.credit_valid", 0).back(), a0 + P - 2 + S);
}

TEST(Wave, WindowIsHonoured) {
  const std::string v = tmpdir() + "/window.vcd";
  const Outcome r = run(std::string(kSmallRun) + " --wave-from 150 --wave-to 220 --wave-routers '1,1;2,2' --vcd " + v);
  ASSERT_EQ(r.code, 0) << r.err;
  const Vcd d = read_vcd(v);
  ASSERT_EQ(d.error, "");
  ASSERT_FALSE(d.times.empty());
  EXPECT_EQ(d.times.front(), 150u);
  EXPECT_EQ(d.times.back(), 220u) << "the window's last cycle is stamped";
  for (uint64_t t : d.times) EXPECT_TRUE(t >= 150 && t <= 220) << t;
  EXPECT_TRUE(d.has("net.router_1_1.in_N.valid"));
  EXPECT_TRUE(d.has("net.router_2_2.in_N.valid"));
  EXPECT_FALSE(d.has("net.router_0_0.in_N.valid")) << "only the routers asked for";
}

TEST(Wave, AroundTheFirstFault) {
  const std::string v = tmpdir() + "/fault.vcd";
  const Outcome r = run(std::string(kSmallRun) + " --fail-link 1,1:E --wave-around-fault 40 --vcd " + v);
  ASSERT_EQ(r.code, 0) << r.err;
  const Vcd d = read_vcd(v);
  ASSERT_EQ(d.error, "");
  for (uint64_t t : d.times) EXPECT_LE(t, 40u);
  EXPECT_EQ(d.times.back(), 40u);
  EXPECT_EQ(d.at("net.faults.event", 0), 1);
  EXPECT_EQ(d.at("net.faults.event", 1), 0);
  EXPECT_EQ(d.at("net.faults.count[15:0]", 40), 1);
  EXPECT_EQ(d.at("net.faults.dead_links[31:0]", 0), 2) << "both directions of the link";
  EXPECT_EQ(d.at("net.router_1_1.dead_out[3:0]", 0), 1 << kEast);
  EXPECT_EQ(d.at("net.router_1_1.dead_in[3:0]", 0), 1 << kEast);
  EXPECT_EQ(d.at("net.router_2_1.dead_in[3:0]", 0), 1 << kWest);
  EXPECT_EQ(d.at("net.router_1_1.chip_dead", 0), 0);
  EXPECT_EQ(d.at("net.link_1_1_E.dead", 0), 1);
  ASSERT_FALSE(d.comments.empty());
  EXPECT_NE(d.comments[0].find("cycle 0: faults applied before the run: link 1,1:E"), std::string::npos)
      << d.comments[0];
}

// An event in the middle of a run (the future fault controller): the cycles before it
// come out of the recorder's history, with the values they had.
TEST(Wave, HistoryGivesTheCyclesBeforeALateEvent) {
  const std::string v = tmpdir() + "/history.vcd";
  WaveOptions o;
  o.format = WaveFormat::Vcd;
  o.path = v;
  o.option = "--vcd";
  o.around = 5;
  {
    WaveRecorder rec(o, "history test");
    rec.push_scope("t");
    rec.add_event_vars("event", "count");
    const int slow = rec.add("slow", 8), fast = rec.add("fast", 8);
    rec.pop_scope();
    rec.end_declarations();
    for (Cycle c = 0; c < 40; ++c) {
      ASSERT_TRUE(rec.wants(c) || c > 25) << c;
      if (!rec.wants(c)) continue;
      rec.set(slow, c / 4);
      rec.set(fast, c);
      rec.commit(c);
      if (c == 20) rec.event(20, "late fault");  // after cycle 20 was sampled
    }
    EXPECT_TRUE(rec.done_after(25));
    EXPECT_EQ(rec.finish(), "");
  }
  const Vcd d = read_vcd(v);
  ASSERT_EQ(d.error, "");
  EXPECT_EQ(d.times.front(), 15u);
  EXPECT_EQ(d.times.back(), 25u);
  for (uint64_t t = 15; t <= 25; ++t) {
    EXPECT_EQ(d.at("t.fast[7:0]", t), (long long)t);
    EXPECT_EQ(d.at("t.slow[7:0]", t), (long long)t / 4);
    EXPECT_EQ(d.at("t.event", t), t == 20 ? 1 : 0) << t;
  }
}

// Events reported after their cycle was sampled (a fault controller running after the
// tracer in the same cycle), two in one cycle, in a cycle without any other change.
TEST(Wave, EventAfterItsCycleWasSampledIsMarked) {
  const std::string v = tmpdir() + "/late_mark.vcd";
  WaveOptions o;
  o.format = WaveFormat::Vcd;
  o.path = v;
  o.option = "--vcd";
  o.to = 10;
  {
    WaveRecorder rec(o, "late marks");
    rec.push_scope("t");
    rec.add_event_vars("event", "count");
    const int x = rec.add("x", 4);
    rec.pop_scope();
    rec.end_declarations();
    for (Cycle c = 0; c <= 10; ++c) {
      rec.set(x, c < 3 ? c : 3);  // constant from cycle 3 on
      rec.commit(c);
      if (c == 5) {
        rec.event(5, "first");
        rec.event(5, "second");
      }
    }
    EXPECT_EQ(rec.finish(), "");
  }
  const Vcd d = read_vcd(v);
  ASSERT_EQ(d.error, "");
  EXPECT_EQ(d.times_of("t.event", 1), std::vector<uint64_t>{5});
  EXPECT_EQ(d.at("t.event", 6), 0);
  EXPECT_EQ(d.at("t.count[15:0]", 5), 2);
  EXPECT_EQ(d.times.back(), 10u);
  ASSERT_EQ(d.comments.size(), 2u);
  EXPECT_EQ(d.comments[1], "cycle 5: second");
}

TEST(Wave, FstFileHasTheFstHeader) {
  const std::string f = tmpdir() + "/small.fst";
  const Outcome r = run(std::string(kSmallRun) + " --fst " + f);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string s = slurp(f);
  ASSERT_GT(s.size(), 330u);
  auto be64 = [&](size_t off) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = v << 8 | (uint8_t)s[off + i];
    return v;
  };
  EXPECT_EQ(s[0], 0) << "FST_BL_HDR";
  EXPECT_EQ(be64(1), 329u) << "header section length";
  double e;
  std::memcpy(&e, s.data() + 25, 8);
  EXPECT_DOUBLE_EQ(e, 2.7182818284590452354) << "endianness test value";
  EXPECT_GT(be64(49), 1000u) << "variables declared";
  EXPECT_GE(be64(17), 300u) << "end time";
  EXPECT_TRUE(files_with(tmpdir(), "small.fst.tmp").empty());
}

// With gtkwave's fst2vcd installed, the FST holds the same signals and changes as the VCD
// of the same run.
TEST(Wave, FstConvertsToTheSameSignals) {
  if (std::system("command -v fst2vcd >/dev/null 2>&1") != 0) {
    if (std::getenv("CI")) FAIL() << "fst2vcd missing in CI (sim/setup.sh installs gtkwave)";
    GTEST_SKIP() << "fst2vcd not installed";
  }
  const std::string f = tmpdir() + "/same.fst", v = tmpdir() + "/same.vcd", c = tmpdir() + "/conv.vcd";
  ASSERT_EQ(run(std::string(kSmallRun) + " --fst " + f).code, 0);
  ASSERT_EQ(run(std::string(kSmallRun) + " --vcd " + v).code, 0);
  ASSERT_EQ(std::system(("fst2vcd " + f + " >" + c + " 2>/dev/null").c_str()), 0);
  const Vcd a = read_vcd(v);
  // fst2vcd writes its own header and may repeat values; compare names and final values.
  std::ifstream in(c);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const auto& [name, var] : a.vars) {
    const std::string leaf = name.substr(name.rfind('.') + 1);
    const auto br = leaf.find('[');
    EXPECT_NE(all.find(" " + leaf.substr(0, br)), std::string::npos) << name;
  }
}

// Every signal named in each waveforms/*.gtkw exists in the file of a real run: the
// command in the save file's "[*] faultmesh-run:" line, with --vcd added.
TEST(Wave, GtkwSignalsExistInARealRun) {
  const std::string dir = std::string(FAULTMESH_SOURCE_DIR) + "/waveforms";
  const auto files = files_with(dir, ".gtkw");
  ASSERT_GE(files.size(), 5u) << dir;
  for (const std::string& name : files) {
    std::ifstream in(dir + "/" + name);
    std::string line, cmd;
    std::vector<std::string> signals;
    while (std::getline(in, line)) {
      if (line.rfind("[*] faultmesh-run: ", 0) == 0) cmd = line.substr(19);
      if (line.empty() || line[0] == '[' || line[0] == '@' || line[0] == '-' || line[0] == '*') continue;
      signals.push_back(line);
    }
    ASSERT_FALSE(cmd.empty()) << name << ": no '[*] faultmesh-run:' line";
    EXPECT_GE(signals.size(), 6u) << name;
    const std::string v = tmpdir() + "/" + name + ".vcd";
    const Outcome r = run(cmd + " --vcd " + v);
    ASSERT_EQ(r.code, 0) << name << ": " << cmd << "\n" << r.err;
    const Vcd d = read_vcd(v);
    ASSERT_EQ(d.error, "") << name;
    for (const std::string& s : signals) EXPECT_TRUE(d.has(s)) << name << ": " << s;
  }
}

// The co-simulation with an injected RTL bug: the file holds both designs side by side
// and the mismatch cycle, even when the window ends before it.
TEST(Wave, CosimFileHoldsTheMismatchCycle) {
  const std::string v = tmpdir() + "/cosim_bug.vcd";
  const RtlConfig bug = rtl_bug_configs().at(0);  // FM_BUG_RR_STUCK: mismatch at cycle 9
  const auto j = in_child([&] {
    WaveOptions o;
    o.format = WaveFormat::Vcd;
    o.path = v;
    o.option = "--vcd";
    o.to = 3;
    CosimParams p;
    p.seed = 7;
    p.cycles = 2000;
    p.wave = &o;
    return to_json(run_cosim(bug, p));
  });
  ASSERT_FALSE(j.value("agreed", true));
  const uint64_t m = j.at("mismatch_cycle").get<uint64_t>();
  const Vcd d = read_vcd(v);
  ASSERT_EQ(d.error, "");
  EXPECT_EQ(d.times.back(), m);
  for (uint64_t t : d.times) EXPECT_TRUE(t <= 3 || t == m) << t;
  EXPECT_EQ(d.at("cosim.mismatch", m), 1);
  EXPECT_EQ(d.at("cosim.mismatches[15:0]", m), 1);
  ASSERT_FALSE(d.comments.empty());
  EXPECT_NE(d.comments[0].find("credit sent upstream"), std::string::npos) << d.comments[0];
  // Same names on both sides; they agree before the mismatch and differ at it.
  bool differ = false;
  for (int p = 0; p < kNumPorts; ++p) {
    for (const char* dir : {"in_", "out_"}) {
      const std::string port = std::string(dir) + port_name((Port)p);
      for (const char* sig : {".valid", ".credit_valid", ".credit_vc[3:0]", ".vc[3:0]", ".packet[31:0]"}) {
        const std::string a = "model." + port + sig, b = "rtl." + port + sig;
        ASSERT_TRUE(d.has(a) && d.has(b)) << a;
        for (uint64_t t : d.times)
          if (t < m) {
            EXPECT_EQ(d.at(a, t), d.at(b, t)) << a << " at " << t;
          }
        differ |= d.at(a, m) != d.at(b, m);
      }
    }
  }
  EXPECT_TRUE(differ);
  EXPECT_TRUE(d.has("model.in_N.vc1.state"));
  EXPECT_FALSE(d.has("rtl.in_N.vc1.state"));
}

// Tracing reads the model and never changes it: the JSON results are byte-identical
// (apart from the host-timing fields) with and without waveforms.
TEST(Wave, ResultsAreIdenticalWithAndWithoutWaveforms) {
  const std::string args = "traffic --mesh 6x6 --rate 0.3 --packet 1-6 --warmup 200 --cycles 1500 --seed 11 "
                           "--fail-chip 2,3 -q --json ";
  const std::string a = tmpdir() + "/plain.json", b = tmpdir() + "/traced.json";
  ASSERT_EQ(run(args + a).code, 0);
  const Outcome r = run(args + b + " --vcd " + tmpdir() + "/traced.vcd --wave-routers all");
  ASSERT_EQ(r.code, 0) << r.err;
  auto strip = [](const std::string& p) {
    auto j = nlohmann::json::parse(slurp(p));
    j.erase("wall_seconds");
    j.erase("router_cycles_per_second");
    j.erase("simulator");
    return j.dump(2);
  };
  EXPECT_EQ(strip(a), strip(b));
  EXPECT_GT(read_vcd(tmpdir() + "/traced.vcd").times.size(), 1000u);
}

// The same for an allreduce with a failure during the run (fault controller, recovery,
// restart) and for the co-simulation: two separate processes and a traced one give the
// same bytes.
TEST(Wave, AllreduceAndCosimResultsAreIdenticalAcrossRunsAndWithWaveforms) {
  auto strip = [](const std::string& p) {
    auto j = nlohmann::json::parse(slurp(p));
    j.erase("simulator");
    return j.dump(2);
  };
  const std::string ar = "allreduce --mesh 6x6 --bytes 128KiB --fail-at 30%:board:1,1 -q --json ";
  const std::string a = tmpdir() + "/ar1.json", b = tmpdir() + "/ar2.json", c = tmpdir() + "/ar3.json";
  ASSERT_EQ(run(ar + a).code, 0);
  ASSERT_EQ(run(ar + b).code, 0);
  const Outcome t = run(ar + c + " --vcd " + tmpdir() + "/ar.vcd --wave-around-fault 400 --wave-routers all");
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_EQ(strip(a), strip(b));
  EXPECT_EQ(strip(a), strip(c));
  EXPECT_NE(slurp(a).find("\"restart: "), std::string::npos) << "the failure must have caused a restart";
  const std::string co = "cosim --cycles 3000 --seed 5 --json ";
  ASSERT_EQ(run(co + tmpdir() + "/co1.json").code, 0);
  ASSERT_EQ(run(co + tmpdir() + "/co2.json --vcd " + tmpdir() + "/co.vcd").code, 0);
  EXPECT_EQ(slurp(tmpdir() + "/co1.json"), slurp(tmpdir() + "/co2.json"));
}

TEST(Wave, BadOptionsExit2AndWriteNothing) {
  struct Bad {
    std::string args, must_say;
  };
  const std::string d = tmpdir() + "/bad";
  ASSERT_EQ(system(("mkdir -p " + d).c_str()), 0);
  const std::string f = d + "/w.vcd";
  const std::vector<Bad> bad = {
      {"traffic --vcd /nonexistent/dir/w.vcd", "--vcd /nonexistent/dir/w.vcd: directory"},
      {"traffic --fst /nonexistent/dir/w.fst", "--fst /nonexistent/dir/w.fst: directory"},
      {"traffic --vcd " + f + " --fst " + d + "/w.fst", "--vcd and --fst"},
      {"traffic --vcd " + f + " --wave-from 500 --wave-to 100", "--wave-from 500 is after --wave-to 100"},
      {"traffic --vcd " + f + " --wave-from -3", "--wave-from -3"},
      {"traffic --vcd " + f + " --wave-routers 9,9", "--wave-routers 9,9: outside the 8x8 mesh"},
      {"traffic --vcd " + f + " --wave-routers '1,1;x'", "--wave-routers 1,1;x: expected"},
      {"traffic --vcd " + f + " --wave-around-fault 10 --wave-to 50", "--wave-around-fault"},
      {"traffic --wave-from 10", "--wave-from: needs --vcd"},
      {"cosim --vcd " + f + " --wave-from 9 --wave-to 1", "--wave-from 9 is after --wave-to 1"},
      {"cosim --vcd " + f + " --wave-routers all", "wave-routers"},
  };
  for (const Bad& b : bad) {
    const Outcome r = run(b.args + " --cycles 100");
    EXPECT_EQ(r.code, 2) << b.args << "\n" << r.err;
    EXPECT_NE(r.err.find(b.must_say), std::string::npos) << b.args << "\nstderr: " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << b.args << "\n" << r.err;
  }
  EXPECT_TRUE(files_with(d, "w.").empty()) << "no waveform file, whole or partial";
}

// A 1024-chip run traces a few routers by default: (0,0), the centre, and the live chips
// next to the first failed chip (board (3,3) = chips (6..7, 6..7); the first chip with a
// dead link is (6,5), below (6,6)).
TEST(Wave, DefaultRoutersOfABigRunAreAFew) {
  const std::string v = tmpdir() + "/big.vcd";
  const Outcome r = run("traffic --mesh 32x32 --topology torus --fail-board 3,3 --rate 0.05 --warmup 0 "
                        "--cycles 100 -q --vcd " + v);
  ASSERT_EQ(r.code, 0) << r.err;
  const Vcd d = read_vcd(v);
  ASSERT_EQ(d.error, "");
  std::set<std::string> routers;
  for (const auto& [name, var] : d.vars)
    if (name.rfind("net.router_", 0) == 0) routers.insert(name.substr(4, name.find('.', 4) - 4));
  EXPECT_EQ(routers, (std::set<std::string>{"router_0_0", "router_16_16", "router_6_5", "router_6_4",
                                             "router_5_5", "router_7_5"}));
  EXPECT_EQ(d.at("net.router_6_5.dead_out[3:0]", 0), 1 << kNorth);
  // Both directions of the 8 links crossing the board's edge and of the 4 inside it.
  EXPECT_EQ(d.at("net.faults.dead_links[31:0]", 0), 2 * (8 + 4));
}
