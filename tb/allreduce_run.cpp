#include "tb/allreduce_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <sstream>
#include <tlm_utils/simple_initiator_socket.h>

#include "models/chip/chip.h"
#include "models/collective/algorithms.h"
#include "models/fault/fault_controller.h"
#include "models/noc/network.h"
#include "tb/driver.h"
#include "tb/memory.h"
#include "tb/tracer.h"
#include "tb/view_data.h"

namespace fm {

namespace {

using Clk = std::chrono::steady_clock;
double since(Clk::time_point t) { return std::chrono::duration<double>(Clk::now() - t).count(); }


// The descriptor every chip gets: the whole live set, the buffer at HBM address 0.
Descriptor descriptor_of(const Config& c, const FaultSet& f) {
  Descriptor d;
  d.op = 1;
  d.dtype = c.coll.dtype == DType::Bf16 ? 1 : 0;
  d.algo = (uint32_t)c.coll.algo;
  d.order = (uint32_t)c.coll.order;
  d.buf = 0;
  d.size = c.coll.bytes;
  d.chunk = (uint32_t)c.coll.chunk_bytes;
  d.slices = c.coll.slices;
  d.line = (uint32_t)c.coll.line;
  d.participants.assign(((size_t)c.net.chips() + 31) / 32, 0);
  for (int i = 0; i < c.net.chips(); ++i)
    if (!f.chip_dead(i)) d.participants[i / 32] |= 1u << (i % 32);
  return d;
}

// The host (the runtime): after the compute phase it writes the descriptor into every
// live chip's registers through TLM-2.0 and starts them; it then watches for completion.
// As the fault controller's RecoveryHost it aborts the collective on every live chip and
// restarts it on the live set after a reconfiguration (docs/faults.md).
class Host : public sc_core::sc_module, public RecoveryHost {
 public:
  sc_core::sc_vector<tlm_utils::simple_initiator_socket<Host>> sock;

  // chips: by chip id, nullptr for chips dead before the run.
  Host(sc_core::sc_module_name name, const Config& cfg, std::vector<Chip*> chips,
       CollectiveLibrary& lib, Network& net, sc_core::sc_time compute)
      : sc_module(name), sock("sock", std::count_if(chips.begin(), chips.end(), [](Chip* c) { return c; })),
        cfg_(cfg), chips_(std::move(chips)), lib_(lib), net_(net), compute_(compute),
        faults_(std::make_shared<FaultSet>(cfg.net)), sock_of_(chips_.size(), -1) {
    int k = 0;
    for (size_t i = 0; i < chips_.size(); ++i)
      if (chips_[i]) {
        sock_of_[i] = k;
        sock[k++].bind(chips_[i]->ctrl);
      }
    SC_THREAD(run);
  }
  SC_HAS_PROCESS(Host);
  bool finished() const { return finished_; }
  const std::string& error() const { return error_; }
  sc_core::sc_time started_at() const { return started_; }
  sc_core::sc_time gave_up_at() const { return gave_up_at_; }
  std::shared_ptr<CollectiveRun> current() const { return run_; }
  const FaultSet& faults() const { return *faults_; }

