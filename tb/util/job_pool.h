// One pool of child processes, `jobs` at a time, for everything that runs work in
// children: sweep points and paper-report runs (the faultmesh binary started with
// spawn_redirected) and in-process SystemC runs isolated by fork (tb/isolated.h). It
// waits in poll(2) on one pipe per child, which reaches end-of-file when the child
// ends (and carries the child's output, if it writes any), then reaps that child with
// wait_child: no polling sleep, and never a reap of a child that is not the pool's.
#pragma once
#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <string>

namespace fm {

// A started child: its pid (a tracked child, tb/util/subprocess.h fork_tracked) and the
// read end of a pipe whose write end only the child holds. The pool closes `fd`.
struct PoolChild {
  pid_t pid = -1;
  int fd = -1;
};

// How a child ended: its waitpid status, exit code (or 128 + signal), everything it
// wrote to the pipe, and the wall-clock seconds since it started.
struct PoolResult {
  int status = 0;
  int exit_code = -1;
  std::string output;
  double seconds = 0;
};

// Runs jobs 0..n-1 in order, at most `jobs` children at once. start(i) starts job i
// and returns true with *child filled, or false when the job finished without a child
// (it could not start, or needs none: the callback has recorded that itself). done(i, r)
// is called as each child ends, in the order they end. Throws std::runtime_error when
// poll or waitpid fails.
void run_pool(size_t n, int jobs, const std::function<bool(size_t, PoolChild*)>& start,
              const std::function<void(size_t, const PoolResult&)>& done);

}  // namespace fm
