#include "models/noc/fault_set.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <queue>
#include <sstream>

namespace fm {

namespace {

std::string coord(int x, int y) { return "(" + std::to_string(x) + "," + std::to_string(y) + ")"; }

bool parse_port(const std::string& s, Port* p) {
  static const char* names[] = {"N", "E", "S", "W"};
  for (int i = 0; i < kNumNetPorts; ++i)
    if (s == names[i]) { *p = (Port)i; return true; }
  return false;
}

}  // namespace

bool parse_link_fault(const std::string& s, LinkFault* out) {
  const auto k = s.find(':');
  if (k == std::string::npos) return false;
  LinkFault l;
  if (!parse_coord(s.substr(0, k), &l.at)) return false;
  std::string rest = s.substr(k + 1);
  const auto k2 = rest.find(':');
  if (k2 != std::string::npos) {
    if (rest.substr(k2 + 1) != "oneway") return false;
    l.both = false;
    rest = rest.substr(0, k2);
  }
  if (!parse_port(rest, &l.dir)) return false;
  *out = l;
  return true;
}

std::string to_string(const LinkFault& l) {
  return std::to_string(l.at.x) + "," + std::to_string(l.at.y) + ":" + port_name(l.dir) +
         (l.both ? "" : ":oneway");
}

std::string place_error(const NetworkConfig& mesh, const FaultConfig& one) {
  NetworkConfig probe = mesh;
  probe.faults = one;
  probe.faults.timed.clear();
  try {
    const FaultSet check(probe);  // FaultSet's own rules for places
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    if (m.rfind("--fail-", 0) == 0) return m.substr(7);  // "chip 9,9: outside the mesh ..."
  }
  return "";
}

void read_fault_file(const std::string& path, FaultConfig* out, const NetworkConfig* mesh) {
  std::ifstream in;
  open_input_file(path, "--fault-file " + path, &in);
  read_faults(in, path, out, mesh);
}

void read_faults(std::istream& in, const std::string& path, FaultConfig* out, const NetworkConfig* mesh) {
  std::string line;
  for (int no = 1; std::getline(in, line); ++no) {
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    std::istringstream ls(line);
    std::string kind, arg, extra, more;
    if (!(ls >> kind)) continue;  // blank or comment
    auto bad = [&](const std::string& why) {
      return ConfigError("--fault-file " + path + " line " + std::to_string(no) + ": " + why +
                         " (expected 'chip x,y', 'board bx,by' or 'link x,y:D [oneway]')");
    };
    ls >> arg >> extra >> more;
    if (!more.empty()) throw bad("too many fields");
    Coord c;
    if (kind == "chip" || kind == "board") {
      if (!extra.empty() || !parse_coord(arg, &c)) throw bad("bad " + kind + " '" + arg + extra + "'");
      (kind == "chip" ? out->chips : out->boards).push_back(c);
    } else if (kind == "link") {
      LinkFault l;
      if (!parse_link_fault(arg + (extra == "oneway" ? ":oneway" : ""), &l) ||
          !(extra.empty() || extra == "oneway"))
        throw bad("bad link '" + arg + (extra.empty() ? "" : " " + extra) + "'");
      out->links.push_back(l);
    } else {
      throw bad("unknown fault kind '" + kind + "'");
    }
    if (mesh) {  // the line's place, checked against the mesh
      FaultConfig one;
      if (kind == "chip") one.chips.push_back(out->chips.back());
      else if (kind == "board") one.boards.push_back(out->boards.back());
      else one.links.push_back(out->links.back());
      const std::string e = place_error(*mesh, one);
      if (!e.empty()) throw ConfigError("--fault-file " + path + " line " + std::to_string(no) + ": " + e);
    }
  }
}

FaultSet::FaultSet(const NetworkConfig& n)
    : topo_(n), dead_chip_(topo_.chips(), 0), dead_link_((size_t)topo_.chips() * kNumNetPorts, 0) {
  const int W = topo_.width(), H = topo_.height();
  auto in_mesh = [&](const Coord& c) { return c.x >= 0 && c.y >= 0 && c.x < W && c.y < H; };
  for (const Coord& c : n.faults.chips) {
    if (!in_mesh(c))
      throw ConfigError("--fail-chip " + std::to_string(c.x) + "," + std::to_string(c.y) +
                        ": outside the mesh (x 0.." + std::to_string(W - 1) + ", y 0.." +
                        std::to_string(H - 1) + ")");
    dead_chip_[topo_.id(c.x, c.y)] = 1;
  }
  for (const Coord& b : n.faults.boards) {
    if (b.x < 0 || b.y < 0 || b.x >= topo_.boards_x() || b.y >= topo_.boards_y())
      throw ConfigError("--fail-board " + std::to_string(b.x) + "," + std::to_string(b.y) +
                        ": outside the board grid (bx 0.." + std::to_string(topo_.boards_x() - 1) +
                        ", by 0.." + std::to_string(topo_.boards_y() - 1) + " with --board " +
                        std::to_string(n.board_w) + "x" + std::to_string(n.board_h) + ")");
    for (int y = b.y * n.board_h; y < std::min(H, (b.y + 1) * n.board_h); ++y)
      for (int x = b.x * n.board_w; x < std::min(W, (b.x + 1) * n.board_w); ++x)
        dead_chip_[topo_.id(x, y)] = 1;
  }
  for (const LinkFault& l : n.faults.links) {
    if (!in_mesh(l.at))
      throw ConfigError("--fail-link " + to_string(l) + ": chip outside the mesh");
    const ChipId c = topo_.id(l.at.x, l.at.y);
    const long d = topo_.neighbour(c, l.dir);
    if (d < 0)
      throw ConfigError("--fail-link " + to_string(l) + ": there is no link " + port_name(l.dir) +
                        " of " + coord(l.at.x, l.at.y) + " (mesh edge)");
    dead_link_[c * kNumNetPorts + l.dir] = 1;
    if (l.both) dead_link_[d * kNumNetPorts + opposite(l.dir)] = 1;
  }
  empty_ = n.faults.empty();
  for (int c = 0; c < topo_.chips(); ++c) {
    live_ += !dead_chip_[c];
    for (int p = 0; p < kNumNetPorts; ++p) {
      const long d = topo_.neighbour(c, (Port)p);
      if (d < 0 || dead_chip_[c] || dead_chip_[d]) dead_link_[c * kNumNetPorts + p] = 1;
    }
  }
  if (live_ == 0) throw ConfigError("the fault set kills every chip of the mesh");
}

// Strongly connected components of the live graph (Kosaraju, iterative); the chips
// outside the largest component are the ones cut off.
std::string FaultSet::connectivity() const {
  const int n = topo_.chips();
  auto step = [&](int c, int p, bool forward) -> long {
    const long d = topo_.neighbour(c, (Port)p);
    if (d < 0) return -1;
    const bool live = forward ? !link_dead(c, (Port)p) : !link_dead((ChipId)d, opposite((Port)p));
    return live ? d : -1;
  };
  // Pass 1: finishing order of a forward DFS.
  std::vector<char> seen(n, 0);
  std::vector<int> order;
  for (int s = 0; s < n; ++s) {
    if (dead_chip_[s] || seen[s]) continue;
    std::vector<std::pair<int, int>> st{{s, 0}};
    seen[s] = 1;
    while (!st.empty()) {
      auto& [c, p] = st.back();
      if (p < kNumNetPorts) {
        const long d = step(c, p++, true);
        if (d >= 0 && !seen[d]) {
          seen[d] = 1;
          st.push_back({(int)d, 0});
        }
      } else {
        order.push_back(c);
        st.pop_back();
      }
    }
  }
  // Pass 2: backward DFS in reverse finishing order labels the components.
  std::vector<int> comp(n, -1), size;
  for (int i = (int)order.size() - 1; i >= 0; --i) {
    const int s = order[i];
    if (comp[s] >= 0) continue;
    const int id = (int)size.size();
    size.push_back(0);
    std::vector<int> st{s};
    comp[s] = id;
    while (!st.empty()) {
      const int c = st.back();
      st.pop_back();
      ++size[id];
      for (int p = 0; p < kNumNetPorts; ++p) {
        const long d = step(c, p, false);
        if (d >= 0 && comp[d] < 0) {
          comp[d] = id;
          st.push_back((int)d);
        }
      }
    }
  }
  if (size.size() <= 1) return "";
  const int main_comp = (int)(std::max_element(size.begin(), size.end()) - size.begin());
  std::ostringstream cut;
  int count = 0;
  for (int c = 0; c < n; ++c) {
    if (dead_chip_[c] || comp[c] == main_comp) continue;
    if (count++ < 16) cut << " " << coord(topo_.x(c), topo_.y(c));
  }
  std::ostringstream m;
  m << "the fault set partitions the mesh: " << count << " live chip(s) cannot reach, or cannot "
    << "be reached from, the other " << size[main_comp] << ":" << cut.str() << (count > 16 ? " ..." : "");
  return m.str();
}

std::vector<int> FaultSet::distances_to(ChipId d) const {
  std::vector<int> dist(topo_.chips(), -1);
  std::queue<int> q;
  q.push((int)d);
  dist[d] = 0;
  while (!q.empty()) {
    const int c = q.front();
    q.pop();
    for (int p = 0; p < kNumNetPorts; ++p) {
      const long u = topo_.neighbour(c, (Port)p);  // u -> c leaves u through opposite(p)
      if (u < 0 || dist[u] >= 0 || link_dead((ChipId)u, opposite((Port)p))) continue;
      dist[u] = dist[c] + 1;
      q.push((int)u);
    }
  }
  return dist;
}

std::string FaultSet::describe() const {
  std::ostringstream s;
  for (int c = 0; c < topo_.chips(); ++c)
    if (dead_chip_[c]) s << coord(topo_.x(c), topo_.y(c)) << " ";
  return s.str();
}

std::string parse_timed_fault(const std::string& s, TimedFault* out) {
  const size_t c1 = s.find(':');
  if (c1 == std::string::npos) return "expected WHEN:chip:x,y, WHEN:board:bx,by or WHEN:link:x,y:D[:oneway]";
  const std::string when = s.substr(0, c1), rest = s.substr(c1 + 1);
  TimedFault f;
  try {
    size_t pos = 0;
    if (!when.empty() && when[0] == '@') {
      const size_t plus = when.find('+');
      f.phase = phase_key(when.substr(1, plus == std::string::npos ? std::string::npos : plus - 1));
      if (f.phase.empty() || f.phase != when.substr(1, plus == std::string::npos ? std::string::npos : plus - 1))
        return "a phase trigger is @NAME[+CYCLES], NAME in lower case with '-' for spaces, "
               "e.g. @reduce-scatter-y or @all-gather-x+500";
      f.cycle = 0;
      if (plus != std::string::npos) {
        const std::string d = when.substr(plus + 1);
        const long long c = d.empty() || !std::isdigit((unsigned char)d[0]) ? -1 : std::stoll(d, &pos);
        if (c < 0 || pos != d.size()) return "the delay after @" + f.phase + "+ must be a whole number of cycles";
        f.cycle = (Cycle)c;
      }
    } else if (!when.empty() && when.back() == '%') {
      f.percent = std::stod(when.substr(0, when.size() - 1), &pos);
      if (pos != when.size() - 1 || !(f.percent >= 0 && f.percent < 100)) return "progress must be in [0, 100)%";
    } else {
      const long long c = std::stoll(when, &pos);
      if (pos != when.size() || c < 0)
        return "WHEN must be a cycle >= 0, a progress like 50% or a phase like @reduce-scatter-y";
      f.cycle = (Cycle)c;
    }
  } catch (...) {
    return "WHEN must be a cycle >= 0, a progress like 50% or a phase like @reduce-scatter-y";
  }
  const size_t c2 = rest.find(':');
  if (c2 == std::string::npos) return "expected a kind (chip, board, link) and its place after WHEN:";
  const std::string kind = rest.substr(0, c2), where = rest.substr(c2 + 1);
  if (kind == "chip" || kind == "board") {
    f.kind = kind == "chip" ? TimedFault::kChip : TimedFault::kBoard;
    if (!parse_coord(where, &f.at)) return kind + " needs x,y";
  } else if (kind == "link") {
    f.kind = TimedFault::kLink;
    if (!parse_link_fault(where, &f.link)) return "link needs x,y:D or x,y:D:oneway with D one of N, E, S, W";
  } else {
    return "kind '" + kind + "': allowed chip | board | link";
  }
  *out = f;
  return "";
}

std::string to_string(const TimedFault& f) {
  std::string when = std::to_string(f.cycle);
  if (f.by_phase()) when = "@" + f.phase + (f.cycle ? "+" + std::to_string(f.cycle) : "");
  if (f.percent >= 0) {
    // The shortest form that reads back as the same number: "%g" alone printed
    // 99.9999999% as "100%", which --fail-at refuses (found by fuzz_fault_schedule).
    char b[40];
    for (int digits : {6, 15, 17}) {
      std::snprintf(b, sizeof b, "%.*g", digits, f.percent);
      if (std::strtod(b, nullptr) == f.percent) break;
    }
    when = std::string(b) + "%";
  }
  switch (f.kind) {
    case TimedFault::kChip: return when + ":chip:" + std::to_string(f.at.x) + "," + std::to_string(f.at.y);
    case TimedFault::kBoard: return when + ":board:" + std::to_string(f.at.x) + "," + std::to_string(f.at.y);
    case TimedFault::kLink: return when + ":link:" + to_string(f.link);
  }
  return when;
}

std::string phase_key(const std::string& phase_name) {
  std::string k;
  for (char ch : phase_name) {
    if (ch == '(' || ch == ')') continue;
    if (ch == ' ' || ch == '_') ch = '-';
    if (ch == '-' && (k.empty() || k.back() == '-')) continue;
    k += (char)std::tolower((unsigned char)ch);
  }
  while (!k.empty() && k.back() == '-') k.pop_back();
  return k;
}

bool phase_matches(const std::string& key, const coll::Phase& phase) {
  const std::string p = phase_key(coll::phase_name(phase));
  return p.compare(0, key.size(), key) == 0 && (p.size() == key.size() || p[key.size()] == '-');
}

FaultConfig with_timed(const FaultConfig& f, const std::vector<size_t>& upto) {
  FaultConfig r = f;
  r.timed.clear();
  for (size_t i : upto) {
    const TimedFault& t = f.timed.at(i);
    if (t.kind == TimedFault::kChip) r.chips.push_back(t.at);
    else if (t.kind == TimedFault::kBoard) r.boards.push_back(t.at);
    else r.links.push_back(t.link);
  }
  return r;
}

}  // namespace fm
