// The Clock's contract with the units it evaluates (models/noc/clock.h): a unit evaluates a
// cycle only while awake, exactly at the cycle it was booked for after sleeping, in the
// order the units were added, and a wake-up asked for during a cycle (by a unit evaluated
// earlier or later in that cycle) is never lost. Every router and NI relies on this: a
// unit that missed its booked cycle would never read the flit arriving in it.
//
// Each simulation runs in a forked child (tests/sim_util.h, in_child), as every other
// simulation test does: SystemC elaborates once per process, so two tests calling
// sc_start in one process (faultmesh_kernel_tests --gtest_filter='Clock.*') would fail with
// "insert module failed: simulation running". The child returns what each unit saw.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "models/noc/clock.h"
#include "tests/sim_util.h"

namespace fm {
namespace {

// A unit that logs the cycles it evaluates and follows a script: per cycle, whether to
// stay awake, and wake-ups to ask of another unit.
struct Log {
  std::vector<std::string> lines;  // "cycle name", in evaluation order
};

class ScriptUnit : public sc_core::sc_module, public Clocked {
 public:
  ScriptUnit(sc_core::sc_module_name name, Clock& clk, Log& log)
      : sc_module(name), Clocked(clk), log_(log) {
    clk.add(this);
  }
  // Stay awake through cycle `until` (sleep after evaluating it).
  Cycle awake_until = 0;
  // In cycle `at`, ask `who` to evaluate cycle `cycle`.
  struct Ask {
    Cycle at;
    Clocked* who;
    Cycle cycle;
  };
  std::vector<Ask> asks;
  Cycle sleep_until = kNever;  // argument of sleep() (kNever: until woken)
  std::vector<Cycle> seen;

