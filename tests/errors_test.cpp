// docs/errors.md is the specification of what a user sees for every class of bad input:
// each row of its table is one test here. A command row is run as the user would run it
// and must exit with the row's code, print the row's text and leave no file behind; a
// row that names a GoogleTest test requires that test to exist in tests/. Editing the
// table edits the tests; a message that drifts from the documentation fails.
#include <dirent.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "models/memory.h"
#include "tests/cli_util.h"

using namespace fm::test;

namespace {

struct Row {
  int line = 0;
  std::string cls, input, command, exit, sees;
};

std::string trim(std::string s) {
  while (!s.empty() && std::isspace((unsigned char)s.back())) s.pop_back();
  size_t i = 0;
  while (i < s.size() && std::isspace((unsigned char)s[i])) ++i;
  return s.substr(i);
}

// "`text`" -> "text"; "\|" -> "|".
std::string unquote(std::string s) {
  s = trim(s);
  if (s.size() >= 2 && s.front() == '`' && s.back() == '`') s = s.substr(1, s.size() - 2);
  std::string r;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '|') continue;
    r += s[i];
  }
  return r;
}

// The rows of the table under "## Every class of bad input".
std::vector<Row> read_rows() {
  std::ifstream in(std::string(FAULTMESH_SOURCE_DIR) + "/docs/errors.md");
  std::vector<Row> rows;
  std::string line;
  bool in_section = false;
  for (int no = 1; std::getline(in, line); ++no) {
    if (line.rfind("## ", 0) == 0) in_section = line.find("Every class of bad input") != std::string::npos;
    if (!in_section || line.rfind("| ", 0) != 0 || line.rfind("| class", 0) == 0) continue;
    std::vector<std::string> cols;
    std::string cur;
    for (size_t i = 1; i < line.size(); ++i) {
      if (line[i] == '|' && line[i - 1] != '\\') {
        cols.push_back(cur);
        cur.clear();
      } else {
        cur += line[i];
      }
    }
    if (cols.size() != 5) continue;
    rows.push_back({no, trim(cols[0]), trim(cols[1]), trim(cols[2]), trim(cols[3]), trim(cols[4])});
  }
  return rows;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

bool dir_empty(const std::string& d) {
  DIR* dp = opendir(d.c_str());
  if (!dp) return true;
  bool empty = true;
  while (dirent* e = readdir(dp))
    if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") empty = false;
  closedir(dp);
  return empty;
}

// Whether tests/ defines the GoogleTest test "Suite.Name" (TEST or TEST_P).
bool test_exists(const std::string& name) {
  const size_t dot = name.find('.');
  if (dot == std::string::npos) return false;
  const std::regex def("TEST(_P|_F)?\\(\\s*" + name.substr(0, dot) + ",\\s*" + name.substr(dot + 1) + "\\)");
  const std::string dir = std::string(FAULTMESH_SOURCE_DIR) + "/tests";
  DIR* dp = opendir(dir.c_str());
  bool found = false;
  while (dp && !found)
    if (dirent* e = readdir(dp)) {
      const std::string f = e->d_name;
      if (f.size() > 4 && f.substr(f.size() - 4) == ".cpp") found = std::regex_search(slurp(dir + "/" + f), def);
    } else {
      break;
    }
  if (dp) closedir(dp);
  return found;
}

// Failure messages show the row, not its bytes.
void PrintTo(const Row& r, std::ostream* os) { *os << "docs/errors.md line " << r.line << ": " << r.command; }

class ErrorsTable : public ::testing::TestWithParam<Row> {};

}  // namespace

TEST(Errors, TableIsThere) {
  const auto rows = read_rows();
  EXPECT_GE(rows.size(), 60u) << "docs/errors.md lost rows";
  int commands = 0;
  for (const Row& r : rows) commands += unquote(r.command).rfind("faultmesh", 0) == 0;
  EXPECT_GE(commands, 50);
}

TEST_P(ErrorsTable, RowHolds) {
  const Row& r = GetParam();
  const std::string where = "docs/errors.md line " + std::to_string(r.line) + " (" + r.input + ")";
  if (r.command.rfind("test: ", 0) == 0) {
    EXPECT_TRUE(test_exists(trim(r.command.substr(6)))) << where << ": no test " << r.command;
    return;
  }
  const std::string cmd = unquote(r.command);
  ASSERT_EQ(cmd.rfind("faultmesh ", 0), 0u) << where << ": a command row must start with faultmesh";
  static int n = 0;
  const std::string tmp = tmpdir() + "/row" + std::to_string(n++);
  ASSERT_EQ(system(("mkdir -p " + tmp).c_str()), 0);
  std::string args = cmd.substr(10);
  args = replace_all(args, "$FIX", std::string(FAULTMESH_SOURCE_DIR) + "/tests/errors");
  args = replace_all(args, "$TMP", tmp);
  const Outcome o = run(args);
  EXPECT_EQ(std::to_string(o.code), r.exit) << where << "\n" << o.err << o.out;
  const std::string want = unquote(r.sees);
  EXPECT_NE((o.err + o.out).find(want), std::string::npos)
      << where << ": expected to see\n  " << want << "\ngot\n" << o.err << o.out;
  if (r.exit == "2") {
    EXPECT_EQ(o.err.rfind("faultmesh: error: ", 0), 0u) << where << ": " << o.err;
    EXPECT_TRUE(dir_empty(tmp)) << where << ": bad input left a file in " << tmp;
  }
}