  // RecoveryHost.
  bool collective_running() const override { return run_ && !finished_ && !aborted_; }
  double progress() const override {
    return run_ && run_->total_words ? (double)run_->applied_words() / run_->total_words : 0.0;
  }
  Cycle phase_started(const std::string& key) const override {
    Cycle first = kNever;
    if (!run_) return first;
    const std::vector<std::string>& names = run_->schedule().phase_names;
    for (size_t p = 0; p < names.size(); ++p)
      if (phase_matches(key, names[p])) first = std::min(first, run_->phase_start(p));
    return first;
  }
  bool touched_by(const FaultSet& f) const override {
    const coll::Schedule& s = run_->schedule();
    for (size_t c = 0; c < s.participant.size(); ++c)
      if (s.participant[c] && f.chip_dead((ChipId)c)) return true;
    // A transfer routed over a dead link (walk the tables the routers hold now).
    std::vector<std::pair<ChipId, ChipId>> pairs;
    for (const coll::Xfer& x : s.xfers) pairs.push_back({x.src, x.dst});
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    const Topology2D& t = f.topology();
    for (const auto& [a, b] : pairs) {
      ChipId c = a;
      for (int hop = 0; c != b && hop <= t.chips(); ++hop) {
        const uint8_t p = net_.router(c).route_port(b);
        if (p >= kNumNetPorts || f.link_dead(c, (Port)p)) return true;
        c = (ChipId)t.neighbour(c, (Port)p);
      }
    }
    return false;
  }
  void abort_all() override {
    aborted_ = true;
    if (run_) run_->aborted = true;
    for (size_t c = 0; c < chips_.size(); ++c)
      if (chips_[c] && !faults_->chip_dead((ChipId)c) && !chips_[c]->engine().completed()) write(c, regs::kCtrl, 2);
  }
  void restart(std::shared_ptr<const FaultSet> f) override {
    faults_ = std::move(f);
    lib_.set_faults(faults_);
    if (!prepare(true, "the restart algorithm")) return;
    // The aborted run changed the buffers in place: every participant starts again from
    // its gradient (the chips charge the copy from the input buffer; see docs/faults.md).
    restore_words();
    aborted_ = false;
    launch();
  }
  bool collective_started() const override { return launched_; }
  void hold_start(bool on) override { held_ = on; }
  void set_faults(std::shared_ptr<const FaultSet> f) override {
    faults_ = std::move(f);
    lib_.set_faults(faults_);
    rerouted_ = true;
  }
  void give_up(const std::string& why) override {
    gave_up_at_ = sc_core::sc_time_stamp();
    error_ = why;
    finished_ = true;
  }
  // Verify mode: each participant's buffer holds its own gradient words again.
  void restore_words() {
    if (cfg_.coll.verify != Verify::On) return;
    const coll::Schedule& s = run_->schedule();
    for (size_t c = 0; c < chips_.size(); ++c) {
      if (!chips_[c] || !s.participant[c]) continue;
      std::vector<uint64_t>& w = chips_[c]->hbm().words();
      w.assign(s.words, 0);
      for (uint32_t i = 0; i < s.words; ++i) w[i] = coll::initial_word((ChipId)c, i);
    }
  }

 private:
  bool write(size_t c, uint64_t addr, uint32_t v) {
    tlm::tlm_generic_payload tx;
    tx.set_command(tlm::TLM_WRITE_COMMAND);
    tx.set_address(addr);
    tx.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
    tx.set_data_length(4);
    tx.set_streaming_width(4);
    tx.set_byte_enable_ptr(nullptr);
    tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    sock[sock_of_[c]]->b_transport(tx, delay);
    return tx.is_response_ok();
  }
  // The descriptor for the live set (with --restart-algo when `restart_algo`) and its
  // compiled collective; false, after give_up, when the algorithm refuses the live set.
  bool prepare(bool restart_algo, const char* algorithm) {
    Config c = cfg_;
    if (restart_algo) c.coll.algo = cfg_.recovery.restart_algo;
    d_ = descriptor_of(c, *faults_);
    try {
      run_ = lib_.get(d_);
    } catch (const ConfigError& e) {
      give_up(std::string(algorithm) + " refuses the live set: " + e.what());
      return false;
    }
    return true;
  }
  // Writes the descriptor into every live chip and starts it.
  void launch() {
    for (size_t c = 0; c < chips_.size(); ++c) {
      if (!chips_[c] || faults_->chip_dead((ChipId)c)) continue;
      bool ok = write(c, regs::kOp, d_.op) && write(c, regs::kDtype, d_.dtype) &&
                write(c, regs::kAlgo, d_.algo) && write(c, regs::kOrder, d_.order) &&
                write(c, regs::kBufLo, (uint32_t)d_.buf) && write(c, regs::kBufHi, (uint32_t)(d_.buf >> 32)) &&
                write(c, regs::kSizeLo, (uint32_t)d_.size) && write(c, regs::kSizeHi, (uint32_t)(d_.size >> 32)) &&
                write(c, regs::kChunk, d_.chunk) && write(c, regs::kSlices, d_.slices) &&
                write(c, regs::kLine, d_.line);
      for (size_t w = 0; ok && w < d_.participants.size(); ++w)
        ok = write(c, regs::kPartBase + 4 * w, d_.participants[w]);
      if (!ok || !write(c, regs::kCtrl, 1)) {
        give_up("chip " + std::to_string(c) + " refused the collective: " +
                regs::error_name(chips_[c]->error()) + ": " + chips_[c]->error_text());
        return;
      }
    }
  }
  bool all_done() const {
    for (size_t c = 0; c < chips_.size(); ++c)
      if (chips_[c] && !faults_->chip_dead((ChipId)c) && chips_[c]->status() != regs::kDone) return false;
    return true;
  }
  void run() {
    if (compute_ > sc_core::SC_ZERO_TIME) wait(compute_);
    const sc_core::sc_time poll = net_.clock().period() * 16.0;
    // A failure detected during the compute phase: the start waits for the new tables
    // and then uses the live set (FaultController::recover).
    while (held_ && !finished_) wait(net_.clock().period());
    if (finished_) return;  // the failure partitioned the machine
    started_ = sc_core::sc_time_stamp();
    launched_ = true;
    // On a machine that lost chips before the start, the collective is the one a restart
    // would run (--restart-algo): the configured one may need every chip (2d).
    if (!prepare(rerouted_, "the algorithm")) return;
    launch();
    while (!finished_) {
      if (!aborted_ && all_done()) finished_ = true;
      else wait(poll);
    }
  }

