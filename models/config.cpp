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

namespace {
bool pow2(int n) { return n > 0 && (n & (n - 1)) == 0; }
}  // namespace

std::string validate(const Config& c) {
  std::ostringstream e;
  const NetworkConfig& n = c.net;
  const TrafficConfig& t = c.traffic;
  const int kMaxDim = 4096;
  if (n.width < 2 || n.height < 2 || n.width > kMaxDim || n.height > kMaxDim)
    e << "--mesh " << n.width << "x" << n.height << ": each dimension must be 2.." << kMaxDim;
  else if ((long)n.width * n.height > 16384)
    e << "--mesh " << n.width << "x" << n.height << ": at most 16384 chips are supported (route tables grow with chips squared)";
  else if (n.board_w < 1 || n.board_h < 1 || n.board_w > n.width || n.board_h > n.height)
    e << "--board " << n.board_w << "x" << n.board_h
      << ": board dimensions must be >= 1 and fit in the mesh (" << n.width << "x" << n.height << ")";
  else if (n.vcs < 1 || n.vcs > kMaxVcs)
    e << "--vcs " << n.vcs << ": allowed 1.." << kMaxVcs;
  else if (n.torus() && n.vcs < 2)
    e << "--vcs " << n.vcs << ": a torus needs at least 2 VCs (dateline classes); allowed 2.." << kMaxVcs;
  else if (n.local_ports < 1 || n.local_ports > kMaxLocalPorts)
    e << "--local-ports " << n.local_ports << ": allowed 1.." << kMaxLocalPorts;
  else if (n.buf < 1 || n.buf > kMaxBuf)
    e << "--buf " << n.buf << ": allowed 1.." << kMaxBuf;
  else if (n.pipeline < 1 || n.pipeline > 4)
    e << "--pipeline " << n.pipeline << ": allowed 1..4";
  else if (n.link_latency < 1 || n.link_latency > 1000)
    e << "--link-latency " << n.link_latency << ": allowed 1..1000 cycles";
  else if (n.credit_latency < 1 || n.credit_latency > 1000)
    e << "--credit-latency " << n.credit_latency << ": allowed 1..1000 cycles";
  else if (n.flit_bytes < 1 || n.flit_bytes > 4096)
    e << "--flit-bytes " << n.flit_bytes << ": allowed 1..4096";
  else if (!(n.link_gbps > 0) || n.link_gbps > 1e6)
    e << "--link-bw " << n.link_gbps << ": allowed (0, 1e6] GB/s";
  else if (!(t.rate >= 0.0 && t.rate <= 1.0))
    e << "--rate " << t.rate << ": allowed 0..1 flits/node/cycle";
  else if (!packet_sizes_ok(t.packet_min, t.packet_max))
    e << "--packet " << t.packet_min << "-" << t.packet_max << ": " << kPacketAllowed;
  else if (!(t.hotspot_fraction >= 0.0 && t.hotspot_fraction <= 1.0))
    e << "--hotspot-fraction " << t.hotspot_fraction << ": allowed 0..1";
  else if (t.pattern == Pattern::Hotspot && t.hotspots.empty())
    e << "--pattern hotspot needs at least one --hotspot x,y";
  else if (t.pattern == Pattern::Transpose && n.width != n.height)
    e << "--pattern transpose needs a square mesh, got " << n.width << "x" << n.height;
  else if ((t.pattern == Pattern::BitReverse || t.pattern == Pattern::Shuffle) && !pow2(n.chips()))
    e << "--pattern " << to_string(t.pattern) << " needs a power-of-two chip count, got "
      << n.chips();
  else if (c.run.cycles < 1)
    e << "--cycles 0: the measurement window must be at least 1 cycle";
  else if (c.run.watchdog < 1)
    e << "--watchdog 0: allowed >= 1 cycle";
  else {
    for (const Coord& h : t.hotspots)
      if (h.x < 0 || h.y < 0 || h.x >= n.width || h.y >= n.height) {
        e << "--hotspot " << h.x << "," << h.y << ": outside the mesh (x 0.." << n.width - 1
          << ", y 0.." << n.height - 1 << ")";
        break;
      }
    for (const Coord& h : t.sources)
      if (e.tellp() == 0 && (h.x < 0 || h.y < 0 || h.x >= n.width || h.y >= n.height)) {
        e << "--source " << h.x << "," << h.y << ": outside the mesh (x 0.." << n.width - 1
          << ", y 0.." << n.height - 1 << ")";
      }
  }
  return e.str();
}

bool verifies(const Config& c) {
  if (c.coll.verify != Verify::Auto) return c.coll.verify == Verify::On;
  const double words = std::ceil((double)c.coll.bytes / c.net.flit_bytes);
  return words * 8.0 * c.net.chips() <= (double)(1ULL << 30);
}

}  // namespace fm
