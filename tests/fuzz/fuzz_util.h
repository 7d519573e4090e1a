// Shared by the fuzz targets (docs/fuzzing.md): what counts as a finding.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>

#include "models/config.h"

namespace fm::fuzz {

// Stops the run with a message: libFuzzer saves the input as crash-*.
[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz invariant violated: %s\n", what.c_str());
  std::abort();
}

// FAULTMESH_FUZZ_VERBOSE=1: print each input's outcome (to see what a corpus exercises).
inline bool verbose() {
  static const bool v = std::getenv("FAULTMESH_FUZZ_VERBOSE") != nullptr;
  return v;
}
inline void note(const std::string& what) {
  if (verbose()) std::fprintf(stderr, "fuzz: %s\n", what.c_str());
}

// An expected refusal: a ConfigError (= UsageError) whose message says something.
inline void expect_message(const ConfigError& e) {
  const std::string m = e.what();
  if (m.find_first_not_of(" \t\r\n") == std::string::npos) fail("a ConfigError with an empty message");
  note("refused: " + m);
}

}  // namespace fm::fuzz
