// The host's behaviour (models/chip/host.h).
#include "models/chip/host.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

#include "models/collective/algorithms.h"
#include "models/collective/resume.h"
#include "models/routing/walk.h"

namespace fm {

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

Host::Host(sc_core::sc_module_name name, const Config& cfg, std::vector<Chip*> chips,
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

double Host::progress() const {
  return run_ && run_->total_words ? (double)run_->applied_words() / run_->total_words : 0.0;
}

Cycle Host::phase_started(const std::string& key) const {
  Cycle first = kNever;
  if (!run_) return first;
  const std::vector<coll::Phase>& phases = run_->schedule().phases;
  for (size_t p = 0; p < phases.size(); ++p)
    if (phase_matches(key, phases[p])) first = std::min(first, run_->phase_start(p));
  return first;
}

bool Host::touched_by(const FaultSet& f) const {
  const coll::Schedule& s = run_->schedule();
  for (size_t c = 0; c < s.participant.size(); ++c)
    if (s.participant[c] && f.chip_dead((ChipId)c)) return true;
  // A transfer routed over a dead link (walk the tables the routers hold now).
  std::vector<std::pair<ChipId, ChipId>> pairs;
  for (const coll::Xfer& x : s.xfers) pairs.push_back({x.src, x.dst});
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  for (const auto& [a, b] : pairs) {
    const Walk w = for_each_hop(
        f.topology(), a, b, [&](ChipId c) { return net_.router(c).route_port(b); },
        [&](ChipId c, Port p) { return !f.link_dead(c, p); });
    if (w == Walk::NoPort || w == Walk::Stopped) return true;
  }
  return false;
}

void Host::abort_all() {
  aborted_ = true;
  if (run_) run_->aborted = true;
  for (size_t c = 0; c < chips_.size(); ++c)
    if (chips_[c] && !faults_->chip_dead((ChipId)c) && !chips_[c]->engine().completed()) write(c, regs::kCtrl, 2);
}

std::string Host::restart(std::shared_ptr<const FaultSet> f, const std::vector<RouteTable>& tables) {
  const std::shared_ptr<CollectiveRun> old = run_;
  faults_ = std::move(f);
  lib_.set_faults(faults_);
  if (!prepare(true, "the restart algorithm")) return "";
  std::string how;
  if (cfg_.recovery.mode == RecoveryConfig::Mode::Resume && old && old != run_) {
    // Resume: from what the aborted runs applied, transfer by transfer, the plan makes
    // the new collective a continuation of them and says which ranges each chip restores
    // (models/collective/resume.h). A transfer with some but not all packets applied
    // counts as in part. A refused plan falls back to a restart.
    std::vector<coll::Applied> applied(old->schedule().xfers.size());
    for (uint32_t x = 0; x < applied.size(); ++x) {
      const uint32_t left = old->rx_left[x];
      applied[x] = left == 0 ? coll::Applied::Full
                   : left < (uint32_t)old->packets_of(x) ? coll::Applied::Part
                                                          : coll::Applied::None;
    }
    // The buffers hold what every run since the last start from the inputs left.
    aborted_runs_.push_back({old, std::move(applied)});
    std::vector<coll::AbortedRun> history;
    for (const Aborted& a : aborted_runs_) {
      coll::AbortedRun h;
      h.schedule = &a.run->schedule();
      h.applied = a.applied;
      h.from_inputs = !a.run->resumed();
      h.restored = a.run->resumed() ? &a.run->restore() : nullptr;
      history.push_back(std::move(h));
    }
    const Topology2D& t = faults_->topology();
    const auto t0 = std::chrono::steady_clock::now();
    coll::ResumePlan p = coll::plan_resume(history, run_->schedule(),
                                           [&t](ChipId a, ChipId b) { return t.distance(a, b); });
    if (p.ok) {
      // A plan pays only if its continuation is no slower than a restart where links
      // pace the run: its busiest link against the restart's busiest link plus the
      // restart's restore of the whole buffer (an HBM read and write per word), in
      // cycles (a link carries a word per cycle). Copies of held results can load a few
      // links far past that (shrink's rectangle on a mesh, docs/faults.md); without
      // copies a continuation carries a part of the new schedule's words and always pays.
      const double hbm_words_per_cycle = cfg_.chip.hbm_gbps / cfg_.net.link_gbps;
      const uint64_t cont = coll::schedule_load(p.schedule, t, tables).max_link_words;
      const uint64_t fresh = coll::schedule_load(run_->schedule(), t, tables).max_link_words;
      const double restore = 2.0 * (double)run_->schedule().words / hbm_words_per_cycle;
      if ((double)cont > (double)fresh + restore) {
        p.ok = false;
        p.why = "its busiest link would carry " + std::to_string(cont) + " words, a restart's " +
                std::to_string(fresh) + " after a restore worth " + std::to_string((uint64_t)std::ceil(restore)) +
                " cycles";
      }
    }
    planning_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (p.ok) {
      auto of = [](uint64_t a, uint64_t b) {
        return std::to_string(b ? (int)std::lround(100.0 * (double)a / (double)b) : 0) + " %";
      };
      // What was kept and what is redone, in words and per cent of the new collective,
      // and the kept words against the most any resume could keep (the aborted run's
      // applied words free of dead chips' data).
      const uint64_t redo = p.run_words - p.copy_words;
      how = "; resumed: keeps " + std::to_string(p.kept_words()) + " of the new collective's " +
            std::to_string(p.next_words) + " words (" + of(p.kept_words(), p.next_words) + "), " +
            std::to_string(p.copy_words) + " of them fetched by copies of results the aborted run left on other "
            "chips; redoes " + std::to_string(redo) + " (" + of(redo, p.next_words) + "); restores " +
            std::to_string(p.restore_words) + " words on " + std::to_string(p.restore_chips) +
            " chips; the aborted " + (aborted_runs_.size() > 1 ? "runs" : "run") + " had applied " +
            std::to_string(p.old_applied_words) + " words into live chips, " +
            std::to_string(p.old_clean_words) + " (" + of(p.old_clean_words, p.old_applied_words) +
            ") free of dead chips' data; the kept words are " + of(p.kept_words(), p.old_clean_words) + " of those";
      run_ = lib_.install(d_, std::make_shared<const coll::Schedule>(std::move(p.schedule)));
      run_->set_restore(std::move(p.restore));
    } else {
      how = "; no resume (" + p.why + "): restarted from the inputs";
      aborted_runs_.clear();
    }
  } else {
    aborted_runs_.clear();  // a restart: every participant starts from its inputs
  }
  // The aborted run changed the buffers in place: every participant starts again from
  // its gradient, or with a resume from what the plan keeps (the chips charge the copy
  // from the input buffer; see docs/faults.md).
  restore_words();
  aborted_ = false;
  launch();
  return how;
}

void Host::set_faults(std::shared_ptr<const FaultSet> f) {
  faults_ = std::move(f);
  lib_.set_faults(faults_);
  rerouted_ = true;
}

void Host::give_up(const std::string& why) {
  gave_up_at_ = sc_core::sc_time_stamp();
  error_ = why;
  finished_ = true;
}

void Host::restore_words() {
  if (cfg_.coll.verify != Verify::On) return;
  const coll::Schedule& s = run_->schedule();
  for (size_t c = 0; c < chips_.size(); ++c) {
    if (!chips_[c] || !s.participant[c]) continue;
    std::vector<uint64_t>& w = chips_[c]->hbm().words();
    if (run_->resumed()) {
      w.resize(std::max<size_t>(w.size(), s.words), 0);
      for (const auto& [o, n] : run_->restore_of((ChipId)c))
        for (uint32_t i = o; i < o + n; ++i) w[i] = coll::initial_word((ChipId)c, i);
      continue;
    }
    w.assign(s.words, 0);
    for (uint32_t i = 0; i < s.words; ++i) w[i] = coll::initial_word((ChipId)c, i);
  }
}

bool Host::write(size_t c, uint64_t addr, uint32_t v) {
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

bool Host::prepare(bool restart_algo, const char* algorithm) {
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

void Host::launch() {
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

bool Host::all_done() const {
  for (size_t c = 0; c < chips_.size(); ++c)
    if (chips_[c] && !faults_->chip_dead((ChipId)c) && chips_[c]->status() != regs::kDone) return false;
  return true;
}

void Host::run() {
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

}  // namespace fm