  const Config& cfg_;
  std::vector<Chip*> chips_;
  CollectiveLibrary& lib_;
  Network& net_;
  sc_core::sc_time compute_, started_, gave_up_at_;
  std::shared_ptr<const FaultSet> faults_;
  std::shared_ptr<CollectiveRun> run_;
  Descriptor d_;
  std::vector<int> sock_of_;  // chip id -> socket index (-1: dead before the run)
  bool finished_ = false, aborted_ = false, launched_ = false, held_ = false, rerouted_ = false;
  std::string error_;
};

// What the run's HTML page needs beyond the statistics (tb/view_data.h): the link
// windows, the dead chips, boards and links dated, the drops per link and per chip, and
// the roles in the first collective and, after a restart, in the last one.
nlohmann::ordered_json view_json(const Config& cfg, Network& net, const LinkWindows& lw,
                                 const FaultController* ctl, const CollectiveRun& first,
                                 const Host& host, Cycle start_cycle,
                                 const std::vector<TimelineEvent>& timeline) {
  const Topology2D& t = net.topology();
  nlohmann::ordered_json j;
  j["link_windows"] = lw.json(t);
  static const std::vector<size_t> kNone;
  static const std::vector<Cycle> kNoCycles;
  add_dead_elements(cfg.net, ctl ? ctl->applied_indices() : kNone, ctl ? ctl->fault_cycles() : kNoCycles, &j);
  nlohmann::ordered_json ld = nlohmann::ordered_json::array();
  for (ChipId c = 0; c < (ChipId)t.chips(); ++c)
    for (int p = 0; p < kNumNetPorts; ++p)
      if (Link* l = net.link(c, (Port)p))
        if (l->dropped_flits() || l->dropped_dead_destination())
          ld.push_back({{"x", t.x(c)}, {"y", t.y(c)}, {"port", port_name((Port)p)},
                        {"dead_link", l->dropped_flits()}, {"dead_destination", l->dropped_dead_destination()}});
  j["link_drops"] = ld;
  nlohmann::ordered_json cd = nlohmann::ordered_json::array();
  if (ctl)
    for (const auto& [c, n] : ctl->dead_router_by_chip())
      cd.push_back({{"x", t.x(c)}, {"y", t.y(c)}, {"dead_router", n}});
  j["chip_drops"] = cd;
  const FaultSet before(cfg.net);
  std::vector<char> dead(t.chips());
  for (ChipId c = 0; c < (ChipId)t.chips(); ++c) dead[c] = before.chip_dead(c);
  nlohmann::ordered_json roles = nlohmann::ordered_json::array();
  if (host.collective_started())
    roles.push_back(chip_roles_json(first.schedule(), t, dead, start_cycle, coll::to_string(cfg.coll.algo)));
  const std::shared_ptr<CollectiveRun> last = host.current();
  if (last && last.get() != &first) {
    Cycle from = start_cycle;
    for (const TimelineEvent& e : timeline)
      if (e.what.rfind("restart:", 0) == 0) from = e.cycle;
    for (ChipId c = 0; c < (ChipId)t.chips(); ++c) dead[c] = host.faults().chip_dead(c);
    roles.push_back(chip_roles_json(last->schedule(), t, dead, from, coll::to_string(cfg.recovery.restart_algo)));
  }
  j["chip_roles"] = roles;
  return j;
}

}  // namespace

Cycle allreduce_cycle_limit(const Config& c, uint64_t flits_per_chip, Cycle compute_cycles) {
  const NetworkConfig& n = c.net;
  const double rtt = n.pipeline + n.link_latency + n.credit_latency + 1;
  const double slow = std::max({1.0, n.link_gbps / c.chip.hbm_gbps, n.link_gbps / c.chip.reduce_gbps,
                                rtt / ((double)n.buf * n.vcs)});
  const double per_run = 16.0 * slow * (double)flits_per_chip + 100000.0;
  const double failures = (double)n.faults.timed.size();
  const double recovery = c.recovery.detect + c.recovery.max_drain + 10000.0;
  const double total = compute_cycles + (1 + failures) * per_run + failures * recovery;
  return total >= 1e18 ? (Cycle)1e18 : (Cycle)total;
}

AllreduceResult run_allreduce(const Config& cfg_in, const RunOptions& opt) {
  AllreduceResult r;
  Config cfg = cfg_in;
  cfg.coll.verify = verifies(cfg_in) ? Verify::On : Verify::Off;
  r.config = cfg_in;
  const auto t0 = Clk::now();
  auto fs = std::make_shared<const FaultSet>(cfg.net);
  const FaultSet& faults = *fs;
  // Failures during the run are checked against the topology before anything runs.
  const std::vector<TimedFault>& timed = cfg.net.faults.timed;
  if (!timed.empty()) {
    std::vector<size_t> all(timed.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    NetworkConfig probe = cfg.net;
    probe.faults = with_timed(cfg.net.faults, all);
    const FaultSet check(probe);  // throws ConfigError naming a bad --fail-at
  }
  // Memory: the network, the schedule (counted, not built) and the verified data, before
  // the routes, the schedule, the network or the chips' data are built (tb/memory.h).
  check_memory(estimate_allreduce_memory(cfg, faults, cfg.coll.verify == Verify::On), cfg.run.mem_limit);
  RouteSet rs = opt.tables ? RouteSet{*opt.tables, "given"} : build_routes(cfg.net, faults);
  if (opt.check_routes) {
    r.route_check = check_routes(faults, rs.tables, cfg.net.vcs);
    if (!r.route_check.ok())
      throw std::runtime_error("route set '" + rs.scheme + "' failed the checker: " + r.route_check.problem);
  }
  // The collective is compiled before anything is simulated, so a refusal (e.g. 2d on a
  // machine with holes) is reported as bad input with the algorithm's own message.
  CollectiveLibrary lib(cfg, fs);
  const std::shared_ptr<CollectiveRun> first = lib.get(descriptor_of(cfg, faults));
  const uint64_t first_flits = [&] {
    uint64_t t = 0;
    for (uint32_t x = 0; x < first->schedule().xfers.size(); ++x)
      t += first->schedule().xfers[x].len + first->packets_of(x);
    return t;
  }();
  // A phase trigger must name a phase of the collective as it starts (it may also fire
  // in a restarted run that has a phase of that name).
  for (const TimedFault& f : timed) {
    if (!f.by_phase()) continue;
    const std::vector<std::string>& names = first->schedule().phase_names;
    std::string have;
    bool found = false;
    for (const std::string& p : names) {
      found |= phase_matches(f.phase, p);
      have += (have.empty() ? "" : ", ") + phase_key(p);
    }
    if (!found)
      throw ConfigError("--fail-at " + to_string(f) + ": the " + coll::to_string(cfg.coll.algo) +
                        " allreduce has no phase '" + f.phase + "'; its phases: " + have);
  }
  if (opt.router_factory && opt.wave && opt.wave->enabled())
    throw ConfigError("waveforms need the SystemC model routers");
  if (opt.router_factory && !timed.empty())
    throw ConfigError("--fail-at needs the SystemC model routers (the RTL routers have no fault hooks)");
  auto net = std::make_unique<Network>("net", cfg.net, opt.router_factory);
  const std::string terr = net->load_tables(rs.tables);
  if (!terr.empty()) throw std::runtime_error(terr);
  net->apply_faults(faults);
  if (opt.eject_log)
    for (int c = 0; c < net->chips(); ++c) net->ni(c).set_eject_log(opt.eject_log);
  // The eject log is one list in ejection order, written by every NI: one thread then.
  net->clock().set_threads(opt.eject_log ? 1 : Clock::threads_for(cfg.run.threads));
  r.routes_info = rs;
  r.routes_info.tables.clear();
  const int n = net->chips();
  const sc_core::sc_time period = net->clock().period();
  const bool verify = cfg.coll.verify == Verify::On;
  std::vector<std::unique_ptr<Chip>> chips(n);
  std::vector<Chip*> by_id(n, nullptr);
  for (int c = 0; c < n; ++c) {
    if (faults.chip_dead(c)) continue;
    const std::string name = "chip_" + std::to_string(faults.topology().x(c)) + "_" +
                             std::to_string(faults.topology().y(c));
    chips[c] = std::make_unique<Chip>(name.c_str(), cfg, c, net->ni(c), lib, period, verify);
    by_id[c] = chips[c].get();
    if (verify && first->schedule().participant[c]) {
      std::vector<uint64_t>& w = chips[c]->hbm().words();
      w.resize(first->schedule().words);
      for (uint32_t i = 0; i < first->schedule().words; ++i) w[i] = coll::initial_word(c, i);
    }
  }
  const Cycle compute_cycles = (Cycle)std::llround(cfg.chip.compute_us * 1000.0 / cfg.net.cycle_ns());
  Host host("host", cfg, by_id, lib, *net, period * (double)compute_cycles);
  std::unique_ptr<FaultController> ctl =
      timed.empty() ? nullptr : std::make_unique<FaultController>("faults", cfg, *net, host);
  std::unique_ptr<Tracer> tracer = opt.wave ? Tracer::attach(*net, *opt.wave) : nullptr;
  if (tracer && !faults.empty()) tracer->fault_event(0, "faults applied before the run: " + faults.describe());
  r.setup_seconds = since(t0);

  auto progress = [&host](const NetCounters&, Cycle done, double el) {
    const double frac = host.progress();
    std::fprintf(stderr, "\rcycle %llu  %5.1f%% of the data reduced  ETA %.0fs   ",
                 (unsigned long long)done, 100 * frac, frac > 0 ? el / frac * (1 - frac) : 0.0);
  };
  auto engine_violation = [&]() -> std::string {
    for (const auto& ch : chips)
      if (ch && ch->engine().violations()) return ch->engine().first_violation();
    return "";
  };
  const auto t1 = Clk::now();
  Driver drv(*net, cfg.run.watchdog, opt.progress ? std::function<void(const NetCounters&, Cycle, double)>(progress) : nullptr,
             &r.stop_reason, &r.message, [&] { return !host.finished() || (ctl && !ctl->settled()); },
             engine_violation);
  // Waits on a timer are not stalls: the compute phase, a chip's HBM at work (restoring
  // its buffer after an abort takes a read and a write of the whole gradient: 10,923
  // cycles at 3 MiB, past the default watchdog), the controller's detection latency and
  // table writes.
  drv.set_timed_work([&]() -> Cycle {
    Cycle t = host.collective_started() ? 0 : compute_cycles;
    for (const auto& ch : chips)
      if (ch) t = std::max(t, (Cycle)std::ceil(ch->hbm().busy_until()));
    if (ctl) t = std::max(t, ctl->timer_until());
    return t;
  });
  // Link utilization over time: every `window` cycles, the mean over the live links.
  const Cycle window = cfg.run.util_window;
  uint64_t sent_before = 0;
  LinkWindows link_windows(*net);  // the same windows, per link direction
  size_t fault_marks = 0;
  bool ok = true;
  const Cycle max_cycles = cfg.run.max_cycles
                               ? cfg.run.max_cycles
                               : allreduce_cycle_limit(cfg, (first_flits + first->schedule().participants() - 1) /
                                                                std::max(1, first->schedule().participants()),
                                                       compute_cycles);
  r.max_cycles = max_cycles;
  while (ok && !host.finished()) {
    if (drv.done() >= max_cycles) {
      r.stop_reason = "max-cycles";
      r.message = "max-cycles: the allreduce had not finished after " + std::to_string(drv.done()) +
                  " cycles (" + std::to_string(host.progress() * 100.0).substr(0, 5) +
                  " % of the running collective's data reduced; limit --max-cycles " +
                  (cfg.run.max_cycles ? std::to_string(max_cycles) : "auto = " + std::to_string(max_cycles)) +
                  "); raise --max-cycles if this configuration is legitimately this slow";
      ok = false;
      break;
    }
    ok = drv.run_until(std::min<Cycle>(drv.done() + 256, max_cycles), 256);
    if (tracer && ctl && ctl->timeline().size() > fault_marks) {
      for (; fault_marks < ctl->timeline().size(); ++fault_marks) {
        const TimelineEvent& e = ctl->timeline()[fault_marks];
        if (e.what.rfind("fault:", 0) == 0) tracer->fault_event(e.cycle, e.what);
      }
    }
    if (drv.done() % window == 0 || host.finished()) {
      uint64_t sent = 0;
      int live = 0;
      for (int c = 0; c < n; ++c)
        for (int p = 0; p < kNumNetPorts; ++p)
          if (Link* l = net->link(c, (Port)p)) {
            sent += l->flits_sent();
            live += !l->failed();
          }
      const Cycle from = r.util_series.empty() ? 0 : r.util_series.back().first;
      const Cycle span = drv.done() - from;
      if (span && live) r.util_series.push_back({drv.done(), (double)(sent - sent_before) / span / live});
      sent_before = sent;
      link_windows.sample(*net, drv.done());
    }
  }
  r.wall_seconds = since(t1);
  if (tracer) r.wave_note = tracer->finish();
  r.totals = net->counters();
  r.peak_rss_kb = peak_rss_kb();
  r.threads = net->clock().threads();
  r.parallel_cycles = net->clock().parallel_cycles();
  r.router_cycles_per_second = r.wall_seconds > 0 ? (double)drv.done() * n / r.wall_seconds : 0;
  if (ctl) {
    r.timeline = ctl->timeline();
    r.drops = ctl->drops();
    r.restarts = ctl->restarts();
    for (size_t i = 0; i < timed.size(); ++i)
      if (std::find(ctl->applied_indices().begin(), ctl->applied_indices().end(), i) ==
          ctl->applied_indices().end())
        r.untriggered.push_back(to_string(timed[i]));
  }
  for (const auto& ch : chips)
    if (ch) r.discarded_abort += ch->engine().discarded_flits();
  // Conservation: every injected flit was ejected, dropped for a counted reason, or (in
  // a run stopped early) is still in a router buffer or on a link.
  r.flits_delivered = r.totals.flits_ejected - r.discarded_abort;
  r.flits_in_network = r.totals.buffered_flits + net->flits_in_flight();
  r.conservation_ok =
      r.totals.flits_injected == r.totals.flits_ejected + r.drops.total() + r.flits_in_network;
  // What the run had reached, also when it stops early: the live set the host knows, the
  // collective it ran last, the cycles from its first START to the stop.
  const FaultSet& fin = host.faults();
  const std::shared_ptr<CollectiveRun> run = host.current();
  r.live_chips = fin.live_chips();
  if (ctl && (!ok || !host.error().empty())) r.live_chips = ctl->detected_faults()->live_chips();
  if (run) {
    r.participants = run->schedule().participants();
    r.words = run->schedule().words;
    r.transfers = run->schedule().xfers.size();
  }
  r.start_cycle = host.collective_started() ? (Cycle)std::llround(host.started_at() / period) : 0;
  r.view = view_json(cfg, *net, link_windows, ctl.get(), *first, host, r.start_cycle, r.timeline);
  if (!ok || !host.error().empty()) {
    if (ok) {
      r.stop_reason = ctl && !ctl->timeline().empty() && ctl->timeline().back().what == "partitioned"
                          ? "partitioned" : "refused";
      r.message = host.error();
    }
    r.end_cycle = ok ? (Cycle)std::llround(host.gave_up_at() / period) : drv.done();
    r.cycles = host.collective_started() ? r.end_cycle - r.start_cycle : 0;
    r.time_us = r.cycles * cfg.net.cycle_ns() / 1000.0;
    if (ctl) r.timeline.push_back({r.end_cycle, "stopped: " + r.stop_reason});
    return r;
  }
  const coll::Schedule& sched = run->schedule();
  // Timing: from the first START writes to the last chip's completion of the final run.
  for (int c = 0; c < n; ++c)
    if (chips[c] && !fin.chip_dead(c)) r.end_cycle = std::max(r.end_cycle, chips[c]->engine().done_cycle());
  r.cycles = r.end_cycle - r.start_cycle;
  if (ctl) r.timeline.push_back({r.end_cycle, "complete"});
  const double cns = cfg.net.cycle_ns();
  r.time_us = r.cycles * cns / 1000.0;
  r.step_time_us = cfg.chip.compute_us + r.time_us;
  if (r.cycles > 0) {
    r.algbw_GBps = (double)cfg.coll.bytes / (r.cycles * cns);  // bytes per ns = GB/s
    const int p = r.participants;
    r.busbw_GBps = p > 1 ? r.algbw_GBps * 2.0 * (p - 1) / p : 0;
  }
  // Bounds (docs/collectives.md): the final schedule's busiest resource on the final
  // routes, and what any allreduce of the live chips could do on the final topology.
  NetworkConfig fin_cfg = cfg.net;
  fin_cfg.faults = with_timed(cfg.net.faults, ctl ? ctl->applied_indices() : std::vector<size_t>());
  const std::vector<RouteTable> fin_tables = timed.empty() ? rs.tables : build_routes(fin_cfg, fin).tables;
  const coll::ScheduleLoad load = coll::schedule_load(sched, fin.topology(), fin_tables);
  r.max_link_words = load.max_link_words;
  const double fb = cfg.net.flit_bytes;
  const double hbm_rate = cfg.chip.hbm_gbps / cfg.net.link_gbps * fb;      // bytes/cycle
  const double red_rate = cfg.chip.reduce_gbps / cfg.net.link_gbps * fb;
  uint64_t max_hbm = 0, max_red = 0;
  for (int c = 0; c < n; ++c) {
    max_hbm = std::max(max_hbm, load.chip_hbm_words[c]);
    max_red = std::max(max_red, load.chip_reduce_words[c]);
  }
  r.bound_cycles = std::max({coll::algorithm_bound_words(load), max_hbm * fb / hbm_rate,
                             max_red * fb / red_rate});
  std::vector<char> live_set(n);
  for (int c = 0; c < n; ++c) live_set[c] = !fin.chip_dead(c);
  r.topo_bound_cycles = coll::topology_bound_words(fin, live_set, sched.words);
  if (r.cycles > 0) {
    r.bound_ratio = r.bound_cycles / r.cycles;
    r.topo_bound_ratio = r.topo_bound_cycles / r.cycles;
  }
  for (size_t ph = 0; ph < sched.phase_names.size(); ++ph) {
    PhaseTime t{sched.phase_names[ph], 0, 0};
    if (run->phase_start(ph) != kNever) {
      t.start = run->phase_start(ph) - r.start_cycle;
      t.end = run->phase_end(ph) - r.start_cycle;
    }
    r.phases.push_back(t);
  }
  double usum = 0;
  int ulinks = 0;
  for (int c = 0; c < n; ++c) {
    for (int p = 0; p < kNumNetPorts; ++p) {
      Link* l = net->link(c, (Port)p);
      if (!l || fin.link_dead(c, (Port)p)) continue;
      const double u = r.cycles ? (double)l->flits_sent() / r.cycles : 0;
      r.links.push_back({fin.topology().x(c), fin.topology().y(c), (Port)p, u});
      usum += u;
      ++ulinks;
      r.link_util_max = std::max(r.link_util_max, u);
    }
  }
  r.link_util_mean = ulinks ? usum / ulinks : 0;
  for (const auto& ch : chips) {
    if (!ch) continue;
    r.hbm_bytes += ch->hbm().bytes_moved();
    r.words_reduced += ch->engine().words_reduced();
  }
  if (!r.conservation_ok || r.flits_in_network || (timed.empty() && r.totals.flits_ejected != first_flits)) {
    r.stop_reason = "accounting";
    r.message = "flits injected " + std::to_string(r.totals.flits_injected) + " != ejected " +
                std::to_string(r.totals.flits_ejected) + " + dropped " + std::to_string(r.drops.total()) +
                (timed.empty() ? " (expected " + std::to_string(first_flits) + " flits)" : "");
    return r;
  }
  if (verify) {
    std::vector<uint64_t> sum(sched.words, 0);
    for (int c = 0; c < n; ++c)
      if (sched.participant[c])
        for (uint32_t i = 0; i < sched.words; ++i) sum[i] += coll::initial_word(c, i);
    r.verified = true;
    for (int c = 0; c < n && *r.verified; ++c) {
      if (!sched.participant[c]) continue;
      const std::vector<uint64_t>& w = chips[c]->hbm().words();
      for (uint32_t i = 0; i < sched.words; ++i) {
        const uint64_t got = i < w.size() ? w[i] : 0;
        if (got != sum[i]) {
          std::ostringstream m;
          m << "wrong sum on chip (" << fin.topology().x(c) << "," << fin.topology().y(c)
            << ") at word " << i << ": expected " << sum[i] << ", holds " << got;
          r.verified = false;
          r.stop_reason = "wrong-sum";
          r.message = m.str();
          break;
        }
      }
    }
    if (!*r.verified) return r;
  }
  r.ok = true;
  r.stop_reason = "done";
  return r;
}

nlohmann::ordered_json allreduce_config_json(const Config& c) {
  nlohmann::ordered_json j = network_json(c.net);
  j["algo"] = coll::to_string(c.coll.algo);
  j["order"] = coll::to_string(c.coll.order);
  j["bytes"] = c.coll.bytes;
  j["dtype"] = c.coll.dtype == DType::Bf16 ? "bf16" : "fp32";
  j["chunk"] = c.coll.chunk_bytes;
  j["slices"] = c.coll.slices ? nlohmann::ordered_json(c.coll.slices) : nlohmann::ordered_json("auto");
  j["line"] = coll::to_string(c.coll.line);
  j["verify"] = c.coll.verify == Verify::Auto ? "auto" : c.coll.verify == Verify::On ? "on" : "off";
  j["packet-words"] = c.chip.packet_words;
  j["send-order"] = c.chip.send_order == ChipConfig::SendOrder::Fifo ? "fifo" : "schedule";
  j["hbm-bw"] = c.chip.hbm_gbps;
  j["hbm-bytes"] = c.chip.hbm_bytes;
  j["reduce-bw"] = c.chip.reduce_gbps;
  j["compute-us"] = c.chip.compute_us;
  j["watchdog"] = c.run.watchdog;
  j["max-cycles"] = c.run.max_cycles ? nlohmann::ordered_json(c.run.max_cycles) : nlohmann::ordered_json("auto");
  faults_json(c.net.faults, &j);
  nlohmann::ordered_json at = nlohmann::ordered_json::array();
  for (const TimedFault& t : c.net.faults.timed) at.push_back(to_string(t));
  j["fail-at"] = at;
  j["detect-cycles"] = c.recovery.detect;
  j["drain-quiet"] = c.recovery.quiet;
  j["restart-algo"] = coll::to_string(c.recovery.restart_algo);
  j["cycle_ns"] = c.net.cycle_ns();
  return j;
}

nlohmann::ordered_json allreduce_json(const AllreduceResult& r) {
  nlohmann::ordered_json j;
  j["ok"] = r.ok;
  j["stop_reason"] = r.stop_reason;
  if (!r.message.empty()) j["message"] = r.message;
  j["algo"] = coll::to_string(r.config.coll.algo);
  j["bytes"] = r.config.coll.bytes;
  j["cycles"] = r.cycles;
  j["start_cycle"] = r.start_cycle;  // phases' start/end count from here
  j["max_cycles_limit"] = r.max_cycles;  // the max-cycles guard in force
  j["time_us"] = r.time_us;
  j["step_time_us"] = r.step_time_us;
  j["algbw_GBps"] = r.algbw_GBps;
  j["busbw_GBps"] = r.busbw_GBps;
  j["bound_cycles"] = r.bound_cycles;
  j["bound_ratio"] = r.bound_ratio;
  j["topo_bound_cycles"] = r.topo_bound_cycles;
  j["topo_bound_ratio"] = r.topo_bound_ratio;
  j["verified"] = r.verified ? nlohmann::ordered_json(*r.verified) : nlohmann::ordered_json(nullptr);
  j["live_chips"] = r.live_chips;
  j["participants"] = r.participants;
  j["words_per_chip"] = r.words;
  j["transfers"] = r.transfers;
  j["max_link_words"] = r.max_link_words;
  nlohmann::ordered_json ph = nlohmann::ordered_json::array();
  for (const PhaseTime& p : r.phases) ph.push_back({{"name", p.name}, {"start", p.start}, {"end", p.end}});
  j["phases"] = ph;
  j["link_util_mean"] = r.link_util_mean;
  j["link_util_max"] = r.link_util_max;
  nlohmann::ordered_json links = nlohmann::ordered_json::array();
  for (const LinkUtil& l : r.links)
    links.push_back({{"x", l.x}, {"y", l.y}, {"port", port_name(l.port)}, {"utilization", l.utilization}});
  j["link_utilization"] = links;
  j["flits_injected"] = r.totals.flits_injected;
  j["flits_ejected"] = r.totals.flits_ejected;
  j["flits_delivered"] = r.flits_delivered;
  j["flits_dropped"] = {{"dead_router", r.drops.dead_router},
                        {"dead_link", r.drops.dead_link},
                        {"dead_destination", r.drops.dead_destination},
                        {"flushed", r.drops.flushed},
                        {"abort", r.discarded_abort},
                        {"total", r.drops.total() + r.discarded_abort}};
  j["flits_in_network"] = r.flits_in_network;  // left in buffers and on links at a stop
  j["conservation_ok"] = r.conservation_ok;
  j["restarts"] = r.restarts;
  nlohmann::ordered_json tl = nlohmann::ordered_json::array();
  for (const TimelineEvent& e : r.timeline) tl.push_back({{"cycle", e.cycle}, {"event", e.what}});
  j["timeline"] = tl;
  j["faults_not_triggered"] = r.untriggered;
  nlohmann::ordered_json us = nlohmann::ordered_json::array();
  for (const auto& [c, u] : r.util_series) us.push_back({{"cycle", c}, {"utilization", u}});
  j["link_utilization_over_time"] = us;
  for (auto it = r.view.begin(); it != r.view.end(); ++it) j[it.key()] = it.value();
  j["hbm_bytes_moved"] = r.hbm_bytes;
  j["words_reduced"] = r.words_reduced;
  j["routing"] = routes_json(r.routes_info, r.route_check);
  j["config"] = allreduce_config_json(r.config);
  j["simulator"] = {{"wall_seconds", r.wall_seconds},
                    {"setup_seconds", r.setup_seconds},
                    {"router_cycles_per_second", r.router_cycles_per_second},
                    {"peak_rss_kb", r.peak_rss_kb},
                    {"threads", r.threads},
                    {"parallel_cycles", r.parallel_cycles}};
  return j;
}

}  // namespace fm
