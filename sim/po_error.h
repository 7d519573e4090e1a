// What every command's option parsing shares on top of Boost.Program_options: the
// message of a Boost error, and the words of a command line that are no option.
#pragma once
#include <boost/program_options/errors.hpp>
#include <boost/program_options/parsers.hpp>
#include <string>
#include <vector>

namespace fm {

// Use it instead of e.what(), which loops forever when the user's text holds one of
// Boost's placeholders such as %value% (sim/options.cpp). Defined in sim/options.cpp.
std::string po_error_text(const boost::program_options::error& e);

// The arguments of a parsed command line: words that are neither an option nor an
// option's value. Boost keeps them as positional options, and store() drops them
// silently unless a positional description takes them, so `--bytes 64 KiB` ran with 64
// bytes. First, a word right after a bare option with an implicit value (--verify)
// becomes that option's value: Boost only takes --verify=off, so `--verify off` would
// otherwise leave "off" behind. Then the words are removed from `parsed` and returned in
// order; one beyond the first `takes` (the command's own: plot DIR, sweep SPEC) throws
// UsageError naming it, the option before it, and `usage` ("faultmesh plot DIR [options]").
// Call it between the parser's run() and store(). Defined in sim/options.cpp.
std::vector<std::string> take_arguments(boost::program_options::parsed_options* parsed, size_t takes,
                                        const std::string& usage);

}  // namespace fm
