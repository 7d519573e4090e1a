// fuzz_sweep_spec: the bytes as a sweep spec (parse_sweep_spec, the parser behind
// `faultmesh sweep SPEC`): INI parsing, axis expansion, and every point validated
// through its subcommand's own option parsing (route sets and collective schedules
// built for each distinct network). Invariant: a spec, or a UsageError with a message.
//
// Each input's work is bounded so that the 10 s timeout finds hangs, not big honest
// work: at most kMaxPoints points (the real limit is 10^6, each validated), and inputs
// naming a network of more than kMaxChips chips (any "WxH" in the text) are skipped:
// their route sets take seconds to minutes under the sanitizers (lash is O(chips^2)),
// and the parsing they share with small networks is fuzzed on small ones.
#include <cctype>
#include <cstdint>
#include <sstream>
#include <string>

#include "sim/io.h"
#include "sim/sweep.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

constexpr size_t kMaxPoints = 100;
constexpr double kMaxChips = 256;  // 16x16

// True when some "W x H" in the text (digits around an 'x', with the blanks and signs
// std::stoi accepts) multiplies to more than kMaxChips.
bool names_big_network(const std::string& s) {
  for (size_t k = 0; k < s.size(); ++k) {
    if (s[k] != 'x') continue;
    size_t a = k;
    while (a > 0 && std::isdigit((unsigned char)s[a - 1])) --a;
    size_t b = k + 1;
    while (b < s.size() && (std::isspace((unsigned char)s[b]) || s[b] == '+' || s[b] == '-')) ++b;
    const size_t b0 = b;
    while (b < s.size() && std::isdigit((unsigned char)s[b])) ++b;
    if (a == k || b == b0) continue;
    // Long digit strings overflow stoi (an error); count them as big all the same.
    if (k - a > 9 || b - b0 > 9) return true;
    if (std::stod(s.substr(a, k - a)) * std::stod(s.substr(b0, b - b0)) > kMaxChips) return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text((const char*)data, size);
  if (names_big_network(text)) return 0;
  std::istringstream in(text);
  try {
    const fm::SweepSpec s = fm::parse_sweep_spec(in, "fuzz.ini", kMaxPoints);
    fm::spec_manifest(s);
    fm::fuzz::note(s.command + ": " + std::to_string(s.points.size()) + " points");
  } catch (const fm::ConfigError& e) {
    fm::fuzz::expect_message(e);
  }
  return 0;
}
