#include "tb/isolated.h"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>

#include "sim/subprocess.h"

namespace fm {

namespace {

struct Child {
  pid_t pid = -1;
  int fd = -1;
  size_t index = 0;
  std::string buf;
};

void write_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    const ssize_t w = write(fd, s.data() + off, s.size() - off);
    if (w <= 0) return;
    off += (size_t)w;
  }
}

Child spawn(const std::function<std::string()>& fn, size_t index) {
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
  Child c;
  c.pid = pid;
  c.fd = p[0];
  c.index = index;
  return c;
}

IsolatedResult reap(Child& c) {
  close(c.fd);
  int status = 0;
  wait_child(c.pid, &status);
  IsolatedResult r;
  r.output = std::move(c.buf);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) {
    r.exit_code = 128 + WTERMSIG(status);
    if (r.output.empty()) r.output = "child killed by signal " + std::to_string(WTERMSIG(status));
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
  std::vector<Child> running;
  size_t next = 0;
  while (next < fns.size() || !running.empty()) {
    while (next < fns.size() && (int)running.size() < jobs) {
      running.push_back(spawn(fns[next], next));
      ++next;
    }
    std::vector<pollfd> pf;
    for (const Child& c : running) pf.push_back({c.fd, POLLIN, 0});
    if (poll(pf.data(), pf.size(), -1) < 0) continue;
    for (size_t i = 0; i < running.size();) {
      if (pf[i].revents & (POLLIN | POLLHUP | POLLERR)) {
        char b[65536];
        const ssize_t n = read(running[i].fd, b, sizeof b);
        if (n > 0) {
          running[i].buf.append(b, (size_t)n);
        } else {
          out[running[i].index] = reap(running[i]);
          running.erase(running.begin() + i);
          pf.erase(pf.begin() + i);
          continue;
        }
      }
      ++i;
    }
  }
  return out;
}

}  // namespace fm
