// The parsers for the small value forms the command line and the result files use:
// byte sizes, "WxH" extents and number ranges. One definition each, so that every
// option and every reader accepts the same text with the same meaning. Coordinates
// ("x,y") and link faults ("x,y:D") are parsed by models/config.h parse_coord and
// models/noc/fault_set.h parse_link_fault. No SystemC here: tb/ and the tests link it.
#pragma once
#include <cstdint>
#include <string>

namespace fm {

// Bytes: a number and an optional unit, "4096", "64MiB", "1.5KiB", "100MB", "1e6".
// Units B, KiB, MiB, GiB (powers of 2) and KB (or kB), MB, GB (powers of 10). A whole
// number with any unit is taken exactly up to 2^64 - 1; other numbers (decimals,
// exponents) up to 1e15 bytes. The result must be a whole number of bytes >= 1. False
// when malformed, zero, fractional or too large; callers check their own ranges.
bool parse_bytes(const std::string& s, uint64_t* out);

// "WxH" with W and H positive whole numbers that fit an int, nothing else (no signs,
// blanks or trailing text). False otherwise; *w and *h are left alone then.
bool parse_wxh(const std::string& s, int* w, int* h);

// "N" or "A-B" (whole numbers that fit an int; N and A may be negative: "-3", "-3-4").
// False when malformed or out of int range.
bool parse_int_range(const std::string& s, int* lo, int* hi);

// "A:B:STEP" with three decimal numbers (blanks allowed around each); false when the
// text is not of that shape or a number overflows a double. The caller checks the values.
bool parse_step_range(const std::string& s, double* a, double* b, double* step);

// The number scanning the parsers share. At s[*pos]: optional blanks, then a decimal
// integer (optional sign, digits) or, with `fraction`, a decimal number
// ([+-]digits[.digits][e[+-]digits], or .digits). On success returns true, sets *pos
// past it and *text to the number's characters (without the blanks).
bool scan_number(const std::string& s, size_t* pos, bool fraction, std::string* text);

}  // namespace fm
