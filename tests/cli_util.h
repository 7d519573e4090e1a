// Helpers for tests that run the faultmesh binary (FAULTMESH_BIN) as a user would:
// capture its exit code, stdout and stderr, in a temporary directory per test program.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace fm::test {

struct Outcome {
  int code;
  std::string out, err;
};

// One temporary directory per test program, created on first use.
inline std::string tmpdir() {
  static std::string d = [] {
    char t[] = "/tmp/faultmesh_test_XXXXXX";
    return std::string(mkdtemp(t));
  }();
  return d;
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

}  // namespace fm::test
