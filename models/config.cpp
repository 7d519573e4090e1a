#include "models/config.h"

#include <sys/stat.h>

#include <cmath>
#include <fstream>
#include <sstream>

namespace fm {

bool parse_coord(const std::string& s, Coord* c) {
  const auto k = s.find(',');
  if (k == std::string::npos) return false;
  try {
    size_t a, b;
    const std::string xs = s.substr(0, k), ys = s.substr(k + 1);
    c->x = std::stoi(xs, &a);
    c->y = std::stoi(ys, &b);
    return a == xs.size() && b == ys.size();
  } catch (...) {
    return false;
  }
}

void open_input_file(const std::string& path, const std::string& what, std::ifstream* in) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw ConfigError(what + ": is a directory, expected a file");
  in->open(path);
  if (!*in) throw ConfigError(what + ": cannot read the file");
}

const char* const kPacketAllowed = "allowed N or A-B with 1 <= A <= B <= 65535 flits";

bool packet_sizes_ok(int min_flits, int max_flits) {
  return min_flits >= 1 && max_flits >= min_flits && max_flits <= 65535;
}

bool verifies(const Config& c) {
  if (c.coll.verify != Verify::Auto) return c.coll.verify == Verify::On;
  const double words = std::ceil((double)c.coll.bytes / c.net.flit_bytes);
  return words * 8.0 * c.net.chips() <= (double)(1ULL << 30);
}

}  // namespace fm
