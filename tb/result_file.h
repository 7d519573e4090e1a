// Result files (JSON, CSV, waveforms, sweep and report files): written under a temporary
// name in the same directory and renamed into place once complete, so that a failed or
// interrupted run leaves no half-written result.
#pragma once
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "tb/util/subprocess.h"

namespace fm {

// A result that could not be written although the input was fine (disk full, the
// directory turned read-only, a rename refused). what() is "PATH: reason"; the CLI
// reports "faultmesh: cannot write PATH: reason" and exits 4 (docs/errors.md), apart
// from bad input (2) and a failed run (3).
struct WriteError : std::runtime_error {
  WriteError(const std::string& path, int err) : std::runtime_error(path + ": " + std::strerror(err)) {}
};

// The name a result for `path` is written under until it is complete: PATH.tmp.PID, or
// `path` itself when that exists and is not a regular file (/dev/null, /dev/stdout, a
// pipe): a rename over it would replace the device with a file (as root) or fail.
inline std::string result_temp_path(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return path;
  return path + ".tmp." + std::to_string(getpid());
}

// The temporary file of one result while it is written: its name (result_temp_path)
// and, unless the result is written in place, its registration for removal by a signal
// (TempFile), so an interrupted run leaves no PATH.tmp.PID behind.
class ResultTemp {
 public:
  explicit ResultTemp(const std::string& result)
      : path_(result_temp_path(result)), in_place_(path_ == result),
        reg_(in_place_ ? nullptr : std::make_unique<TempFile>(path_)) {}
  const std::string& path() const { return path_; }
  // A device or a pipe: written directly, never renamed or removed.
  bool in_place() const { return in_place_; }
  // Removes the temporary file (after a failure); nothing for a result written in place.
  void remove() const {
    if (!in_place_) std::remove(path_.c_str());
  }

 private:
  std::string path_;
  bool in_place_;
  std::unique_ptr<TempFile> reg_;
};

}  // namespace fm
