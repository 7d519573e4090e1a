// Child processes of other programs (the faultmesh binary itself for sweep points,
// sbatch/squeue/sacct for Slurm, gnuplot for plots): start with redirected output, wait,
// and tell "could not start" apart from "ran and failed".
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

namespace fm {

// Path of the running executable (/proc/self/exe resolved; argv[0] is not needed).
std::string self_exe();

// Starts argv[0] (PATH lookup when it has no '/') with stdin from /dev/null and stdout
// and stderr appended to the given files. Returns the child's pid. Throws
// std::runtime_error("cannot run '<prog>': <reason>") when it cannot be started (the
// exec error is passed back from the child through a close-on-exec pipe).
pid_t spawn_redirected(const std::vector<std::string>& argv, const std::string& out_file,
                       const std::string& err_file);

struct Captured {
  int exit_code = -1;  // exit status, or 128 + signal
  std::string out, err;
};
// Runs argv to completion capturing stdout and stderr. Throws std::runtime_error as
// spawn_redirected does when the program cannot be started.
Captured run_capture(const std::vector<std::string>& argv);

// Decodes a waitpid status: exit code, or 128 + signal number.
int exit_code_of(int wait_status);

}  // namespace fm