INSTANTIATE_TEST_SUITE_P(Docs, ErrorsTable, ::testing::ValuesIn(read_rows()),
                         [](const ::testing::TestParamInfo<Row>& i) {
                           std::string s = "line" + std::to_string(i.param.line) + "_" + i.param.cls;
                           for (char& c : s)
                             if (!std::isalnum((unsigned char)c)) c = '_';
                           return s;
                         });

// The up-front memory estimate (models/memory.h) against the peak RSS the same runs
// measure: within a factor 1.5 either way, so a refusal is never off by much.
TEST(Errors, MemoryEstimateIsWithinAFactorOfTheMeasuredPeak) {
#ifdef __SANITIZE_ADDRESS__
  GTEST_SKIP() << "AddressSanitizer's shadow memory and quarantine inflate the peak RSS";
#endif
  struct Case {
    std::string args;
    fm::NetworkConfig net;
  };
  std::vector<Case> cases(2);
  cases[0].args = "traffic --mesh 16x16 --vcs 16 --buf 256 --warmup 10 --cycles 10 --rate 0.01";
  cases[0].net.width = cases[0].net.height = 16;
  cases[0].net.vcs = 16;
  cases[0].net.buf = 256;
  cases[1].args = "traffic --mesh 32x32 --vcs 4 --buf 64 --local-ports 4 --warmup 10 --cycles 10 --rate 0.01";
  cases[1].net.width = cases[1].net.height = 32;
  cases[1].net.vcs = 4;
  cases[1].net.buf = 64;
  cases[1].net.local_ports = 4;
  for (const Case& c : cases) {
    const std::string j = tmpdir() + "/mem.json";
    const Outcome o = run(c.args + " -q --json " + j);
    ASSERT_EQ(o.code, 0) << o.err;
    const double rss = nlohmann::json::parse(slurp(j))["simulator"]["peak_rss_kb"].get<double>() * 1024;
    const double est = (double)fm::estimate_network_memory(c.net).total();
    EXPECT_GT(est, rss / 1.5) << c.args << ": estimate " << est << " vs peak RSS " << rss;
    EXPECT_LT(est, rss * 1.5) << c.args << ": estimate " << est << " vs peak RSS " << rss;
  }
  // An allreduce with verified data: the CLI refuses below the estimate and runs above.
  const std::string a = "allreduce --mesh 8x8 --bytes 4MiB --verify on -q --json " + tmpdir() + "/ar.json";
  const Outcome ok = run(a);
  ASSERT_EQ(ok.code, 0) << ok.err;
  const double rss = nlohmann::json::parse(slurp(tmpdir() + "/ar.json"))["simulator"]["peak_rss_kb"].get<double>() * 1024;
  const Outcome low = run(a + " --mem-limit " + std::to_string((uint64_t)(rss / 1.5)));
  EXPECT_EQ(low.code, 2) << "refused below peak/1.5: " << low.err;
  const Outcome high = run(a + " --mem-limit " + std::to_string((uint64_t)(rss * 1.5)));
  EXPECT_EQ(high.code, 0) << "ran at peak*1.5: " << high.err;
}

// A failure schedule file is the same schedule as its lines given as --fail-at options:
// same JSON result, byte for byte (host timing aside), and the failures did happen.
TEST(Errors, FailScheduleFileEqualsFailAtOptions) {
  const std::string sched = tmpdir() + "/schedule.txt";
  std::ofstream(sched) << "# two failures\n30%:board:1,1   # first\n\n@all-gather-x+100:chip:6,6\n";
  const std::string base = "allreduce --mesh 8x8 --bytes 256KiB -q --json ";
  const std::string a = tmpdir() + "/file.json", b = tmpdir() + "/opts.json";
  const Outcome fa = run(base + a + " --fail-schedule " + sched);
  ASSERT_EQ(fa.code, 0) << fa.err;
  const Outcome fb = run(base + b + " --fail-at 30%:board:1,1 --fail-at @all-gather-x+100:chip:6,6");
  ASSERT_EQ(fb.code, 0) << fb.err;
  auto strip = [](const std::string& p) {
    auto j = nlohmann::json::parse(slurp(p));
    j.erase("simulator");
    return j;
  };
  const auto ja = strip(a);
  EXPECT_EQ(ja.dump(), strip(b).dump());
  EXPECT_EQ(ja["live_chips"].get<int>(), 64 - 4 - 1);
  EXPECT_EQ(ja["verified"], true);
}

