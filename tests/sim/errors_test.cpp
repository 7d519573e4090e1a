// docs/errors.md is the specification of what a user sees for every class of bad input:
// each row of its table is one test here. A command row is run as the user would run it
// and must exit with the row's code, print the row's text and leave no file behind; a
// row that names a GoogleTest test requires that test to exist in tests/. Editing the
// table edits the tests; a message that drifts from the documentation fails.
#include <dirent.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tb/memory.h"
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

// Whether tests/ (any folder under it) defines the GoogleTest test "Suite.Name" (TEST or
// TEST_P).
bool test_exists(const std::string& name) {
  const size_t dot = name.find('.');
  if (dot == std::string::npos) return false;
  const std::regex def("TEST(_P|_F)?\\(\\s*" + name.substr(0, dot) + ",\\s*" + name.substr(dot + 1) + "\\)");
  const std::filesystem::path dir = std::filesystem::path(FAULTMESH_SOURCE_DIR) / "tests";
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".cpp" && std::regex_search(slurp(e.path().string()), def))
      return true;
  return false;
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
  args = replace_all(args, "$FIX", std::string(FAULTMESH_SOURCE_DIR) + "/tests/sim/errors");
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

// The up-front memory estimate (tb/memory.h) against the peak RSS the same runs
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
  // A failure mid-run adds the restarted collective's schedules and, with resume, the
  // planner: the same check for both recoveries (4 KiB chunks, so the schedules weigh),
  // the estimate's parts named.
  for (const char* rec : {"resume", "restart"}) {
    const std::string f = "allreduce --mesh 8x8 --bytes 4MiB --chunk 4KiB --verify off --fail-at 40%:board:1,2 --recovery " +
                          std::string(rec) + " -q --json " + tmpdir() + "/arf.json";
    const Outcome fr = run(f);
    ASSERT_EQ(fr.code, 0) << rec << ": " << fr.err;
    const double frss =
        nlohmann::json::parse(slurp(tmpdir() + "/arf.json"))["simulator"]["peak_rss_kb"].get<double>() * 1024;
    const Outcome flow = run(f + " --mem-limit " + std::to_string((uint64_t)(frss / 1.5)));
    EXPECT_EQ(flow.code, 2) << rec << ": refused below peak/1.5: " << flow.err;
    EXPECT_NE(flow.err.find("restart schedules"), std::string::npos) << flow.err;
    EXPECT_EQ(flow.err.find("resume planner") != std::string::npos, std::string(rec) == "resume") << flow.err;
    const Outcome fhigh = run(f + " --mem-limit " + std::to_string((uint64_t)(frss * 1.5)));
    EXPECT_EQ(fhigh.code, 0) << rec << ": ran at peak*1.5: " << fhigh.err;
  }
}

// An allreduce too big for --mem-limit is refused from its whole estimate (network,
// schedule, verified data) before anything is built: at 64x64, 2d (order xy, ring lines,
// 1-cycle links, 8-flit buffers) at 64 KiB needs about
// 613 MiB, 325 MiB of it the schedule's 4.3 M transfers. Both a limit below the network
// alone (200 MiB, which used to be refused from the network's 252 MiB, a partial
// estimate) and one above it (300 MiB, refused only after building the route tables and
// the schedule, at 467 MiB resident) get the same whole estimate, at a peak RSS far
// below the limit.
TEST(Errors, AllreduceMemoryRefusalComesFirstWithTheWholeEstimate) {
  for (const char* limit : {"200MiB", "300MiB"}) {
    const pid_t pid = start_bin({"allreduce", "--mesh", "64x64", "--topology", "torus", "--algo", "2d",
                                 "--order", "xy", "--line", "ring", "--link-latency", "1", "--buf", "8",
                                 "--bytes", "64KiB", "--mem-limit", limit},
                                tmpdir() + "/mem.out", tmpdir() + "/mem.err");
    ASSERT_GT(pid, 0);
    int st = 0;
    struct rusage ru = {};
    ASSERT_EQ(wait4(pid, &st, 0, &ru), pid);
    const std::string err = slurp(tmpdir() + "/mem.err");
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 2) << limit << ": " << err;
    EXPECT_NE(err.find("this run needs about 613 MiB"), std::string::npos) << limit << ": " << err;
    EXPECT_NE(err.find("collective schedule 325 MiB"), std::string::npos) << limit << ": " << err;
    // Far below both the limit and the 467 MiB the old order reached; 150 MiB leaves room
    // for a sanitizer build's shadow memory (about 93 MiB at start-up).
    EXPECT_LT(ru.ru_maxrss, 150L << 10) << limit << ": peak RSS " << ru.ru_maxrss << " KiB before refusing";
  }
}

