#include "sim/subprocess.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <stdexcept>

namespace fm {

namespace {

// fork + exec with the child's fds prepared by `setup`; exec failure comes back as errno.
template <class Setup>
pid_t start(const std::vector<std::string>& argv, Setup setup) {
  int ep[2];
  if (pipe2(ep, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::vector<char*> av;
  for (const std::string& a : argv) av.push_back(const_cast<char*>(a.c_str()));
  av.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(ep[0]);
    close(ep[1]);
    throw std::runtime_error("cannot run '" + argv[0] + "': fork: " + std::strerror(errno));
  }
  if (pid == 0) {
    close(ep[0]);
    int e = setup();
    if (e == 0) {
      execvp(av[0], av.data());
      e = errno;
    }
    (void)!write(ep[1], &e, sizeof e);
    _exit(127);
  }
  close(ep[1]);
  int e = 0;
  ssize_t n;
  while ((n = read(ep[0], &e, sizeof e)) < 0 && errno == EINTR) {}
  close(ep[0]);
  if (n == (ssize_t)sizeof e) {
    int st;
    waitpid(pid, &st, 0);
    std::string why = std::strerror(e);
    if (e == ENOENT && argv[0].find('/') == std::string::npos) why = "not found in PATH";
    throw std::runtime_error("cannot run '" + argv[0] + "': " + why);
  }
  return pid;
}

int open_append(const std::string& f) {
  return open(f.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

}  // namespace

std::string self_exe() {
  char b[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", b, sizeof b - 1);
  if (n <= 0) throw std::runtime_error("cannot resolve /proc/self/exe");
  return std::string(b, (size_t)n);
}

int exit_code_of(int st) {
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return -1;
}

pid_t spawn_redirected(const std::vector<std::string>& argv, const std::string& out_file,
                       const std::string& err_file) {
  return start(argv, [&]() -> int {
    const int in = open("/dev/null", O_RDONLY);
    const int o = open_append(out_file), e = open_append(err_file);
    if (in < 0 || o < 0 || e < 0) return errno;
    if (dup2(in, 0) < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0) return errno;
    return 0;
  });
}

Captured run_capture(const std::vector<std::string>& argv) {
  int op[2], epp[2];
  if (pipe2(op, O_CLOEXEC) != 0 || pipe2(epp, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  pid_t pid;
  try {
    pid = start(argv, [&]() -> int {
      const int in = open("/dev/null", O_RDONLY);
      if (in < 0 || dup2(in, 0) < 0 || dup2(op[1], 1) < 0 || dup2(epp[1], 2) < 0) return errno;
      return 0;
    });
  } catch (...) {
    for (int f : {op[0], op[1], epp[0], epp[1]}) close(f);
    throw;
  }
  close(op[1]);
  close(epp[1]);
  Captured c;
  // Both pipes are read in turn, non-blocking, so a child that fills one while we wait
  // on the other cannot stall.
  fcntl(op[0], F_SETFL, O_NONBLOCK);
  fcntl(epp[0], F_SETFL, O_NONBLOCK);
  bool open_o = true, open_e = true;
  char buf[4096];
  while (open_o || open_e) {
    bool progress = false;
    for (int k = 0; k < 2; ++k) {
      bool& is_open = k == 0 ? open_o : open_e;
      if (!is_open) continue;
      const ssize_t n = read(k == 0 ? op[0] : epp[0], buf, sizeof buf);
      if (n > 0) {
        (k == 0 ? c.out : c.err).append(buf, (size_t)n);
        progress = true;
      } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        is_open = false;
      }
    }
    if (!progress && (open_o || open_e)) usleep(2000);
  }
  close(op[0]);
  close(epp[0]);
  int st;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
  c.exit_code = exit_code_of(st);
  return c;
}

}  // namespace fm
