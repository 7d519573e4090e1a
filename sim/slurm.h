// The Slurm client that `faultmesh sweep --backend slurm` and `faultmesh report paper
// --backend slurm` share: submit a job array whose tasks each run one simulation, know
// which of a directory's submitted jobs are still queued or running, and follow one to
// its end. Only the Slurm client commands (sbatch, squeue, sacct) are used, so any
// submit host of a cluster with a filesystem shared with its nodes will do.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "tb/util/subprocess.h"

namespace fm {

// What sbatch is told besides the array (the options of the same names).
struct SlurmOptions {
  std::string partition, account, time;
  std::vector<std::string> extra;  // --sbatch-arg, in order
  int throttle = 0;                // array throttle %N (0 = none)
  int cpus_per_task = 0;           // sbatch --cpus-per-task (0 = Slurm's default)
};

// "0-3,5,7-9": sorted ids as Slurm array ranges.
std::string slurm_array_ranges(const std::vector<int>& ids);

// A word quoted for /bin/sh.
std::string shell_quote(const std::string& s);
// `s` without leading and trailing blanks and line ends.
std::string trim_blank(std::string s);
// Multi-line tool output as one line, its non-empty lines joined with " | ".
std::string one_line(const std::string& text);

// Runs a Slurm client command; one that cannot be started is bad input (UsageError)
// naming it, so "Slurm not reachable" always says which command failed.
Captured slurm_cmd(const std::vector<std::string>& argv);

// Writes `dir`/job.sh (`#SBATCH` lines for `job_name`, task output in
// `dir`/%A_%a.out, then `body`, which runs task $SLURM_ARRAY_TASK_ID) and submits it as
// one array of `ids`. Appends the job id to `dir`/jobs and returns it. Throws
// UsageError when sbatch fails, with its message.
std::string slurm_submit_array(const std::string& dir, const std::string& job_name, const std::string& body,
                               const std::vector<int>& ids, const SlurmOptions& so);

// The job ids in `dir`/jobs that squeue still lists (queued or running). Empty when
// there is no such file or no squeue on this machine (nothing it could check).
std::vector<std::string> slurm_active_jobs(const std::string& dir);

// Follows `job` until `poll()` (how many of its tasks have written their result; the
// caller may report progress there) reaches `total` or squeue no longer lists it,
// polling every 2 s and once more after the job has left the queue. Throws UsageError
// after 10 failed squeue calls in a row.
void slurm_follow(const std::string& job, int total, const std::function<int()>& poll);

// The accounting state of one array task ("TIMEOUT", "CANCELLED by 0", ...) from
// sacct, or "" when sacct is missing or knows nothing: why a task left no result.
std::string slurm_task_state(const std::string& job, int id);

}  // namespace fm