// A result file that is also an input of the run (or another result) is refused before
// anything runs, naming both options, and the input is left as it was: the result was
// renamed over it (--config c.ini --json c.ini replaced the config with the JSON). Not
// table rows: each needs an input file of its own that the old behaviour overwrote.
TEST(Errors, AResultThatIsAnInputIsRefused) {
  const std::string d = tmpdir() + "/same";
  ASSERT_EQ(system(("mkdir -p " + d + "/sw && cd " + d + " && ln -sf c.ini link.ini").c_str()), 0);
  const std::map<std::string, std::string> inputs = {
      {"c.ini", "mesh = 4x4\ncycles = 200\n"},
      {"f.txt", "chip 1,1\n"},
      {"s.txt", "100:chip:1,1\n"},
      {"sw/results.csv", slurp(std::string(FAULTMESH_SOURCE_DIR) + "/tests/errors/sweep_ok.ini")}};
  for (const auto& [name, text] : inputs) std::ofstream(d + "/" + name) << text;
  struct Case {
    std::string args, must_say;
  };
  const std::vector<Case> cases = {
      {"traffic --config c.ini -q --json ./c.ini",
       "--json ./c.ini names the same file as --config c.ini: a result must not overwrite an input"},
      {"traffic --config c.ini --fault-file f.txt -q --csv f.txt", "--csv f.txt names the same file as --fault-file f.txt"},
      {"allreduce --mesh 4x4 --bytes 64KiB --fail-schedule s.txt -q --json s.txt",
       "--json s.txt names the same file as --fail-schedule s.txt"},
      {"traffic --config link.ini -q --vcd c.ini", "--vcd c.ini names the same file as --config link.ini"},
      {"traffic --config c.ini -q --json new.x --csv ../same/new.x",
       "--csv ../same/new.x names the same file as --json new.x: each result needs a file of its own"},
      {"sweep sw/results.csv --out sw", "sweep spec sw/results.csv is the sweep's own results.csv in --out sw"},
  };
  for (const Case& c : cases) {
    const Outcome o = run(c.args, "cd " + d + " &&");
    EXPECT_EQ(o.code, 2) << c.args << "\n" << o.err;
    EXPECT_EQ(o.err.rfind("faultmesh: error: ", 0), 0u) << c.args << "\n" << o.err;
    EXPECT_NE(o.err.find(c.must_say), std::string::npos) << c.args << "\n" << o.err;
    EXPECT_FALSE(exists(d + "/new.x")) << c.args;
    for (const auto& [name, text] : inputs) EXPECT_EQ(slurp(d + "/" + name), text) << c.args << ": " << name;
  }
}

// A result that cannot be written although the input was fine exits 4 with one line,
// "faultmesh: cannot write PATH: reason", and leaves no temporary file (it exited 2,
// "bad input"). The failure comes from a file size limit (SIGXFSZ ignored, so write()
// fails with EFBIG; the shell's limit is in 512-byte blocks and the stderr line fits)
// and from a full device, written in place: renaming a temporary file over a device
// replaced it with a regular file. As root the devices are private nodes (1,7 = full,
// 1,3 = null), so that a regression cannot replace the system's.
TEST(Errors, ResultWriteFailureExits4AndLeavesNoTemporaryFile) {
  const std::string d = tmpdir() + "/wfail";
  ASSERT_EQ(system(("mkdir -p " + d).c_str()), 0);
  const std::string base = "traffic --mesh 4x4 --cycles 200 -q ";
  for (const std::string& out : {"--json " + d + "/r.json", "--csv " + d + "/r.csv", "--vcd " + d + "/r.vcd"}) {
    const Outcome o = run(base + out, "ulimit -f 1; trap '' XFSZ;");
    EXPECT_EQ(o.code, 4) << out << "\n" << o.err;
    EXPECT_EQ(o.err, "faultmesh: cannot write " + out.substr(out.find(' ') + 1) + ": File too large\n") << out;
    EXPECT_TRUE(dir_empty(d)) << out << ": a temporary file was left in " << d;
  }
  std::string full = "/dev/full", null = "/dev/null";
  if (geteuid() == 0) {
    full = d + "/full";
    null = d + "/null";
    ASSERT_EQ(mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)), 0);
    ASSERT_EQ(mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
  }
  const Outcome f = run(base + "--json " + full);
  EXPECT_EQ(f.code, 4) << f.err;
  EXPECT_EQ(f.err, "faultmesh: cannot write " + full + ": No space left on device\n");
  const Outcome ok = run(base + "--json " + null);
  EXPECT_EQ(ok.code, 0) << ok.err;
  for (const std::string& dev : {full, null}) {
    struct stat st;
    ASSERT_EQ(stat(dev.c_str(), &st), 0) << dev;
    EXPECT_TRUE(S_ISCHR(st.st_mode)) << dev << " is no longer a device";
  }
}