 private:
  void evaluate() override {
    const Cycle t = clk_.now();
    seen.push_back(t);
    log_.lines.push_back(std::to_string(t) + " " + basename());
    for (const Ask& a : asks)
      if (a.at == t) a.who->wake_at(a.cycle);
    if (t >= awake_until) sleep(sleep_until > t ? sleep_until : kNever);
  }
  Log& log_;
};

std::vector<Cycle> cycles(Cycle a, Cycle b) {  // a..b inclusive
  std::vector<Cycle> v;
  for (Cycle c = a; c <= b; ++c) v.push_back(c);
  return v;
}

TEST(Clock, UnitEvaluatesOnlyTheBookedCyclesInAddOrder) {
  const nlohmann::json r = test::in_child([] {
    Log log;
    Clock clk("clock", sc_core::sc_time(1, sc_core::SC_NS));
    ScriptUnit a("a", clk, log), b("b", clk, log), c("c", clk, log), e("e", clk, log);
    // a: woken for 3, awake through 5; in 3 it asks b for 4. c: booked for 3000 (beyond
    // the calendar's 1024-cycle ring) and then for 2, which supersedes it; after 2 it
    // sleeps with sleep(4). So the calendar holds c before b for cycle 4, and the awake
    // list must still run them in the order they were added. e: booked for 2000 only,
    // through the far-future heap.
    a.wake_at(3);
    a.awake_until = 5;
    a.asks = {{3, &b, 4}};
    c.wake_at(3000);
    c.wake_at(2);
    c.sleep_until = 4;
    e.wake_at(2000);
    sc_core::sc_start(sc_core::sc_time(3010, sc_core::SC_NS));
    return nlohmann::json{{"a", a.seen}, {"b", b.seen}, {"c", c.seen}, {"e", e.seen},
                          {"a_evaluated", a.cycles_evaluated()}, {"log", log.lines}};
  });
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(r["a"].get<std::vector<Cycle>>(), cycles(3, 5));
  EXPECT_EQ(r["b"].get<std::vector<Cycle>>(), std::vector<Cycle>{4});
  // c slept at 2 until 4; at 4 it sleeps again with sleep(4) not in the future: woken only
  // by someone else. The superseded booking for 3000 must not wake it.
  EXPECT_EQ(r["c"].get<std::vector<Cycle>>(), (std::vector<Cycle>{2, 4}));
  EXPECT_EQ(r["e"].get<std::vector<Cycle>>(), std::vector<Cycle>{2000});
  EXPECT_EQ(r["a_evaluated"].get<uint64_t>(), 3u);
  const std::vector<std::string> want{"2 c", "3 a", "4 a", "4 b", "4 c", "5 a", "2000 e"};
  EXPECT_EQ(r["log"].get<std::vector<std::string>>(), want);
}

TEST(Clock, WakeUpAskedDuringACycleIsNeverLost) {
  const nlohmann::json r = test::in_child([] {
    Log log;
    Clock clk("clock", sc_core::sc_time(1, sc_core::SC_NS));
    ScriptUnit a("a", clk, log), b("b", clk, log), c("c", clk, log), d("d", clk, log);
    // Cycle 5: a (added first) evaluates and sleeps; b, later in the same cycle, asks a for
    // 6 (booked after a slept) and c for 6 (c sleeps in 5 after b's request, so the
    // request came while c was awake: c must still evaluate 6, since whoever asks has put
    // work for it in flight). wake_at(now) means the next cycle, never the past (a, 7).
    // d stays awake through 8: asked in 5 for 6 (met by being awake), then in 7 for 11,
    // which must not be shadowed by the earlier, already met request when d sleeps in 8.
    a.wake_at(5);
    b.wake_at(5);
    c.wake_at(5);
    d.wake_at(5);
    b.asks = {{5, &a, 6}, {5, &c, 6}, {7, &a, 7}, {5, &d, 6}, {7, &d, 11}};
    c.awake_until = 5;
    b.awake_until = 7;
    d.awake_until = 8;
    sc_core::sc_start(sc_core::sc_time(14, sc_core::SC_NS));
    return nlohmann::json{{"a", a.seen}, {"b", b.seen}, {"c", c.seen}, {"d", d.seen}};
  });
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(r["a"].get<std::vector<Cycle>>(), (std::vector<Cycle>{5, 6, 8}));
  EXPECT_EQ(r["b"].get<std::vector<Cycle>>(), cycles(5, 7));
  EXPECT_EQ(r["c"].get<std::vector<Cycle>>(), (std::vector<Cycle>{5, 6}));
  EXPECT_EQ(r["d"].get<std::vector<Cycle>>(), (std::vector<Cycle>{5, 6, 7, 8, 11}));
}

// Clock::rebalance moves the band boundaries while units are awake, asleep with a
// booking in the calendar's ring (< 1024 cycles ahead) or in its far-future heap: after
// the move every unit must still evaluate exactly the cycles it was booked for. Units
// 0..59 stay awake through cycle 4200; at two threads the first band (units 0..49) has
// five times the second's work, so the clock moves the boundary. Unit 60 + k sleeps
// until 1500 + 50 k (far heap when booked) and then 700 cycles more (ring).
TEST(Clock, BandsMoveWithoutLosingABooking) {
  const nlohmann::json r = test::in_child([] {
    Clock clk("clock", sc_core::sc_time(1, sc_core::SC_NS));
    std::vector<Log> logs(100);  // one each: with two threads units evaluate at once
    std::vector<std::unique_ptr<ScriptUnit>> u;
    for (int i = 0; i < 100; ++i)
      u.push_back(std::make_unique<ScriptUnit>(("u" + std::to_string(i)).c_str(), clk, logs[i]));
    for (int i = 0; i < 60; ++i) {
      u[i]->wake_at(1);
      u[i]->awake_until = 4200;
    }
    for (int k = 0; k < 40; ++k) {
      const Cycle at = 1500 + 50 * (Cycle)k;
      u[60 + k]->wake_at(at);
      u[60 + k]->sleep_until = at + 700;
    }
    clk.set_threads(2);
    sc_core::sc_start(sc_core::sc_time(5000, sc_core::SC_NS));
    nlohmann::json j;
    for (int i = 0; i < 100; ++i) j["seen"].push_back(u[i]->seen);
    j["rebalances"] = clk.rebalances();
    return j;
  });
  ASSERT_FALSE(r.empty());
  EXPECT_GT(r["rebalances"].get<uint64_t>(), 0u);
  for (int i = 0; i < 60; ++i)
    EXPECT_EQ(r["seen"][i].get<std::vector<Cycle>>(), cycles(1, 4200)) << "unit " << i;
  for (int k = 0; k < 40; ++k) {
    const Cycle at = 1500 + 50 * (Cycle)k;
    // After at + 700 it sleeps with sleep(at + 700), not in the future: woken by no one.
    EXPECT_EQ(r["seen"][60 + k].get<std::vector<Cycle>>(), (std::vector<Cycle>{at, at + 700}))
        << "unit " << 60 + k;
  }
}

}  // namespace
}  // namespace fm
