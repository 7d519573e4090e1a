// The message of a Boost.Program_options error, for every command's option parsing.
#pragma once
#include <boost/program_options/errors.hpp>
#include <string>

namespace fm {

// Use it instead of e.what(), which loops forever when the user's text holds one of
// Boost's placeholders such as %value% (sim/options.cpp). Defined in sim/options.cpp.
std::string po_error_text(const boost::program_options::error& e);

}  // namespace fm
