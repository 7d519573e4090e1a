#include "tb/view_data.h"

#include <algorithm>
#include <map>

#include "models/noc/fault_set.h"
#include "models/noc/link.h"
#include "tb/result_keys.h"

namespace fm {

namespace {

// At most this many link-window counts are kept (about 0.8 MB of JSON); a machine with
// many links keeps fewer, longer windows, never fewer than 16.
constexpr size_t kMaxCounts = 65536;
constexpr size_t kMinWindows = 16;

}  // namespace

LinkWindows::LinkWindows(Network& net) {
  const Topology2D& t = net.topology();
  for (ChipId c = 0; c < (ChipId)t.chips(); ++c)
    for (int p = 0; p < kNumNetPorts; ++p)
      if (net.link(c, (Port)p)) links_.push_back({c, (Port)p});
  last_.assign(links_.size(), 0);
  cap_ = std::max(kMinWindows, kMaxCounts / std::max<size_t>(1, links_.size()));
}

void LinkWindows::sample(Network& net, Cycle now) {
  const Cycle from = to_.empty() ? 0 : to_.back();
  if (now <= from) return;
  std::vector<uint64_t> w(links_.size());
  for (size_t i = 0; i < links_.size(); ++i) {
    const uint64_t s = net.link(links_[i].first, links_[i].second)->flits_sent();
    w[i] = s - last_[i];
    last_[i] = s;
  }
  from_.push_back(from);
  to_.push_back(now);
  flits_.push_back(std::move(w));
  if (to_.size() <= cap_) return;
  // Over the cap: merge windows 2k and 2k+1 (an odd last one stays as it is).
  size_t k = 0;
  for (size_t i = 0; i < to_.size(); i += 2, ++k) {
    from_[k] = from_[i];
    to_[k] = to_[i];
    if (k != i) flits_[k] = std::move(flits_[i]);  // a vector moved onto itself is emptied
    if (i + 1 < to_.size()) {
      to_[k] = to_[i + 1];
      for (size_t l = 0; l < links_.size(); ++l) flits_[k][l] += flits_[i + 1][l];
    }
  }
  from_.resize(k);
  to_.resize(k);
  flits_.resize(k);
}

nlohmann::ordered_json LinkWindows::json(const Topology2D& t) const {
  nlohmann::ordered_json links = nlohmann::ordered_json::array();
  for (const auto& [c, p] : links_) links.push_back({{"x", t.x(c)}, {"y", t.y(c)}, {"port", port_name(p)}});
  nlohmann::ordered_json ws = nlohmann::ordered_json::array();
  for (size_t i = 0; i < to_.size(); ++i)
    ws.push_back({{"from", from_[i]}, {"to", to_[i]}, {"flits", flits_[i]}});
  return {{"links", links}, {"windows", ws}};
}

void add_dead_elements(const NetworkConfig& n, const std::vector<size_t>& applied,
                       const std::vector<Cycle>& cycles, nlohmann::ordered_json* j) {
  const Topology2D t(n);
  const int chips = t.chips();
  std::vector<Cycle> chip_at(chips, kNever), link_at((size_t)chips * kNumNetPorts, kNever);
  std::vector<const char*> cause((size_t)chips * kNumNetPorts, "link");
  // The fault set before the run (k = 0) and after each failure during it.
  for (size_t k = 0; k <= applied.size(); ++k) {
    NetworkConfig nk = n;
    nk.faults = with_timed(n.faults, std::vector<size_t>(applied.begin(), applied.begin() + k));
    const FaultSet f(nk);
    const Cycle at = k == 0 ? 0 : cycles[k - 1];
    for (ChipId c = 0; c < (ChipId)chips; ++c) {
      if (f.chip_dead(c) && chip_at[c] == kNever) chip_at[c] = at;
      for (int p = 0; p < kNumNetPorts; ++p) {
        const long nb = t.neighbour(c, (Port)p);
        const size_t li = (size_t)c * kNumNetPorts + p;
        if (nb < 0 || !f.link_dead(c, (Port)p) || link_at[li] != kNever) continue;
        link_at[li] = at;
        if (f.chip_dead(c) || f.chip_dead((ChipId)nb)) cause[li] = "chip";
      }
    }
  }
  nlohmann::ordered_json dc = nlohmann::ordered_json::array(), dl = nlohmann::ordered_json::array();
  for (ChipId c = 0; c < (ChipId)chips; ++c) {
    if (chip_at[c] != kNever) dc.push_back({{"x", t.x(c)}, {"y", t.y(c)}, {"cycle", chip_at[c]}});
    for (int p = 0; p < kNumNetPorts; ++p) {
      const size_t li = (size_t)c * kNumNetPorts + p;
      if (link_at[li] != kNever)
        dl.push_back({{"x", t.x(c)}, {"y", t.y(c)}, {"port", port_name((Port)p)}, {"cycle", link_at[li]},
                      {"cause", cause[li]}});
    }
  }
  // Boards failed as boards (a board whose chips all failed one by one is not listed).
  std::vector<std::pair<Coord, Cycle>> boards;
  for (const Coord& b : n.faults.boards) boards.push_back({b, 0});
  for (size_t k = 0; k < applied.size(); ++k) {
    const TimedFault& tf = n.faults.timed[applied[k]];
    if (tf.kind == TimedFault::kBoard) boards.push_back({tf.at, cycles[k]});
  }
  nlohmann::ordered_json db = nlohmann::ordered_json::array();
  for (const auto& [b, at] : boards) {
    const int x0 = b.x * n.board_w, y0 = b.y * n.board_h;
    db.push_back({{"bx", b.x}, {"by", b.y}, {"x0", x0}, {"y0", y0}, {"w", std::min(n.board_w, n.width - x0)},
                  {"h", std::min(n.board_h, n.height - y0)}, {"cycle", at}});
  }
  (*j)[result_key::kDeadChips] = dc;
  (*j)[result_key::kDeadBoards] = db;
  (*j)[result_key::kDeadLinks] = dl;
}

nlohmann::ordered_json chip_roles_json(const coll::Schedule& s, const Topology2D& t,
                                       const std::vector<char>& dead, Cycle from_cycle,
                                       const std::string& algo) {
  const int chips = t.chips();
  const size_t np = s.phases.size();
  // Per chip and phase: bit 0 sends, 1 receives, 2 a partner off its row, 3 a partner
  // off its column.
  std::vector<uint8_t> use((size_t)chips * np, 0);
  for (const coll::Xfer& x : s.xfers) {
    const bool same_row = t.y(x.src) == t.y(x.dst), same_col = t.x(x.src) == t.x(x.dst);
    const uint8_t off = (same_row ? 0 : 4) | (same_col ? 0 : 8);
    use[(size_t)x.src * np + x.phase] |= 1 | off;
    use[(size_t)x.dst * np + x.phase] |= 2 | off;
  }
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (ChipId c = 0; c < (ChipId)chips; ++c) {
    std::vector<std::string> tags;
    auto tag = [&](const std::string& v) {
      if (std::find(tags.begin(), tags.end(), v) == tags.end()) tags.push_back(v);
    };
    if (dead[c]) tag("dead");
    else if (c >= (ChipId)s.participant.size() || !s.participant[c]) tag("idle");
    else {
      bool fold_send = false, fold_recv = false;
      for (size_t p = 0; p < np; ++p) {
        const uint8_t u = use[(size_t)c * np + p];
        if (!u) continue;
        if (s.phases[p].step == coll::Step::Fold) {
          fold_send |= (u & 1) != 0;
          fold_recv |= (u & 2) != 0;
          continue;
        }
        if (s.phases[p].step == coll::Step::Unfold) continue;  // it mirrors the fold
        tag(!(u & 4) ? "row ring" : !(u & 8) ? "column ring" : "ring");
      }
      if (fold_send) tag("leaf");
      else if (fold_recv) tag("parent");
      if (tags.empty()) tag("participant");
    }
    std::string role;
    for (const std::string& v : tags) role += (role.empty() ? "" : ", ") + v;
    out.push_back({{"x", t.x(c)}, {"y", t.y(c)}, {"role", role}});
  }
  return {{"from_cycle", from_cycle}, {"algo", algo}, {"phases", phase_names(s)}, {"chips", out}};
}

}  // namespace fm
