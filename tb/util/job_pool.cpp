#include "tb/util/job_pool.h"

#include <poll.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "tb/util/subprocess.h"

namespace fm {

namespace {

using Clock = std::chrono::steady_clock;

struct Running {
  size_t index;
  PoolChild child;
  std::string output;
  Clock::time_point t0;
};

// Raises the soft limit on open files to fit one pipe per child (sweep --jobs goes up
// to 4096; the usual soft limit is 1024), as far as the hard limit allows.
void make_room_for(int jobs) {
  struct rlimit r;
  if (getrlimit(RLIMIT_NOFILE, &r) != 0) return;
  const rlim_t want = (rlim_t)jobs + 64;
  if (r.rlim_cur != RLIM_INFINITY && r.rlim_cur < want) {
    r.rlim_cur = r.rlim_max == RLIM_INFINITY || r.rlim_max > want ? want : r.rlim_max;
    setrlimit(RLIMIT_NOFILE, &r);
  }
}

}  // namespace

void run_pool(size_t n, int jobs, const std::function<bool(size_t, PoolChild*)>& start,
              const std::function<void(size_t, const PoolResult&)>& done) {
  if (jobs < 1) jobs = 1;
  make_room_for(jobs);
  std::vector<Running> running;
  std::vector<pollfd> pf;
  size_t next = 0;
  while (next < n || !running.empty()) {
    while (next < n && (int)running.size() < jobs) {
      const size_t i = next++;
      PoolChild c;
      if (start(i, &c)) running.push_back({i, c, std::string(), Clock::now()});
    }
    if (running.empty()) continue;
    pf.clear();
    for (const Running& r : running) pf.push_back({r.child.fd, POLLIN, 0});
    if (poll(pf.data(), pf.size(), -1) < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    }
    for (size_t k = 0, i = 0; k < pf.size(); ++k) {
      Running& r = running[i];
      if (pf[k].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) {
        char b[65536];
        const ssize_t got = read(r.child.fd, b, sizeof b);
        if (got > 0 || (got < 0 && (errno == EINTR || errno == EAGAIN))) {
          if (got > 0) r.output.append(b, (size_t)got);
        } else {  // end of file (or a broken pipe): the child has ended
          close(r.child.fd);
          int st = 0;
          if (wait_child(r.child.pid, &st) < 0)
            throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
          PoolResult res;
          res.status = st;
          res.exit_code = exit_code_of(st);
          res.output = std::move(r.output);
          res.seconds = std::chrono::duration<double>(Clock::now() - r.t0).count();
          const size_t index = r.index;
          running.erase(running.begin() + (long)i);
          done(index, res);
          continue;
        }
      }
      ++i;
    }
  }
}

}  // namespace fm
