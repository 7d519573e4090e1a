#include "tb/tracer.h"

#include <algorithm>

#include "models/noc/fault_set.h"

namespace fm {

namespace {

// Widths are fixed (not derived from the configuration) so that signal names, which
// GTKWave suffixes with the range, are the same in every run: 13 bits hold 0..kMaxBuf.
constexpr int kCountBits = 13;
static_assert(kMaxBuf < (1 << kCountBits), "a VC's occupancy and credits fit the waveform field");

std::string coord_name(const char* what, int x, int y) {
  return std::string(what) + "_" + std::to_string(x) + "_" + std::to_string(y);
}

}  // namespace

// ---------------------------------------------------------------- WaveRecorder

WaveRecorder::WaveRecorder(const WaveOptions& o, const std::string& comment)
    : w_(WaveWriter::open(o.format, o.path, o.option, comment)),
      path_(o.path),
      from_(o.from),
      to_(o.to),
      around_(o.around) {}

int WaveRecorder::add(const std::string& name, int width) {
  const int id = w_->add_var(name, width);
  cur_.push_back(0);
  written_.push_back(0);
  return id;
}

void WaveRecorder::add_event_vars(const std::string& marker, const std::string& count) {
  marker_ = add(marker, 1);
  count_ = add(count, 16);
}

bool WaveRecorder::wants(Cycle c) const { return history_mode() || in_window(c); }

bool WaveRecorder::done_after(Cycle c) const { return window_known() && c >= to_; }

void WaveRecorder::commit(Cycle c) {
  if (in_window(c)) {
    write(c, cur_);
    last_commit_ = c;
  } else if (history_mode()) {
    record_history(c);
  } else if (events_outside_ && events_.count(c)) {
    write(c, cur_);
  }
}

// Keeps the values of the last `around_` cycles as a base snapshot plus per-cycle changes.
void WaveRecorder::record_history(Cycle c) {
  if (!has_base_) {
    base_ = cur_;
    base_cycle_ = c;
    has_base_ = true;
  } else {
    Frame fr{c, {}};
    for (size_t i = 0; i < cur_.size(); ++i)
      if (cur_[i] != prev_[i]) fr.changes.push_back({(uint32_t)i, cur_[i]});
    if (!fr.changes.empty()) hist_.push_back(std::move(fr));
  }
  prev_ = cur_;
  hist_last_ = c;
  // The window of an event in cycle >= c starts at c - around_ at the earliest.
  while (!hist_.empty() && hist_.front().c + around_ <= c) {
    for (const auto& [i, v] : hist_.front().changes) base_[i] = v;
    base_cycle_ = hist_.front().c;
    hist_.pop_front();
  }
}

// Writes the part of the history inside the (now known) window.
void WaveRecorder::flush_history() {
  if (!has_base_) return;
  const Cycle start = std::max(from_, base_cycle_);
  while (!hist_.empty() && hist_.front().c <= start) {
    for (const auto& [i, v] : hist_.front().changes) base_[i] = v;
    hist_.pop_front();
  }
  if (start <= to_) write(start, base_);
  for (const Frame& fr : hist_) {
    if (fr.c > to_) break;
    for (const auto& [i, v] : fr.changes) base_[i] = v;
    write(fr.c, base_);
  }
  if (start <= to_) last_commit_ = std::min(to_, std::max(start, hist_last_));
  hist_.clear();
  has_base_ = false;
}

// Writes cycle c: the values that differ from what the file holds (all of them the
// first time), the event marker and count, and the descriptions of events in c.
void WaveRecorder::write(Cycle c, std::vector<uint64_t>& vals) {
  if (has_written_ && c <= last_time_) return;  // cycles only increase
  if (marker_ >= 0) {
    vals[marker_] = events_.count(c);
    uint64_t n = 0;
    for (auto it = events_.begin(); it != events_.end() && it->first <= c; ++it) n += it->second.size();
    vals[count_] = n;
  }
  bool stamped = false;
  for (size_t i = 0; i < vals.size(); ++i) {
    if (has_written_ && vals[i] == written_[i]) continue;
    if (!stamped) {
      w_->time(c);
      stamped = true;
    }
    w_->value((int)i, vals[i]);
    written_[i] = vals[i];
  }
  has_written_ = true;
  if (stamped) last_time_ = c;
  auto ev = events_.find(c);
  if (ev != events_.end() && !noted_[c]) {
    for (const std::string& s : ev->second) w_->note("cycle " + std::to_string(c) + ": " + s);
    noted_[c] = true;
  }
}

void WaveRecorder::event(Cycle c, const std::string& what) {
  const bool first = events_.empty();
  events_[c].push_back(what);
  if (first && around_ != kNever) {
    from_ = c > around_ ? c - around_ : 0;
    to_ = c + around_;
    flush_history();
  } else if (has_written_ && c == last_commit_ && c >= last_time_ && marker_ >= 0) {
    // Cycle c was sampled already (the event came after its sample): mark it now.
    if (c > last_time_) {
      w_->time(c);
      last_time_ = c;
    }
    if (written_[marker_] != 1) {  // not for a second event in the same cycle
      written_[marker_] = 1;
      w_->value(marker_, 1);
    }
    uint64_t n = 0;
    for (auto it = events_.begin(); it != events_.end() && it->first <= c; ++it) n += it->second.size();
    written_[count_] = n;
    w_->value(count_, n);
    w_->note("cycle " + std::to_string(c) + ": " + what);
    noted_[c] = true;
  }
}

std::string WaveRecorder::finish() {
  std::string note;
  if (!has_written_) {
    note = around_ != kNever && events_.empty()
               ? "no fault event (cosim: mismatch) happened, so the --wave-around-fault window never opened: " + path_ +
                     " holds the signal declarations only"
               : "no cycle of the run fell inside the waveform window: " + path_ +
                     " holds the signal declarations only";
  } else if (last_commit_ != kNever && last_commit_ > last_time_) {
    w_->time(last_commit_);  // so viewers show the window up to its last sampled cycle
  }
  w_->close();
  return note;
}

// ---------------------------------------------------------------- PortIo of a model router

bool RouterLinksIo::in_flit(Cycle now, int p, Flit* f) const {
  const Link* l = r_.in_link((Port)p);
  const Flit* g = l ? l->flit_arriving(now) : nullptr;
  if (g) *f = *g;
  return g != nullptr;
}

bool RouterLinksIo::out_flit(Cycle now, int p, Flit* f) const {
  const Link* l = r_.out_link((Port)p);
  const Flit* g = l ? l->flit_arriving(now + l->latency()) : nullptr;
  if (g) *f = *g;
  return g != nullptr;
}

int RouterLinksIo::in_credit(Cycle now, int p) const {
  const Link* l = r_.in_link((Port)p);
  return l ? l->credit_arriving(now + l->credit_latency()) : -1;
}

int RouterLinksIo::out_credit(Cycle now, int p) const {
  const Link* l = r_.out_link((Port)p);
  return l ? l->credit_arriving(now) : -1;
}

// ---------------------------------------------------------------- RouterProbe

RouterProbe::RouterProbe(WaveRecorder& rec, const std::string& scope, const PortIo& io, int vcs,
                         const Router* internals, bool with_faults)
    : rec_(rec), io_(io), r_(internals), vcs_(vcs) {
  rec_.push_scope(scope);
  if (with_faults) {
    dead_out_ = rec_.add("dead_out", kNumNetPorts);
    dead_in_ = rec_.add("dead_in", kNumNetPorts);
    chip_dead_ = rec_.add("chip_dead", 1);
  }
  for (int p = 0; p < kNumPorts; ++p) {
    in_[p] = declare_port(std::string("in_") + port_name((Port)p));
    if (r_) {
      for (int v = 0; v < vcs; ++v) {
        rec_.push_scope("vc" + std::to_string(v));
        in_vc_.push_back({rec_.add("state", 1), rec_.add("occupancy", kCountBits), rec_.add("out_port", 3),
                          rec_.add("out_vc", 4)});
        rec_.pop_scope();
      }
    }
    rec_.pop_scope();
  }
  for (int p = 0; p < kNumPorts; ++p) {
    out_[p] = declare_port(std::string("out_") + port_name((Port)p));
    if (r_) {
      for (int v = 0; v < vcs; ++v) {
        rec_.push_scope("vc" + std::to_string(v));
        out_vc_.push_back({rec_.add("credits", kCountBits), rec_.add("allocated", 1)});
        rec_.pop_scope();
      }
    }
    rec_.pop_scope();
  }
  rec_.pop_scope();
}

// Opens the port's scope (the caller closes it after adding the VC scopes).
RouterProbe::FlitVars RouterProbe::declare_port(const std::string& name) {
  rec_.push_scope(name);
  FlitVars v;
  v.valid = rec_.add("valid", 1);
  v.vc = rec_.add("vc", 4);
  v.kind = rec_.add("kind", 2);
  v.seq = rec_.add("seq", 16);
  v.src = rec_.add("src", 32);
  v.dst = rec_.add("dst", 32);
  v.packet = rec_.add("packet", 32);
  v.payload = rec_.add("payload", 64);
  v.credit_valid = rec_.add("credit_valid", 1);
  v.credit_vc = rec_.add("credit_vc", 4);
  return v;
}

void RouterProbe::set_port(const FlitVars& v, bool valid, const Flit& f, int credit) {
  rec_.set(v.valid, valid);
  rec_.set(v.vc, valid ? f.vc : 0);
  rec_.set(v.kind, valid ? f.kind : 0);
  rec_.set(v.seq, valid ? f.seq : 0);
  rec_.set(v.src, valid ? f.src : 0);
  rec_.set(v.dst, valid ? f.dst : 0);
  rec_.set(v.packet, valid ? f.packet : 0);
  rec_.set(v.payload, valid ? f.payload : 0);
  rec_.set(v.credit_valid, credit >= 0);
  rec_.set(v.credit_vc, credit >= 0 ? (uint64_t)credit : 0);
}

void RouterProbe::sample(Cycle now) {
  for (int p = 0; p < kNumPorts; ++p) {
    Flit f;
    bool ok = io_.in_flit(now, p, &f);
    set_port(in_[p], ok, f, io_.in_credit(now, p));
    ok = io_.out_flit(now, p, &f);
    set_port(out_[p], ok, f, io_.out_credit(now, p));
  }
  if (r_) {
    for (int p = 0; p < kNumPorts; ++p) {
      const Link* ol = r_->out_link((Port)p);
      for (int v = 0; v < vcs_; ++v) {
        const InVcVars& iv = in_vc_[p * vcs_ + v];
        const bool active = r_->vc_active((Port)p, v);
        rec_.set(iv.state, active);
        rec_.set(iv.occupancy, (uint64_t)r_->vc_occupancy((Port)p, v));
        rec_.set(iv.out_port, active ? r_->vc_out_port((Port)p, v) : 0);
        rec_.set(iv.out_vc, active ? r_->vc_out_vc((Port)p, v) : 0);
        const OutVcVars& ov = out_vc_[p * vcs_ + v];
        // Credits as the spec counts them: a sleeping router applies arrived credits late.
        const int cr = ol ? r_->credits((Port)p, v) + ol->credits_waiting(now, v) : 0;
        rec_.set(ov.credits, (uint64_t)std::max(cr, 0));
        rec_.set(ov.allocated, r_->out_vc_allocated((Port)p, v));
      }
    }
    if (dead_out_ >= 0) {
      uint64_t out = 0, in = 0;
      int links = 0, dead = 0;
      for (int p = 0; p < kNumNetPorts; ++p) {
        if (const Link* l = r_->out_link((Port)p)) {
          ++links;
          if (l->failed()) { out |= 1u << p; ++dead; }
        }
        if (const Link* l = r_->in_link((Port)p)) {
          ++links;
          if (l->failed()) { in |= 1u << p; ++dead; }
        }
      }
      rec_.set(dead_out_, out);
      rec_.set(dead_in_, in);
      rec_.set(chip_dead_, links > 0 && dead == links);
    }
  }
}

// ---------------------------------------------------------------- Tracer

std::vector<ChipId> default_traced_routers(const NetworkConfig& n) {
  const Topology2D t(n);
  std::vector<ChipId> ids;
  if (t.chips() <= 16) {
    for (int c = 0; c < t.chips(); ++c) ids.push_back(c);
    return ids;
  }
  auto add = [&](ChipId c) {
    if (ids.size() < 8 && std::find(ids.begin(), ids.end(), c) == ids.end()) ids.push_back(c);
  };
  add(t.id(0, 0));
  add(t.id(t.width() / 2, t.height() / 2));
  const FaultSet f(n);
  for (int c = 0; c < t.chips(); ++c) {
    bool near = false;
    for (int p = 0; p < kNumNetPorts; ++p)
      if (t.neighbour(c, (Port)p) >= 0 && f.link_dead(c, (Port)p)) near = true;
    if (!near) continue;
    // The first chip with a dead link: it, if alive, and its live neighbours.
    if (!f.chip_dead(c)) add(c);
    for (int p = 0; p < kNumNetPorts; ++p) {
      const long d = t.neighbour(c, (Port)p);
      if (d >= 0 && !f.chip_dead((ChipId)d)) add((ChipId)d);
    }
    break;
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<ChipId> traced_routers(const NetworkConfig& n, const WaveOptions& o) {
  const Topology2D t(n);
  std::vector<ChipId> ids;
  if (o.all_routers) {
    for (int c = 0; c < t.chips(); ++c) ids.push_back(c);
    return ids;
  }
  if (o.routers.empty()) return default_traced_routers(n);
  for (const Coord& k : o.routers) {
    if (k.x < 0 || k.y < 0 || k.x >= t.width() || k.y >= t.height())
      throw ConfigError("--wave-routers " + std::to_string(k.x) + "," + std::to_string(k.y) +
                        ": outside the " + std::to_string(t.width()) + "x" +
                        std::to_string(t.height()) + " mesh");
    ids.push_back(t.id(k.x, k.y));
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

std::unique_ptr<Tracer> Tracer::attach(Network& net, const WaveOptions& o) {
  if (!o.enabled()) return nullptr;
  return std::make_unique<Tracer>("wave_tracer", net, o, traced_routers(net.config(), o));
}

namespace {
std::string header_comment(const Network& net, const std::vector<ChipId>& ids, const WaveOptions& o) {
  const NetworkConfig& n = net.config();
  std::string s = "faultmesh network " + std::to_string(n.width) + "x" + std::to_string(n.height) + " " +
                  to_string(n.topology) + ", " + std::to_string(n.vcs) + " VCs x " + std::to_string(n.buf) +
                  " flits, pipeline " + std::to_string(n.pipeline) + ", link latency " +
                  std::to_string(n.link_latency) + ".\nOne time unit = one router cycle (" +
                  std::to_string(n.cycle_ns()) + " ns); a value at time t is the state after cycle t.\n";
  s += "Traced routers:";
  for (ChipId c : ids) s += " (" + std::to_string(net.topology().x(c)) + "," + std::to_string(net.topology().y(c)) + ")";
  if (o.around != kNever)
    s += "\nWindow: " + std::to_string(o.around) + " cycles either side of the first fault event.";
  else
    s += "\nWindow: cycles " + std::to_string(o.from) + " to " +
         (o.to == kNever ? std::string("the end of the run") : std::to_string(o.to)) + ".";
  return s;
}
}  // namespace

Tracer::Tracer(sc_core::sc_module_name name, Network& net, const WaveOptions& o,
               std::vector<ChipId> ids)
    : sc_module(name), net_(net), rec_(o, header_comment(net, ids, o)), ids_(std::move(ids)) {
  const Topology2D& t = net.topology();
  const NetworkConfig& n = net.config();
  rec_.push_scope("net");
  rec_.push_scope("faults");
  rec_.add_event_vars("event", "count");
  dead_links_ = rec_.add("dead_links", 32);
  rec_.pop_scope();
  for (ChipId c : ids_) {
    ios_.push_back(std::make_unique<RouterLinksIo>(net.router(c)));
    probes_.push_back(std::make_unique<RouterProbe>(rec_, coord_name("router", t.x(c), t.y(c)), *ios_.back(),
                                                    n.vcs, &net.router(c), true));
  }
  for (ChipId c : ids_) {
    for (int p = 0; p < kNumNetPorts; ++p) {
      const Link* l = net.link(c, (Port)p);
      if (!l) continue;
      rec_.push_scope(coord_name("link", t.x(c), t.y(c)) + "_" + port_name((Port)p));
      LinkVars v{l, rec_.add("flits_in_flight", 16), rec_.add("credits_in_flight", 16), rec_.add("dead", 1)};
      rec_.pop_scope();
      links_.push_back(v);
    }
  }
  rec_.pop_scope();
  rec_.end_declarations();
  dead_count_ = count_dead_links();
  SC_METHOD(process);
  sensitive << net.clock().tick();
  dont_initialize();
}

int Tracer::count_dead_links() const {
  int n = 0;
  for (int c = 0; c < net_.chips(); ++c)
    for (int p = 0; p < kNumNetPorts; ++p)
      if (Link* l = net_.link(c, (Port)p); l && l->failed()) ++n;
  return n;
}

void Tracer::fault_event(Cycle c, const std::string& what) {
  dead_count_ = count_dead_links();
  rec_.event(c, what);
}

// On the clock tick (the clock has advanced now()): if the window wants this cycle, wait
// one delta, so every router and NI has evaluated it, then sample it.
void Tracer::process() {
  const Cycle now = net_.clock().now();
  if (!sample_phase_) {
    if (rec_.wants(now)) {
      sample_phase_ = true;
      next_trigger(sc_core::SC_ZERO_TIME);
    } else if (rec_.done_after(now)) {
      next_trigger(never_);  // the window has closed: stop for good
    }
    return;
  }
  sample_phase_ = false;
  rec_.set(dead_links_, (uint64_t)dead_count_);
  for (auto& p : probes_) p->sample(now);
  for (const LinkVars& v : links_) {
    rec_.set(v.in_flight, v.l->flits_in_flight());
    rec_.set(v.credits, v.l->credits_in_flight(now));
    rec_.set(v.dead, v.l->failed());
  }
  rec_.commit(now);
  if (rec_.done_after(now)) next_trigger(never_);
}

}  // namespace fm
