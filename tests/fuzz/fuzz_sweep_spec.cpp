// fuzz_sweep_spec: the bytes as a sweep spec (parse_sweep_spec, the parser behind
// `faultmesh sweep SPEC`): INI parsing, axis expansion, and every point validated
// through its subcommand's own option parsing (route sets and collective schedules
// built for each distinct network). Invariant: a spec, or a UsageError with a message.
#include <cstdint>
#include <sstream>
#include <string>

#include "sim/cli.h"
#include "sim/sweep.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string((const char*)data, size));
  try {
    const fm::SweepSpec s = fm::parse_sweep_spec(in, "fuzz.ini");
    fm::spec_manifest(s);
    fm::fuzz::note(s.command + ": " + std::to_string(s.points.size()) + " points");
  } catch (const fm::ConfigError& e) {
    fm::fuzz::expect_message(e);
  }
  return 0;
}
