// The Slurm client shared by sweeps and the paper report (sim/slurm.h).
#include "sim/slurm.h"

#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "sim/io.h"
#include "sim/sweep.h"

namespace fm {

std::string slurm_array_ranges(const std::vector<int>& ids) {
  std::string s;
  for (size_t i = 0; i < ids.size();) {
    size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    s += (s.empty() ? "" : ",") + std::to_string(ids[i]) + (j > i ? "-" + std::to_string(ids[j]) : "");
    i = j + 1;
  }
  return s;
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string trim_blank(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  const auto a = s.find_first_not_of(" \n\r");
  return a == std::string::npos ? "" : s.substr(a);
}

std::string one_line(const std::string& text) {
  std::string s;
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l))
    if (!trim_blank(l).empty()) s += (s.empty() ? "" : " | ") + trim_blank(l);
  return s;
}

Captured slurm_cmd(const std::vector<std::string>& argv) {
  try {
    return run_capture(argv);
  } catch (const std::runtime_error& e) {
    throw UsageError("--backend slurm: " + std::string(e.what()) +
                     " (is Slurm installed and is this a submit host?)");
  }
}

std::string slurm_submit_array(const std::string& dir, const std::string& job_name, const std::string& body,
                               const std::vector<int>& ids, const SlurmOptions& so) {
  make_dirs(dir, "--out");
  const std::string script = dir + "/job.sh";
  std::ostringstream js;
  js << "#!/bin/sh\n"
     << "#SBATCH --job-name=" << job_name << "\n"
     << "#SBATCH --ntasks=1\n"
     << "#SBATCH --output=" << dir << "/%A_%a.out\n"
     << body;
  write_file_atomic(script, js.str());
  chmod(script.c_str(), 0755);
  std::vector<std::string> argv = {"sbatch", "--parsable",
                                   "--array=" + slurm_array_ranges(ids) +
                                       (so.throttle > 0 ? "%" + std::to_string(so.throttle) : "")};
  if (so.cpus_per_task > 0) argv.push_back("--cpus-per-task=" + std::to_string(so.cpus_per_task));
  if (!so.partition.empty()) argv.push_back("--partition=" + so.partition);
  if (!so.account.empty()) argv.push_back("--account=" + so.account);
  if (!so.time.empty()) argv.push_back("--time=" + so.time);
  argv.insert(argv.end(), so.extra.begin(), so.extra.end());
  argv.push_back(script);
  const Captured c = slurm_cmd(argv);
  std::string id = trim_blank(c.out);
  id = id.substr(0, id.find(';'));  // "id;cluster" on a federation
  if (c.exit_code != 0 || id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
    std::string cmd;
    for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
    throw UsageError("--backend slurm: '" + cmd + "' failed (exit " + std::to_string(c.exit_code) +
                     "): " + one_line(trim_blank(c.err).empty() ? c.out : c.err));
  }
  std::ofstream(dir + "/jobs", std::ios::app) << id << "\n";
  return id;
}

std::vector<std::string> slurm_active_jobs(const std::string& dir) {
  std::vector<std::string> act;
  std::ifstream in(dir + "/jobs");
  std::string id;
  while (in >> id) {
    Captured c;
    try {
      c = run_capture({"squeue", "-h", "-j", id, "-o", "%i"});
    } catch (const std::runtime_error&) {
      return {};  // no squeue here: nothing this machine could check
    }
    if (c.exit_code == 0 && !trim_blank(c.out).empty()) act.push_back(id);
  }
  return act;
}

void slurm_follow(const std::string& job, int total, const std::function<int()>& poll) {
  int squeue_failures = 0;
  for (;;) {
    if (poll() >= total) return;
    const Captured c = slurm_cmd({"squeue", "-h", "-j", job, "-o", "%i"});
    if (c.exit_code != 0) {
      if (c.err.find("Invalid job id") != std::string::npos) return;  // already purged
      if (++squeue_failures >= 10)
        throw UsageError("--backend slurm: 'squeue -h -j " + job + "' failed (exit " +
                         std::to_string(c.exit_code) + "): " + one_line(c.err));
    } else {
      squeue_failures = 0;
      if (trim_blank(c.out).empty()) {
        poll();  // the last results may have landed since the count
        return;
      }
    }
    std::this_thread::sleep_for(std::chrono::seconds(2));
  }
}

std::string slurm_task_state(const std::string& job, int id) {
  try {
    const Captured c = run_capture({"sacct", "-n", "-P", "-X", "-j", job + "_" + std::to_string(id), "-o", "State"});
    if (c.exit_code == 0) return one_line(c.out);
  } catch (const std::runtime_error&) {
  }
  return "";
}

}  // namespace fm
