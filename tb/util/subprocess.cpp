#include "tb/util/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <ctime>
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
  const pid_t pid = fork_tracked();
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
    wait_child(pid, &st);
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
                       const std::string& err_file, int* done_fd) {
  int dp[2] = {-1, -1};
  if (done_fd && pipe2(dp, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  pid_t pid;
  try {
    pid = start(argv, [&]() -> int {
      const int in = open("/dev/null", O_RDONLY);
      const int o = open_append(out_file), e = open_append(err_file);
      if (in < 0 || o < 0 || e < 0) return errno;
      if (dup2(in, 0) < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0) return errno;
      if (dp[1] >= 0 && fcntl(dp[1], F_SETFD, 0) != 0) return errno;  // kept across the exec
      return 0;
    });
  } catch (...) {
    if (done_fd) close(dp[0]), close(dp[1]);
    throw;
  }
  if (done_fd) {
    close(dp[1]);
    *done_fd = dp[0];
  }
  return pid;
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
  // Both pipes are waited on together with poll(2), so a child that fills one while we
  // read the other cannot stall, and nothing sleeps.
  bool open_o = true, open_e = true;
  char buf[4096];
  while (open_o || open_e) {
    pollfd pf[2] = {{open_o ? op[0] : -1, POLLIN, 0}, {open_e ? epp[0] : -1, POLLIN, 0}};
    if (poll(pf, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int k = 0; k < 2; ++k) {
      bool& is_open = k == 0 ? open_o : open_e;
      if (!is_open || !(pf[k].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL))) continue;
      const ssize_t n = read(pf[k].fd, buf, sizeof buf);
      if (n > 0) (k == 0 ? c.out : c.err).append(buf, (size_t)n);
      else if (n == 0 || errno != EINTR) is_open = false;
    }
  }
  close(op[0]);
  close(epp[0]);
  int st = 0;
  wait_child(pid, &st);
  c.exit_code = exit_code_of(st);
  return c;
}

// ---- Signals ----------------------------------------------------------------------

namespace {

const int kHandled[] = {SIGINT, SIGTERM, SIGHUP};
constexpr int kTempSlots = 64;      // temporary files open at once (a run has 1 or 2)
constexpr int kChildSlots = 4200;   // children at once: sweep --jobs <= 4096, a few tools
constexpr size_t kPathBytes = 4096;
constexpr pid_t kClaiming = -1;     // a slot being filled: the handler skips it
constexpr int kWaitSteps = 1000;    // the handler waits 1,000 x 10 ms for the children

// A slot belongs to the process whose pid is in `owner` (0: free). A slot owned by
// another pid was inherited through fork() and counts as free here.
struct TempSlot {
  std::atomic<pid_t> owner{0};
  char path[kPathBytes];
};
struct ChildSlot {
  std::atomic<pid_t> owner{0};
  std::atomic<pid_t> pid{0};
};
static_assert(std::atomic<pid_t>::is_always_lock_free, "the handler needs lock-free atomics");
TempSlot g_temp[kTempSlots];
ChildSlot g_child[kChildSlots];

template <class Slot, size_t N>
int claim(Slot (&slots)[N], pid_t self) {
  for (size_t i = 0; i < N; ++i) {
    pid_t o = slots[i].owner.load(std::memory_order_relaxed);
    if (o == self || o == kClaiming) continue;
    if (slots[i].owner.compare_exchange_strong(o, kClaiming, std::memory_order_acquire)) return (int)i;
  }
  return -1;
}

void track_child(pid_t pid) {
  const pid_t self = getpid();
  const int i = claim(g_child, self);
  if (i < 0) return;  // more children than slots: this one is not forwarded signals
  g_child[i].pid.store(pid, std::memory_order_relaxed);
  g_child[i].owner.store(self, std::memory_order_release);
}

void untrack_child(pid_t pid) {
  const pid_t self = getpid();
  for (ChildSlot& c : g_child)
    if (c.owner.load(std::memory_order_acquire) == self && c.pid.load(std::memory_order_relaxed) == pid)
      c.owner.store(0, std::memory_order_release);
}

void sleep_10ms() {
  struct timespec t = {0, 10 * 1000 * 1000};
  while (nanosleep(&t, &t) != 0 && errno == EINTR) {}
}

// The handler: temporary files, then children (forward, wait, SIGKILL the slow ones),
// then the default action. Only async-signal-safe calls.
void on_signal(int sig) {
  const pid_t self = getpid();
  for (TempSlot& t : g_temp)
    if (t.owner.load(std::memory_order_acquire) == self) unlink(t.path);
  for (ChildSlot& c : g_child)
    if (c.owner.load(std::memory_order_acquire) == self) kill(c.pid.load(std::memory_order_relaxed), sig);
  for (int step = 0;; ++step) {
    bool left = false;
    for (ChildSlot& c : g_child) {
      if (c.owner.load(std::memory_order_acquire) != self) continue;
      const pid_t p = c.pid.load(std::memory_order_relaxed);
      if (step == kWaitSteps) kill(p, SIGKILL);
      int st;
      pid_t r;
      while ((r = waitpid(p, &st, step < kWaitSteps ? WNOHANG : 0)) < 0 && errno == EINTR) {}
      if (r == 0) {
        left = true;
      } else {
        c.owner.store(0, std::memory_order_release);  // reaped, or not a child any more
      }
    }
    if (!left || step == kWaitSteps) break;
    sleep_10ms();
  }
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, sig);
  sigprocmask(SIG_UNBLOCK, &s, nullptr);
  raise(sig);
  _exit(128 + sig);  // not reached: the default action of these signals ends the process
}

sigset_t handled_set() {
  sigset_t s;
  sigemptyset(&s);
  for (int sig : kHandled) sigaddset(&s, sig);
  return s;
}

}  // namespace

void install_signal_cleanup() {
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return;
  struct sigaction sa = {};
  sa.sa_handler = on_signal;
  sa.sa_mask = handled_set();  // one cleanup at a time: the others wait, then find us gone
  for (int sig : kHandled) {
    struct sigaction old = {};
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    sigaction(sig, &sa, nullptr);
  }
}

TempFile::TempFile(std::string path) : path_(std::move(path)) {
  if (path_.size() >= kPathBytes) return;
  const pid_t self = getpid();
  slot_ = claim(g_temp, self);
  if (slot_ < 0) return;
  std::memcpy(g_temp[slot_].path, path_.c_str(), path_.size() + 1);
  g_temp[slot_].owner.store(self, std::memory_order_release);
}

TempFile::~TempFile() {
  if (slot_ >= 0) g_temp[slot_].owner.store(0, std::memory_order_release);
}

std::string temp_name_for(const std::string& path) { return path + ".tmp." + std::to_string(getpid()); }

pid_t fork_tracked() {
  const sigset_t block = handled_set();
  sigset_t old;
  sigprocmask(SIG_BLOCK, &block, &old);
  const pid_t pid = fork();
  const int e = errno;
  if (pid > 0) track_child(pid);
  sigprocmask(SIG_SETMASK, &old, nullptr);
  errno = e;
  return pid;
}

pid_t wait_child(pid_t pid, int* status) {
  for (;;) {
    // Learn who ended without reaping it (the pid stays taken while it is a zombie),
    // forget it, then reap it.
    siginfo_t si = {};
    if (waitid(pid > 0 ? P_PID : P_ALL, pid > 0 ? (id_t)pid : 0, &si, WEXITED | WNOWAIT) != 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    untrack_child(si.si_pid);
    int st = 0;
    pid_t r;
    while ((r = waitpid(si.si_pid, &st, 0)) < 0 && errno == EINTR) {}
    if (r < 0) return -1;
    if (status) *status = st;
    return r;
  }
}

}  // namespace fm
