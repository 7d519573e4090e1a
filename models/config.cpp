#include "models/config.h"

#include <sys/stat.h>

#include <cmath>
#include <fstream>
#include <sstream>

namespace fm {

const char* const kPatternNames =
    "uniform|transpose|bitcomp|bitrev|shuffle|tornado|neighbour|hotspot";

const char* to_string(Topology t) { return t == Topology::Mesh ? "mesh" : "torus"; }
const char* to_string(Arbiter a) { return a == Arbiter::RoundRobin ? "rr" : "islip"; }
const char* to_string(Routing r) {
  switch (r) {
    case Routing::XY: return "xy";
    case Routing::YX: return "yx";
    case Routing::Lash: return "lash";
    case Routing::FRing: return "fring";
    case Routing::Auto: return "auto";
  }
  return "?";
}
const char* to_string(Pattern p) {
  switch (p) {
    case Pattern::Uniform: return "uniform";
    case Pattern::Transpose: return "transpose";
    case Pattern::BitComplement: return "bitcomp";
    case Pattern::BitReverse: return "bitrev";
    case Pattern::Shuffle: return "shuffle";
    case Pattern::Tornado: return "tornado";
    case Pattern::Neighbour: return "neighbour";
    case Pattern::Hotspot: return "hotspot";
  }
  return "?";
}

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

bool parse_topology(const std::string& s, Topology* out) {
  if (s == "mesh") *out = Topology::Mesh;
  else if (s == "torus") *out = Topology::Torus;
  else return false;
  return true;
}
bool parse_arbiter(const std::string& s, Arbiter* out) {
  if (s == "rr") *out = Arbiter::RoundRobin;
  else if (s == "islip") *out = Arbiter::ISlip;
  else return false;
  return true;
}
bool parse_routing(const std::string& s, Routing* out) {
  if (s == "xy" || s == "dor") *out = Routing::XY;
  else if (s == "yx") *out = Routing::YX;
  else if (s == "lash") *out = Routing::Lash;
  else if (s == "fring") *out = Routing::FRing;
  else if (s == "auto") *out = Routing::Auto;
  else return false;
  return true;
}
bool parse_pattern(const std::string& s, Pattern* out) {
  for (int i = 0; i <= (int)Pattern::Hotspot; ++i) {
    if (s == to_string((Pattern)i)) { *out = (Pattern)i; return true; }
  }
  if (s == "neighbor") { *out = Pattern::Neighbour; return true; }
  return false;
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
