// Helpers for tests that run the faultmesh binary (FAULTMESH_BIN) as a user would:
// capture its exit code, stdout and stderr, in a temporary directory per test program.
#pragma once
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace fm::test {

struct Outcome {
  int code;
  std::string out, err;
};

// One temporary directory per test process, created on first use and removed when the
// process that made it exits (ctest runs every test in a process of its own, so they
// would pile up in /tmp otherwise); FAULTMESH_KEEP_TEST_TMP=1 keeps it for a look. A
// child forked by a test that exits normally must not remove its parent's directory,
// hence the owner's pid.
class TestTmpDir {
 public:
  TestTmpDir() : owner_(getpid()) {
    char t[] = "/tmp/faultmesh_test_XXXXXX";
    if (!mkdtemp(t)) throw std::runtime_error("mkdtemp failed for /tmp/faultmesh_test_XXXXXX");
    path_ = t;
  }
  ~TestTmpDir() {
    if (getpid() != owner_ || std::getenv("FAULTMESH_KEEP_TEST_TMP")) return;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  pid_t owner_;
};
inline std::string tmpdir() {
  static TestTmpDir d;
  return d.path();
}

inline std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

inline bool exists(const std::string& p) { return access(p.c_str(), F_OK) == 0; }

// Runs faultmesh with `args`; `env` is prepended to the shell command (e.g. PATH=...).
inline Outcome run(const std::string& args, const std::string& env = "") {
  static int n = 0;
  const std::string o = tmpdir() + "/o" + std::to_string(n) + ".txt";
  const std::string e = tmpdir() + "/e" + std::to_string(n++) + ".txt";
  const std::string cmd = env + " " + std::string(FAULTMESH_BIN) + " " + args + " >" + o + " 2>" + e;
  const int st = std::system(cmd.c_str());
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, slurp(o), slurp(e)};
}

// Starts faultmesh with `args` (no shell), stdout and stderr to the given files, with
// SIGINT, SIGTERM and SIGHUP at their default action and unblocked: a test that signals
// it must not depend on what it inherits (a non-interactive shell starts background
// jobs with SIGINT ignored, and an ignored signal stays ignored across exec). Returns
// the pid; reap it with waitpid.
inline pid_t start_bin(const std::vector<std::string>& args, const std::string& out,
                       const std::string& err) {
  std::vector<std::string> argv = {FAULTMESH_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> av;
  for (std::string& a : argv) av.push_back(a.data());
  av.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int s : {SIGINT, SIGTERM, SIGHUP}) std::signal(s, SIG_DFL);
    const int in = open("/dev/null", O_RDONLY);
    const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || o < 0 || e < 0 || dup2(in, 0) < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0) _exit(126);
    execv(av[0], av.data());
    _exit(127);
  }
  return pid;
}

// The pids whose parent is `pid` (read from /proc).
inline std::vector<pid_t> children_of(pid_t pid) {
  std::vector<pid_t> v;
  for (const auto& d : std::filesystem::directory_iterator("/proc")) {
    const std::string n = d.path().filename();
    if (n.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string st = slurp(d.path().string() + "/stat");
    const size_t close = st.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream in(st.substr(close + 2));
    char state;
    long ppid = 0;
    if (in >> state >> ppid && ppid == pid) v.push_back((pid_t)std::stol(n));
  }
  return v;
}

// A process that exists and has not ended (a zombie has ended).
inline bool running(pid_t pid) {
  const std::string st = slurp("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = st.rfind(')');
  return close != std::string::npos && close + 2 < st.size() && st[close + 2] != 'Z';
}

// The files under `dir` (recursively) whose name contains `part`.
inline std::vector<std::string> files_named(const std::string& dir, const std::string& part) {
  std::vector<std::string> v;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.path().filename().string().find(part) != std::string::npos) v.push_back(e.path().string());
  return v;
}

// Polls `done` every 20 ms for up to `seconds`; returns its last value.
inline bool wait_for(const std::function<bool()>& done, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!done()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

}  // namespace fm::test