// latency-sweep runs --jobs points at once, each a process with its own network: when
// that many exceed --mem-limit it runs as many as fit (here 2 of 4, at about 13 MiB a
// point under 30 MiB), says so, and gives the same points as an unlimited run.
TEST(Errors, LatencySweepRunsOnlyAsManyPointsAsFitTheMemoryLimit) {
  const std::string base = "latency-sweep --mesh 8x8 --warmup 50 --cycles 300 --rates 0.05:0.2:0.05 --jobs 4 -q --json ";
  const std::string lim = tmpdir() + "/ls_lim.json", free = tmpdir() + "/ls_free.json";
  const Outcome l = run(base + lim + " --mem-limit 30MiB");
  ASSERT_EQ(l.code, 0) << l.err;
  EXPECT_NE(l.err.find("note: running 2 point(s) at once, not 4: 4 would need about 53 MiB (13 MiB each), "
                       "more than --mem-limit 30 MiB"),
            std::string::npos)
      << l.err;
  const Outcome f = run(base + free + " --mem-limit 1GiB");
  ASSERT_EQ(f.code, 0) << f.err;
  EXPECT_EQ(f.err.find("at once"), std::string::npos) << f.err;
  auto points = [](const std::string& p) {
    auto j = nlohmann::json::parse(slurp(p));
    for (auto& pt : j["points"])
      for (const char* k : {"wall_seconds", "router_cycles_per_second", "simulator"}) pt.erase(k);
    return j;
  };
  EXPECT_EQ(points(lim).dump(), points(free).dump());
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
      {"sw/results.csv", slurp(std::string(FAULTMESH_SOURCE_DIR) + "/tests/sim/errors/sweep_ok.ini")}};
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

// SIGINT, SIGTERM or SIGHUP during a run that writes a waveform and a JSON: the process
// removes its temporary files (the FST writer's hierarchy file too) and ends killed by
// that signal (a shell shows 128 + N), leaving nothing in the output directory.
TEST(Errors, SignalRemovesTemporaryFilesAndEndsKilledByIt) {
  struct Case {
    int sig;
    std::vector<std::string> outputs;  // output options, relative to the case directory
    std::vector<std::string> temps;    // temporary files to see before signalling
  };
  const std::vector<Case> cases = {
      {SIGTERM, {"--vcd", "w.vcd"}, {"w.vcd.tmp."}},
      {SIGINT, {"--fst", "w.fst", "--json", "r.json"}, {"w.fst.tmp.", ".hier"}},
      {SIGHUP, {"--vcd", "w.vcd", "--csv", "r.csv"}, {"w.vcd.tmp."}},
  };
  int k = 0;
  for (const Case& c : cases) {
    const std::string dir = tmpdir() + "/signal" + std::to_string(k++);
    ASSERT_EQ(system(("mkdir -p " + dir).c_str()), 0);
    std::vector<std::string> args = {"traffic", "--mesh", "8x8", "--warmup", "100", "--cycles", "5000000", "-q"};
    for (size_t i = 0; i < c.outputs.size(); ++i) args.push_back(i % 2 ? dir + "/" + c.outputs[i] : c.outputs[i]);
    const pid_t pid = start_bin(args, tmpdir() + "/signal.out", tmpdir() + "/signal.err");
    ASSERT_GT(pid, 0);
    const bool started = wait_for([&] {
      for (const std::string& t : c.temps)
        if (files_named(dir, t).empty()) return false;
      return true;
    }, 30);
    EXPECT_TRUE(started) << "signal " << c.sig << ": no temporary file appeared";
    kill(pid, c.sig);
    int st = 0;
    ASSERT_EQ(waitpid(pid, &st, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == c.sig)
        << "signal " << c.sig << ": wait status " << st << "\n" << slurp(tmpdir() + "/signal.err");
    EXPECT_TRUE(dir_empty(dir)) << "signal " << c.sig << " left files in " << dir;
  }
}
