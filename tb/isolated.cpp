#include "tb/isolated.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>

#include "tb/util/subprocess.h"
#include "tb/util/job_pool.h"

namespace fm {

namespace {

void write_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    const ssize_t w = write(fd, s.data() + off, s.size() - off);
    if (w <= 0) return;
    off += (size_t)w;
  }
}

// Forks a child that runs fn and writes what it returns (or its exception's message,
// exit 1) to a pipe: the pool's child.
PoolChild spawn(const std::function<std::string()>& fn) {
  int p[2];
  if (pipe(p) != 0) { std::perror("pipe"); std::exit(2); }
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork_tracked();  // a signal to this process is forwarded to it
  if (pid < 0) { std::perror("fork"); std::exit(2); }
  if (pid == 0) {
    close(p[0]);
    int code = 0;
    std::string out;
    try {
      out = fn();
    } catch (const std::exception& e) {
      out = e.what();
      code = 1;
    }
    write_all(p[1], out);
    close(p[1]);
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(code);
  }
  close(p[1]);
  PoolChild c;
  c.pid = pid;
  c.fd = p[0];
  return c;
}

// The result of a finished child: its output and exit code (or 128 + signal, with a
// line saying so when it wrote nothing).
IsolatedResult result_of(const PoolResult& p) {
  IsolatedResult r;
  r.output = p.output;
  if (WIFEXITED(p.status)) r.exit_code = WEXITSTATUS(p.status);
  else if (WIFSIGNALED(p.status)) {
    r.exit_code = 128 + WTERMSIG(p.status);
    if (r.output.empty()) r.output = "child killed by signal " + std::to_string(WTERMSIG(p.status));
  }
  return r;
}

}  // namespace

IsolatedResult run_isolated(const std::function<std::string()>& fn) {
  return run_isolated_all({fn}, 1)[0];
}

std::vector<IsolatedResult> run_isolated_all(const std::vector<std::function<std::string()>>& fns,
                                             int jobs) {
  if (jobs < 1) jobs = 1;
  std::vector<IsolatedResult> out(fns.size());
  run_pool(
      fns.size(), jobs,
      [&](size_t i, PoolChild* c) {
        *c = spawn(fns[i]);
        return true;
      },
      [&](size_t i, const PoolResult& r) { out[i] = result_of(r); });
  return out;
}

}  // namespace fm
