// The shared value parsers (tb/util/parse.h) and the child-process pool
// (tb/util/job_pool.h): every accepted form with its value worked out by hand, the
// malformed forms, zero and overflow rejected; the pool's limits, results and order.
#include <gtest/gtest.h>

#include <unistd.h>

#include <climits>
#include <cstdio>
#include <fstream>
#include <vector>
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "tb/util/subprocess.h"
#include "tb/util/job_pool.h"
#include "tb/util/json_io.h"
#include "tb/util/parse.h"

namespace {

uint64_t bytes_of(const std::string& s) {
  uint64_t v = 12345;
  EXPECT_TRUE(fm::parse_bytes(s, &v)) << s;
  return v;
}

TEST(Util, BytesEveryUnit) {
  EXPECT_EQ(bytes_of("4096"), 4096u);
  EXPECT_EQ(bytes_of("4096B"), 4096u);
  EXPECT_EQ(bytes_of("3KiB"), 3u * 1024);
  EXPECT_EQ(bytes_of("256KiB"), 262144u);
  EXPECT_EQ(bytes_of("2MiB"), 2097152u);
  EXPECT_EQ(bytes_of("32GiB"), 34359738368u);
  EXPECT_EQ(bytes_of("5KB"), 5000u);
  EXPECT_EQ(bytes_of("5kB"), 5000u);
  EXPECT_EQ(bytes_of("100MB"), 100000000u);
  EXPECT_EQ(bytes_of("7GB"), 7000000000u);
}

TEST(Util, BytesDecimalsAndExponents) {
  EXPECT_EQ(bytes_of("1.5KiB"), 1536u);
  EXPECT_EQ(bytes_of("0.5MiB"), 524288u);
  EXPECT_EQ(bytes_of("1e6"), 1000000u);
  EXPECT_EQ(bytes_of("2.5MB"), 2500000u);
  EXPECT_EQ(bytes_of(".5KiB"), 512u);
  EXPECT_EQ(bytes_of("1.25e3"), 1250u);
}

TEST(Util, BytesWholeNumbersAreExactPastADouble) {
  // 2^53 + 1 bytes and 2^63 bytes: no double holds the first, both are whole numbers.
  EXPECT_EQ(bytes_of("9007199254740993"), 9007199254740993ULL);
  EXPECT_EQ(bytes_of("8589934592GiB"), 9223372036854775808ULL);
  EXPECT_EQ(bytes_of("18446744073709551615"), 18446744073709551615ULL);
}

TEST(Util, BytesRejected) {
  for (const char* s : {"", "B", "KiB", "0", "0KiB", "-64", "-1KiB", "1.3", "0.1B", "12abc", "1KiB ", "1 KiB",
                        "1kib", "1TiB", "1e20", "2e15", "inf", "nan", "1e", "x", "1..5KiB",
                        // as every other numeric option: no hexadecimal, sign or blank
                        "0x40", "0x10", "0x1p4", "+64", "+4KiB", " 64", " 4MiB", "\t64", "-0", ".", ".e3",
                        // overflow: 2^64 as a number, and 2^34 GiB = 2^64 bytes
                        "18446744073709551616", "17179869184GiB", "99999999999999999999999"}) {
    uint64_t v = 77;
    EXPECT_FALSE(fm::parse_bytes(s, &v)) << "'" << s << "' gave " << v;
  }
}

TEST(Util, WxH) {
  int w = 0, h = 0;
  ASSERT_TRUE(fm::parse_wxh("16x32", &w, &h));
  EXPECT_EQ(w, 16);
  EXPECT_EQ(h, 32);
  ASSERT_TRUE(fm::parse_wxh("1x1", &w, &h));
  EXPECT_EQ(w + h, 2);
  ASSERT_TRUE(fm::parse_wxh("2147483647x7", &w, &h));
  EXPECT_EQ(w, INT_MAX);
  EXPECT_EQ(h, 7);
  for (const char* s : {"", "x", "16", "16x", "x16", "16x16x", "16x16x2", "0x4", "4x0", "-4x4", "+4x4", " 4x4",
                        "4x 4", "4x4 ", "4X4", "4*4", "4x4junk", "4.0x4", "2147483648x1", "1x99999999999"}) {
    w = h = -9;
    EXPECT_FALSE(fm::parse_wxh(s, &w, &h)) << s;
    EXPECT_EQ(w, -9) << s;  // left alone
    EXPECT_EQ(h, -9) << s;
  }
}

TEST(Util, IntRange) {
  int lo = 0, hi = 0;
  ASSERT_TRUE(fm::parse_int_range("5", &lo, &hi));
  EXPECT_EQ(lo, 5);
  EXPECT_EQ(hi, 5);
  ASSERT_TRUE(fm::parse_int_range("1-8", &lo, &hi));
  EXPECT_EQ(lo, 1);
  EXPECT_EQ(hi, 8);
  ASSERT_TRUE(fm::parse_int_range("-3", &lo, &hi));
  EXPECT_EQ(lo, -3);
  EXPECT_EQ(hi, -3);
  ASSERT_TRUE(fm::parse_int_range("-3-4", &lo, &hi));
  EXPECT_EQ(lo, -3);
  EXPECT_EQ(hi, 4);
  ASSERT_TRUE(fm::parse_int_range("5-2", &lo, &hi));  // order is the caller's check
  EXPECT_EQ(lo, 5);
  EXPECT_EQ(hi, 2);
  for (const char* s : {"", "-", "a", "1-", "-1-", "1-a", "1.5", "1-2-3", "1 ", "1- 2x", "0x10",
                        "2147483648", "1-2147483648", "-2147483649"})
    EXPECT_FALSE(fm::parse_int_range(s, &lo, &hi)) << s;
}

TEST(Util, StepRange) {
  double a = 0, b = 0, st = 0;
  ASSERT_TRUE(fm::parse_step_range("0.1:0.5:0.1", &a, &b, &st));
  EXPECT_DOUBLE_EQ(a, 0.1);
  EXPECT_DOUBLE_EQ(b, 0.5);
  EXPECT_DOUBLE_EQ(st, 0.1);
  ASSERT_TRUE(fm::parse_step_range(" 1 : 1e3 : .5 ", &a, &b, &st));
  EXPECT_DOUBLE_EQ(a, 1);
  EXPECT_DOUBLE_EQ(b, 1000);
  EXPECT_DOUBLE_EQ(st, 0.5);
  ASSERT_TRUE(fm::parse_step_range("-2:+2:1", &a, &b, &st));
  EXPECT_DOUBLE_EQ(a, -2);
  EXPECT_DOUBLE_EQ(b, 2);
  for (const char* s : {"", "1", "1:2", "1:2:", ":2:3", "1:2:3:4", "1;2;3", "a:b:c", "1:2:3x", "1e:2:3",
                        "0x1:2:3", "inf:2:1", "1:nan:1", "1e999:2:1", "1::2", ".:1:1"})
    EXPECT_FALSE(fm::parse_step_range(s, &a, &b, &st)) << s;
}

// Forked children that write "job I" and exit with I: every result comes back with its
// own output and code, never more than `jobs` run at once, a job that starts no child
// gets no result.
TEST(Util, JobPoolCollectsEveryChild) {
  const size_t n = 7;
  int running = 0, most = 0;
  std::map<size_t, fm::PoolResult> got;
  fm::run_pool(
      n, 3,
      [&](size_t i, fm::PoolChild* c) {
        if (i == 4) return false;
        int p[2];
        if (pipe(p) != 0) return false;
        const pid_t pid = fm::fork_tracked();
        if (pid == 0) {
          close(p[0]);
          const std::string s = "job " + std::to_string(i);
          usleep(1000 * (int)(n - i));  // later jobs end first
          (void)!write(p[1], s.data(), s.size());
          _exit((int)i);
        }
        close(p[1]);
        c->pid = pid;
        c->fd = p[0];
        most = std::max(most, ++running);
        return true;
      },
      [&](size_t i, const fm::PoolResult& r) {
        --running;
        got[i] = r;
      });
  EXPECT_EQ(most, 3);
  ASSERT_EQ(got.size(), n - 1);
  EXPECT_FALSE(got.count(4));
  for (const auto& [i, r] : got) {
    EXPECT_EQ(r.output, "job " + std::to_string(i));
    EXPECT_EQ(r.exit_code, (int)i);
    EXPECT_GE(r.seconds, 0.0);
  }
}

TEST(Util, RunCaptureReadsBothStreams) {
  const fm::Captured c = fm::run_capture({"sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_EQ(c.out, "out\n");
  EXPECT_EQ(c.err, "err\n");
  EXPECT_EQ(c.exit_code, 3);
}

TEST(Util, FlattenAndCsv) {
  const auto j = nlohmann::ordered_json::parse(
      R"({"b":1,"a":{"y":"p,q","x":[1,"s"]},"links":[{"u":1}],"n":null,"t":true,"wall_seconds":2.5})");
  std::vector<std::string> keys, cells;
  fm::flatten_json(j, [&](const std::string& k, const nlohmann::ordered_json& v) {
    keys.push_back(k);
    cells.push_back(fm::csv_quote(fm::csv_text(v, false)));
  }, {"wall_seconds"});
  EXPECT_EQ(keys, (std::vector<std::string>{"b", "a.y", "a.x", "n", "t"}));
  EXPECT_EQ(cells, (std::vector<std::string>{"1", "\"p,q\"", "1;s", "null", "true"}));
  EXPECT_EQ(fm::csv_text(nullptr, true), "");
  EXPECT_EQ(fm::csv_quote("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(fm::csv_quote("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(fm::csv_quote("plain"), "plain");
}

TEST(Util, ReadJsonFileIsNullWhenMissingOrBroken) {
  const std::string p = ::testing::TempDir() + "util_test_" + std::to_string(getpid()) + ".json";
  EXPECT_TRUE(fm::read_json_file(p).is_null());
  std::ofstream(p) << R"({"ok": true, "z": 1, "a": 2})";
  const auto j = fm::read_json_file(p);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j.begin().key(), "ok");  // file order kept
  std::ofstream(p) << R"({"ok": tr)";  // half-written
  EXPECT_TRUE(fm::read_json_file(p).is_null());
  std::remove(p.c_str());
}

}  // namespace
