#include "tb/util/parse.h"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>

namespace fm {

namespace {

bool is_blank(char c) { return std::isspace((unsigned char)c) != 0; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A whole int, the entire string (leading blanks allowed, as std::stoi allowed them).
bool whole_int(const std::string& s, int* v) {
  size_t pos = 0;
  std::string t;
  if (!scan_number(s, &pos, false, &t) || pos != s.size()) return false;
  errno = 0;
  const long long x = std::strtoll(t.c_str(), nullptr, 10);
  if (errno == ERANGE || x < INT_MIN || x > INT_MAX) return false;
  *v = (int)x;
  return true;
}

// The multiplier of a byte unit; 0 for an unknown unit.
uint64_t unit_bytes(const std::string& u) {
  if (u.empty() || u == "B") return 1;
  if (u == "KiB") return 1ULL << 10;
  if (u == "MiB") return 1ULL << 20;
  if (u == "GiB") return 1ULL << 30;
  if (u == "KB" || u == "kB") return 1000;
  if (u == "MB") return 1000000;
  if (u == "GB") return 1000000000;
  return 0;
}

}  // namespace

bool scan_number(const std::string& s, size_t* pos, bool fraction, std::string* text) {
  size_t i = *pos;
  while (i < s.size() && is_blank(s[i])) ++i;
  const size_t start = i;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  size_t digits = 0;
  while (i < s.size() && is_digit(s[i])) ++i, ++digits;
  if (fraction && i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (fraction && i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t k = i + 1;
    if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
    size_t ed = 0;
    while (k < s.size() && is_digit(s[k])) ++k, ++ed;
    if (ed == 0) return false;  // "1e" is no number (std::istream rejected it too)
    i = k;
  }
  *text = s.substr(start, i - start);
  *pos = i;
  return true;
}

bool parse_bytes(const std::string& s, uint64_t* out) {
  // The number is decimal digits with an optional fraction and exponent, then the unit:
  // no blank, sign or hexadecimal (as every other numeric option reads its value).
  size_t i = 0;
  uint64_t v = 0;
  bool overflow = false;
  for (; i < s.size() && is_digit(s[i]); ++i) {
    const uint64_t d = (uint64_t)(s[i] - '0');
    if (v > (UINT64_MAX - d) / 10) overflow = true;
    else v = v * 10 + d;
  }
  if (i > 0 && (i == s.size() || !(s[i] == '.' || s[i] == 'e' || s[i] == 'E'))) {
    // A whole number with a unit: exact integer arithmetic, overflow rejected.
    const uint64_t m = unit_bytes(s.substr(i));
    if (overflow || m == 0 || v == 0 || v > UINT64_MAX / m) return false;
    *out = v * m;
    return true;
  }
  // Decimals and exponents: bytes as a double, whole and at most 1e15 (where a double
  // still holds every whole number).
  if (s.empty() || !(is_digit(s[0]) || s[0] == '.')) return false;
  size_t pos = 0;
  std::string num;
  if (!scan_number(s, &pos, true, &num) || num.empty() || !(is_digit(num[0]) || num[0] == '.')) return false;
  const uint64_t m = unit_bytes(s.substr(pos));
  if (m == 0) return false;
  const double bytes = std::strtod(num.c_str(), nullptr) * (double)m;
  if (!(bytes >= 1) || bytes > 1e15 || bytes != std::floor(bytes)) return false;
  *out = (uint64_t)bytes;
  return true;
}

bool parse_wxh(const std::string& s, int* w, int* h) {
  const auto x = s.find('x');
  if (x == std::string::npos || x == 0 || x + 1 == s.size()) return false;
  long long v[2];
  const std::string part[2] = {s.substr(0, x), s.substr(x + 1)};
  for (int k = 0; k < 2; ++k) {
    v[k] = 0;
    for (char c : part[k]) {
      if (!is_digit(c)) return false;
      v[k] = v[k] * 10 + (c - '0');
      if (v[k] > INT_MAX) return false;
    }
    if (v[k] == 0) return false;
  }
  *w = (int)v[0];
  *h = (int)v[1];
  return true;
}

bool parse_int_range(const std::string& s, int* lo, int* hi) {
  const auto k = s.find('-', 1);
  int a, b;
  if (k == std::string::npos) {
    if (!whole_int(s, &a)) return false;
    *lo = *hi = a;
    return true;
  }
  if (!whole_int(s.substr(0, k), &a) || !whole_int(s.substr(k + 1), &b)) return false;
  *lo = a;
  *hi = b;
  return true;
}

bool parse_step_range(const std::string& s, double* a, double* b, double* step) {
  double v[3];
  size_t pos = 0;
  for (int k = 0; k < 3; ++k) {
    std::string t;
    if (!scan_number(s, &pos, true, &t)) return false;
    errno = 0;
    v[k] = std::strtod(t.c_str(), nullptr);
    if (errno == ERANGE && std::isinf(v[k])) return false;
    while (pos < s.size() && is_blank(s[pos])) ++pos;
    if (k < 2) {
      if (pos == s.size() || s[pos] != ':') return false;
      ++pos;
    }
  }
  if (pos != s.size()) return false;
  *a = v[0];
  *b = v[1];
  *step = v[2];
  return true;
}

}  // namespace fm
