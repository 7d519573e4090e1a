// What every command and the paper report share: exit codes, the usage error, the
// output files a run writes, atomic writes and the checks of output paths, and how many
// threads a child simulation gets.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "models/config.h"
#include "tb/result_file.h"

namespace fm {

// Exit codes of every subcommand.
// kExitWriteFailed: a result could not be written (WriteError, tb/result_file.h).
// kExitIncomplete: `report paper` wrote its page, but some of its runs are pending (not
// in the run store yet: --render-only, or not run within --budget).
enum ExitCode {
  kExitOk = 0,
  kExitInternal = 1,
  kExitBadInput = 2,
  kExitRunFailed = 3,
  kExitWriteFailed = 4,
  kExitIncomplete = 5
};

// Thrown for bad input; the message is one line naming the option and allowed values.
using UsageError = ConfigError;

struct Outputs {
  std::string json, csv;  // result files ("" = none)
  std::string html;       // the run's page (allreduce, traffic --html; sim/view.h)
  bool quiet = false;     // no human summary
};

// Worker threads for each of `jobs` simulations run at once as child processes (sweep
// points, the report's runs): the cores this process may use, shared among them, at
// least 1. A child left at `--threads auto` would take every core, and `jobs` of them
// would put jobs x cores threads on the machine, whose barriers then wait on
// descheduled threads (docs/performance.md, "When it runs in parallel").
int threads_per_child(int jobs);

// mkdir -p, then checks the directory is writable; throws UsageError naming `option`.
void make_dirs(const std::string& path, const char* option);

// Writes `text` to `path` atomically (temporary file + rename, result_temp_path); throws
// WriteError when it cannot, with the temporary file removed.
void write_file_atomic(const std::string& path, const std::string& text);
// Throws UsageError unless a file can be created at `path` (checked before a run):
// check_path_value, then not a directory, and its directory exists and is writable.
void check_writable(const std::string& path, const char* option);
// Whether two paths name one file: the same device and inode when both exist, else the
// same canonical directory and name (a result file not written yet).
bool same_file(const std::string& a, const std::string& b);
// The value of an output path option (`what`: "a file path", "a directory"): throws
// UsageError for an empty value and for one that starts with '-'. Boost takes the word
// after an option as its value whatever it is, so `--json --quiet` wrote a file named
// --quiet (and dropped -q); a file of such a name can still be given as ./-name.
void check_path_value(const std::string& path, const char* option, const char* what);

}  // namespace fm
