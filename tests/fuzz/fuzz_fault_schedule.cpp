// fuzz_fault_schedule: the bytes as a fault file (read_faults, the parser behind
// --fault-file) and each line as a --fail-at value (parse_timed_fault) and a --fail-link
// value (parse_link_fault). What parses is then applied to a 8x8 mesh of 2x2 boards
// (FaultSet: range checks, connectivity) and printed back (to_string must parse again
// to the same fault: results files echo --fail-at that way to reproduce a run).
// Invariant: a parse, or an error with a message.
#include <cstdint>
#include <sstream>
#include <string>

#include "models/noc/fault_set.h"
#include "tests/fuzz/fuzz_util.h"

using namespace fm;

namespace {

bool same(const LinkFault& a, const LinkFault& b) { return a.at == b.at && a.dir == b.dir && a.both == b.both; }

void apply(const FaultConfig& faults) {
  NetworkConfig n;  // 8x8 mesh, 2x2 boards
  n.faults = faults;
  try {
    const FaultSet f(n);
    f.connectivity();
  } catch (const ConfigError& e) {
    fuzz::expect_message(e);
  }
}

void one_line(const std::string& s) {
  LinkFault l;
  if (parse_link_fault(s, &l)) {
    LinkFault back;
    if (!parse_link_fault(to_string(l), &back) || !same(l, back))
      fuzz::fail("parse_link_fault(to_string(l)) != l for '" + s + "'");
    FaultConfig c;
    c.links.push_back(l);
    apply(c);
  }
  TimedFault t;
  const std::string err = parse_timed_fault(s, &t);
  if (err.empty()) {
    TimedFault back;
    const std::string s2 = to_string(t);
    if (!parse_timed_fault(s2, &back).empty() || back.kind != t.kind || !(back.at == t.at) ||
        !same(back.link, t.link) || back.cycle != t.cycle || back.percent != t.percent)
      fuzz::fail("parse_timed_fault(to_string(t)) differs from t for '" + s + "' (printed '" + s2 + "')");
    FaultConfig c;
    c.timed.push_back(t);
    apply(with_timed(c, {0}));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text((const char*)data, size);
  FaultConfig faults;
  try {
    std::istringstream in(text);
    read_faults(in, "fuzz", &faults);
    apply(faults);
  } catch (const ConfigError& e) {
    fuzz::expect_message(e);
  }
  std::istringstream lines(text);
  std::string line;
  for (int i = 0; i < 64 && std::getline(lines, line); ++i) one_line(line);
  return 0;
}
