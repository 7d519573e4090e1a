// Child processes of other programs (the faultmesh binary itself for sweep points,
// sbatch/squeue/sacct for Slurm, gnuplot for plots): start with redirected output, wait,
// and tell "could not start" apart from "ran and failed". And what a signal does to a
// process that has children or temporary files (docs/errors.md, "Signals").
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

namespace fm {

// Path of the running executable (/proc/self/exe resolved; argv[0] is not needed).
std::string self_exe();

// Starts argv[0] (PATH lookup when it has no '/') with stdin from /dev/null and stdout
// and stderr appended to the given files. Returns the child's pid (a tracked child, see
// below: reap it with wait_child). Throws std::runtime_error("cannot run '<prog>':
// <reason>") when it cannot be started (the exec error is passed back from the child
// through a close-on-exec pipe). With `done_fd`, also sets *done_fd to the read end of
// a pipe whose write end only the child holds (open across its exec): it reaches
// end-of-file when the child ends, which the job pool (tb/util/job_pool.h) waits for.
pid_t spawn_redirected(const std::vector<std::string>& argv, const std::string& out_file,
                       const std::string& err_file, int* done_fd = nullptr);

struct Captured {
  int exit_code = -1;  // exit status, or 128 + signal
  std::string out, err;
};
// Runs argv to completion capturing stdout and stderr. Throws std::runtime_error as
// spawn_redirected does when the program cannot be started.
Captured run_capture(const std::vector<std::string>& argv);

// Decodes a waitpid status: exit code, or 128 + signal number.
int exit_code_of(int wait_status);

// ---- Signals ----------------------------------------------------------------------
// One registry per process of the temporary files it is writing and of the children it
// has started, read by one handler for SIGINT, SIGTERM and SIGHUP. On such a signal the
// handler unlinks the temporary files, forwards the signal to the children, waits for
// them (SIGKILL after 10 s), then restores the default action and re-raises the signal:
// the process ends killed by it, so a shell reports 128 + N (130 for SIGINT, 143 for
// SIGTERM). Async-signal-safe: the registries are fixed tables of atomics, and the
// handler calls only unlink, kill, waitpid, nanosleep, sigaction, sigprocmask and raise.
// Entries are tagged with the registering process, so a forked child that inherits the
// tables (tb/isolated.h) neither unlinks its parent's files nor signals its siblings.

// Installs the handler (once; later calls do nothing). A signal ignored at start-up
// (e.g. SIGINT of a background job started by a non-interactive shell) stays ignored.
void install_signal_cleanup();

// A temporary file registered for removal on a signal while this object lives. Create
// the file after constructing it, rename or remove it before destroying it. A path too
// long for the table (over 4,095 bytes) is not registered.
class TempFile {
 public:
  explicit TempFile(std::string path);
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int slot_ = -1;
};

// "path.tmp.<pid>": the temporary name every writer uses for `path`.
std::string temp_name_for(const std::string& path);

// fork() with the child registered for signal forwarding before any signal can be
// handled in between (the handled signals are blocked across the fork). Returns what
// fork returns; -1 with errno on failure.
pid_t fork_tracked();

// waitpid for a tracked child (`pid`, or -1 for any child) that takes it out of the
// registry before reaping it, so a signal never goes to a reaped (and perhaps reused)
// pid. Retries on EINTR. Returns the pid reaped, or -1 with errno (ECHILD: none left).
pid_t wait_child(pid_t pid, int* status);

}  // namespace fm
