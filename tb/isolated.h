// Runs work in child processes. SystemC elaborates a design once per process, so every
// simulation that needs its own network (a point of a sweep, a benchmark case, a unit
// test) runs in a fork()ed child that returns a string (usually JSON) through a pipe.
// The children are registered for signal forwarding (tb/util/subprocess.h): in a process
// that installed the signal clean-up, SIGINT/SIGTERM/SIGHUP stop them before it ends.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace fm {

struct IsolatedResult {
  int exit_code = -1;   // child's exit status; 0 when fn returned normally
  std::string output;   // what fn returned, or the exception message
};

// Runs fn in a child process and waits for it.
IsolatedResult run_isolated(const std::function<std::string()>& fn);
// Runs every fn in its own child, at most `jobs` at a time; results in input order.
std::vector<IsolatedResult> run_isolated_all(const std::vector<std::function<std::string()>>& fns,
                                             int jobs);

}  // namespace fm
