#include "models/noc/network.h"

#include <sstream>

namespace fm {

namespace {
std::string name2(const char* what, int x, int y) {
  return std::string(what) + "_" + std::to_string(x) + "_" + std::to_string(y);
}
}  // namespace

Network::Network(sc_core::sc_module_name name, const NetworkConfig& cfg,
                 const RouterFactory& make_router)
    : sc_module(name), cfg_(cfg), topo_(cfg) {
  if (make_router && cfg.local_ports != 1)
    throw ConfigError("--local-ports " + std::to_string(cfg.local_ports) +
                      ": routers from a factory have one local port");
  clock_ = std::make_unique<Clock>("clock", sc_core::sc_time(cfg.cycle_ns(), sc_core::SC_NS));
  const int n = topo_.chips();
  routers_.reserve(n);
  ni_owned_.reserve(n);
  for (int c = 0; c < n; ++c) {
    const int x = topo_.x(c), y = topo_.y(c);
    const std::string rn = name2("router", x, y);
    if (make_router) {
      routers_.push_back(make_router(rn.c_str(), cfg, c, *clock_));
    } else {
      auto r = std::make_unique<Router>(rn.c_str(), cfg, c, *clock_);
      sc_routers_.push_back(r.get());
      routers_.push_back(std::move(r));
    }
    ni_owned_.push_back(
        std::make_unique<NetworkInterface>(name2("ni", x, y).c_str(), cfg, c, *clock_));
    nis_.push_back(ni_owned_.back().get());
  }
  net_links_.resize((size_t)n * kNumNetPorts);
  for (int c = 0; c < n; ++c) {
    for (int p = 0; p < kNumNetPorts; ++p) {
      const long d = topo_.neighbour(c, (Port)p);
      if (d < 0) continue;
      auto l = std::make_unique<Link>(
          (name2("link", topo_.x(c), topo_.y(c)) + "_" + port_name((Port)p)).c_str(),
          cfg.link_latency, cfg.credit_latency, cfg.vcs * cfg.buf);
      l->bind(routers_[c].get(), p, routers_[d].get(), opposite((Port)p));
      routers_[c]->connect_out((Port)p, l.get());
      routers_[d]->connect_in(opposite((Port)p), l.get());
      net_links_[c * kNumNetPorts + p] = std::move(l);
    }
  }
  // Router <-> NI channels, one pair per local lane: on-chip, 1 cycle for flits and credits.
  for (int c = 0; c < n; ++c) {
    const int x = topo_.x(c), y = topo_.y(c);
    std::vector<Link*> inj, ej;
    for (int lane = 0; lane < cfg.local_ports; ++lane) {
      const std::string sfx = lane ? "_" + std::to_string(lane) : "";
      const Port p = (Port)(kLocal + lane);
      auto i = std::make_unique<Link>((name2("inject", x, y) + sfx).c_str(), 1, 1, cfg.vcs * cfg.buf);
      auto e = std::make_unique<Link>((name2("eject", x, y) + sfx).c_str(), 1, 1, cfg.vcs * cfg.buf);
      i->bind(nis_[c], lane, routers_[c].get(), p);
      e->bind(routers_[c].get(), p, nis_[c], lane);
      routers_[c]->connect_in(p, i.get());
      routers_[c]->connect_out(p, e.get());
      inj.push_back(i.get());
      ej.push_back(e.get());
      local_links_.push_back(std::move(i));
      local_links_.push_back(std::move(e));
    }
    nis_[c]->connect(inj, ej, make_router ? nullptr : sc_routers_[c], &nis_);
  }
}

void Network::apply_faults(const FaultSet& f) {
  for (int c = 0; c < chips(); ++c)
    for (int p = 0; p < kNumNetPorts; ++p)
      if (Link* l = link(c, (Port)p); l && f.link_dead(c, (Port)p)) l->fail();
}

std::string Network::load_tables(const std::vector<RouteTable>& tables) {
  if ((int)tables.size() != chips()) return "route tables: expected one table per chip";
  for (int c = 0; c < chips(); ++c) {
    if (tables[c].size() != chips()) return "route tables: each table needs one entry per chip";
    std::string e = routers_[c]->load_table(tables[c]);
    if (!e.empty()) return e;
  }
  return "";
}

NetCounters Network::counters() const {
  NetCounters t;
  for (int c = 0; c < chips(); ++c) {
    const RouterBase& r = *routers_[c];
    const NetworkInterface& ni = *nis_[c];
    t.flits_injected += ni.stats().flits_injected;
    t.flits_ejected += ni.stats().flits_ejected;
    t.flits_switched += r.flits_switched();
    t.buffered_flits += r.buffered_flits();
    t.queued_packets += ni.queued_packets();
    t.violations += r.violations() + ni.violations();
    t.router_cycles_evaluated += r.cycles_evaluated();
  }
  return t;
}

uint64_t Network::kill_chip(ChipId c) {
  uint64_t lost = router(c).kill();
  nis_[c]->kill();
  const int L = cfg_.local_ports;
  for (int i = 0; i < 2 * L; ++i) {
    Link& l = *local_links_[(size_t)c * 2 * L + i];
    lost += l.flush();
  }
  for (int p = 0; p < kNumNetPorts; ++p) {
    fail_link(c, (Port)p);
    const long d = topo_.neighbour(c, (Port)p);
    if (d >= 0) fail_link((ChipId)d, opposite((Port)p));
  }
  return lost;
}

void Network::fail_link(ChipId c, Port p) {
  Link* l = link(c, p);
  if (!l || l->failed()) return;
  l->fail();
  router(c).output_failed(p);
}

uint64_t Network::flush_all() {
  uint64_t n = 0;
  for (int c = 0; c < chips(); ++c) n += router(c).dead() ? 0 : router(c).flush();
  for (auto& l : net_links_) if (l) n += l->flush();
  for (auto& l : local_links_) n += l->flush();
  for (NetworkInterface* ni : nis_) ni->flush();
  return n;
}

uint64_t Network::flits_in_flight() const {
  uint64_t n = 0;
  for (const auto& l : net_links_) if (l) n += l->in_flight();
  for (const auto& l : local_links_) n += l->in_flight();
  return n;
}

std::pair<uint64_t, uint64_t> Network::link_drops() const {
  std::pair<uint64_t, uint64_t> d{0, 0};
  for (const auto& l : net_links_) {
    if (!l) continue;
    d.first += l->dropped_dead_destination();
    d.second += l->dropped_flits();
  }
  return d;
}

void Network::set_dead_chips(const std::vector<char>* dead) {
  for (auto& l : net_links_) if (l) l->set_dead_chips(dead);
}

std::string Network::first_violation() const {
  for (int c = 0; c < chips(); ++c) {
    if (routers_[c]->violations()) return routers_[c]->first_violation();
    if (nis_[c]->violations()) return nis_[c]->first_violation();
  }
  return "";
}

std::string Network::describe_stuck(int max_lines) const {
  std::ostringstream s;
  int lines = 0;
  for (int c = 0; c < chips() && lines < max_lines; ++c) {
    const std::string d = routers_[c]->describe_stuck();
    if (d.empty()) continue;
    s << "chip (" << topo_.x(c) << "," << topo_.y(c) << "):\n" << d;
    for (char ch : d) lines += ch == '\n';
  }
  if (lines >= max_lines) s << "  ... (more routers hold flits)\n";
  return s.str();
}

}  // namespace fm
