// The lockstep co-simulation of tb/cosim.h: one SystemC thread steps the model Router
// (through Links of latency 1, as in a network) and the verilated RTL router (through
// sc_signals and a clock signal it toggles itself) in the same cycles, compares their
// outputs and computes the next cycle's stimulus from them.
//
// Timing inside one model cycle m (the model Clock's period is 1 us of simulated time):
//   tick(m)              the model Clock notifies its tick; the model Router evaluates m
//   + 1 delta            the thread reads the model's departures of m (slot m + 1 of each
//                        output link) and credits sent in m; the RTL's inputs of m have
//                        been driven since the previous cycle, its outputs of m settled:
//                        sample, compare, compute the arrivals of m + 1, send them into
//                        the model's links (departure m, latency 1), raise the RTL clock
//                        (the edge ending cycle m)
//   + 1 ns               drive the RTL inputs of m + 1, lower the RTL clock
// Before cycle 0 (inside model cycle 0's period) the RTL is reset and its route table
// written with 1 ns half-periods; the model sees none of it.
#include "tb/cosim.h"

#include <verilated.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>
#include <random>
#include <stdexcept>
#include <systemc>

#include "Vfm_router.h"
#include "Vfm_router_bug_credit.h"
#include "Vfm_router_bug_rr.h"
#include "models/config.h"
#include "models/noc/clock.h"
#include "models/noc/link.h"
#include "models/noc/router.h"
#include "models/route_table.h"
#include "tb/rtl_ports.h"

namespace fm {

using rtl::CycleIn;
using rtl::CycleOut;

namespace {

// "head+tail vc 1 packet 7 src 100 dst 3 seq 0 payload 0x..."
std::string describe(const Flit& f) {
  static const char* kKinds[] = {"body", "head", "tail", "head+tail"};
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s vc %d packet %u src %u dst %u seq %u payload 0x%016llx",
                kKinds[f.kind & 3], f.vc, f.packet, f.src, f.dst, f.seq,
                (unsigned long long)f.payload);
  return buf;
}
bool same(const Flit& a, const Flit& b) {
  return a.payload == b.payload && a.packet == b.packet && a.src == b.src && a.dst == b.dst &&
         a.seq == b.seq && a.kind == b.kind && a.vc == b.vc;
}
std::string port_str(int p) { return std::to_string(p) + " (" + port_name((Port)p) + ")"; }

// PortIo of the verilated router: its port signals, as the bench drives and samples them
// (inputs of cycle m are driven since the end of cycle m - 1; outputs of m have settled).
class RtlSignalsIo : public PortIo {
 public:
  explicit RtlSignalsIo(const rtl::Signals& s) : s_(s) {}
  bool in_flit(Cycle, int p, Flit* f) const override {
    if (!s_.in_valid[p].read()) return false;
    *f = rtl::unpack_flit({s_.in_payload[p].read(), s_.in_meta[p].read(), s_.in_ctl[p].read()});
    return true;
  }
  bool out_flit(Cycle, int p, Flit* f) const override {
    if (!s_.out_valid[p].read()) return false;
    *f = rtl::unpack_flit({s_.out_payload[p].read(), s_.out_meta[p].read(), s_.out_ctl[p].read()});
    return true;
  }
  int in_credit(Cycle, int p) const override {  // sent upstream on input p
    return s_.cr_out_valid[p].read() ? (int)s_.cr_out_vc[p].read() : -1;
  }
  int out_credit(Cycle, int p) const override {  // arriving on output p
    return s_.cr_in_valid[p].read() ? (int)s_.cr_in_vc[p].read() : -1;
  }

 private:
  const rtl::Signals& s_;
};

// The closed-loop bench: owns the model Router, its links, the DUT and the stimulus.
template <class Dut>
class CosimBench : public sc_core::sc_module, public Clocked {
 public:
  SC_HAS_PROCESS(CosimBench);
  CosimBench(sc_core::sc_module_name name, Clock& clk, const NetworkConfig& cfg, const CosimParams& p)
      : sc_module(name),
        Clocked(clk),
        vcs_(cfg.vcs),
        buf_(cfg.buf),
        rtl_cfg_(rtl::RouterCfg::of(cfg)),
        p_(p),
        rng_((uint64_t)p.seed * 0x9e3779b97f4a7c15ull + 1),
        router_("router", cfg, 0, clk),
        dut_("dut") {
    for (int q = 0; q < kNumPorts; ++q) {
      in_links_[q] = std::make_unique<Link>(("in" + std::to_string(q)).c_str(), 1, 1, vcs_ * buf_);
      in_links_[q]->bind(this, q, &router_, q);
      router_.connect_in((Port)q, in_links_[q].get());
      out_links_[q] = std::make_unique<Link>(("out" + std::to_string(q)).c_str(), 1, 1, vcs_ * buf_);
      out_links_[q]->bind(&router_, q, this, q);
      router_.connect_out((Port)q, out_links_[q].get());
      for (int v = 0; v < vcs_; ++v) credits_[q][v] = buf_;
    }
    make_table();
    bind_dut();
    if (p.wave && p.wave->enabled()) open_wave(*p.wave, cfg);
    SC_THREAD(run);
  }
  const CosimResult& result() const { return res_; }
  // Closes the waveform file (after the run); throws WriteError on an I/O error.
  void finish_wave() {
    if (rec_) res_.wave_note = rec_->finish();
  }

 private:
  // A random legal table: destinations 0..4 go to a permutation of the 5 ports (so every
  // input has destinations that are not a U-turn), the rest to random ports; every mask
  // is a random non-empty subset of the VCs.
  void make_table() {
    std::array<int, kNumPorts> perm{0, 1, 2, 3, 4};
    std::shuffle(perm.begin(), perm.end(), rng_);
    RouteTable table(p_.dests);
    for (int d = 0; d < p_.dests; ++d) {
      RouteEntry e;
      e.port = (uint8_t)(d < kNumPorts ? perm[d] : (int)(rng_() % kNumPorts));
      do e.vc_mask = (uint16_t)(rng_() & ((1u << vcs_) - 1)); while (!e.vc_mask);
      table.set(d, e);
      routes_.push_back(e);
    }
    const std::string err = router_.load_table(table);
    if (!err.empty()) throw std::runtime_error(err);
    for (int q = 0; q < kNumPorts; ++q)
      for (int d = 0; d < p_.dests; ++d)
        if (routes_[d].port != q) legal_dsts_[q].push_back(d);
  }

  void bind_dut() {
    dut_.clk_i(rtl_clk_);
    sig_.bind(dut_);
  }

  // Declares the side-by-side signals: cosim.{mismatch,mismatches}, then model.* (ports,
  // VC state, credits) and rtl.* (ports) with the same port signal names.
  void open_wave(const WaveOptions& o, const NetworkConfig& cfg) {
    const std::string comment =
        "faultmesh cosim V" + std::to_string(cfg.vcs) + " B" + std::to_string(cfg.buf) + " P" +
        std::to_string(cfg.pipeline) + (cfg.arbiter == Arbiter::ISlip ? " islip" : " rr") + ", seed " +
        std::to_string(p_.seed) + ".\nOne time unit = one cycle (spec numbering); model.* and rtl.* hold "
        "the same port signals, model.* also the VC state and credits.";
    rec_ = std::make_unique<WaveRecorder>(o, comment);
    rec_->write_events_outside_window();
    rec_->push_scope("cosim");
    rec_->add_event_vars("mismatch", "mismatches");
    rec_->pop_scope();
    model_io_ = std::make_unique<RouterLinksIo>(router_);
    model_probe_ = std::make_unique<RouterProbe>(*rec_, "model", *model_io_, vcs_, &router_, false);
    rtl_io_ = std::make_unique<RtlSignalsIo>(sig_);
    rtl_probe_ = std::make_unique<RouterProbe>(*rec_, "rtl", *rtl_io_, vcs_, nullptr, false);
    rec_->end_declarations();
  }
  // Samples both routers in cycle m if the window wants it, or m is the mismatch.
  void trace(Cycle m, const std::string& err) {
    if (!err.empty()) {
      const std::string at = "cycle " + std::to_string(m) + ": ";  // the recorder adds it
      rec_->event(m, err.rfind(at, 0) == 0 ? err.substr(at.size()) : err);
    }
    if (!rec_->wants(m) && err.empty()) return;
    model_probe_->sample(m);
    rtl_probe_->sample(m);
    rec_->commit(m);
  }

  // The model's departures of cycle m (they arrive downstream in m + 1) and credits sent
  // in m; returns "" or a protocol problem of the model (two credits on one link).
  std::string model_outputs(Cycle m, CycleOut* o) {
    for (int q = 0; q < kNumPorts; ++q) {
      o->valid[q] = out_links_[q]->receive(m + 1, &o->flit[q]);
      o->credit[q] = in_links_[q]->receive_credit(m + 1);
      if (o->credit[q] >= 0 && in_links_[q]->receive_credit(m + 1) >= 0)
        return "cycle " + std::to_string(m) + ": the model sent two credits on input port " + port_str(q);
    }
    return "";
  }
  // First difference of the two routers' outputs in cycle m ("" if none); counts.
  std::string compare(Cycle m, const CycleOut& mo, const CycleOut& ro) {
    const std::string at = "cycle " + std::to_string(m) + ": ";
    for (int q = 0; q < kNumPorts; ++q) {
      if (mo.valid[q] || ro.valid[q]) {
        ++res_.flits_compared;
        if (mo.valid[q] != ro.valid[q] || !same(mo.flit[q], ro.flit[q])) {
          res_.mismatch_port = q;
          const int vc = mo.valid[q] ? mo.flit[q].vc : ro.flit[q].vc;
          return at + "flit on output port " + port_str(q) + " VC " + std::to_string(vc) + ": model " +
                 (mo.valid[q] ? describe(mo.flit[q]) : "none") + " | rtl " +
                 (ro.valid[q] ? describe(ro.flit[q]) : "none");
        }
      }
      if (mo.credit[q] >= 0 || ro.credit[q] >= 0) {
        ++res_.credits_compared;
        if (mo.credit[q] != ro.credit[q]) {
          res_.mismatch_port = q;
          const int vc = mo.credit[q] >= 0 ? mo.credit[q] : ro.credit[q];
          auto s = [](int v) { return v >= 0 ? "VC " + std::to_string(v) : std::string("none"); };
          return at + "credit sent upstream on input port " + port_str(q) + " VC " + std::to_string(vc) +
                 ": model " + s(mo.credit[q]) + " | rtl " + s(ro.credit[q]);
        }
      }
    }
    return "";
  }

  // A new traffic phase: per input port an offered load, per output port a credit
  // return probability (0 = a stalled downstream), and a longest packet.
  void new_phase(Cycle m) {
    static constexpr int kLoads[] = {0, 200, 500, 800, 1000, 1000, 1000, 1000};
    static constexpr int kReturns[] = {0, 100, 500, 900, 1000, 1000, 1000, 1000};
    for (int q = 0; q < kNumPorts; ++q) {
      inject_permille_[q] = kLoads[rng_() % 8];
      return_permille_[q] = kReturns[rng_() % 8];
    }
    max_packet_ = 1 + (int)(rng_() % 8);
    phase_end_ = m + 16 + rng_() % 500;
  }
  bool coin(int permille) { return (int)(rng_() % 1000) < permille; }

  // Acting in cycle m (outputs up to m - 1 known): the arrivals of cycle m + 1, sent into
  // the model's links and returned for the RTL.
  CycleIn stimulus(Cycle m) {
    if (m >= phase_end_) new_phase(m);
    CycleIn in;
    for (int q = 0; q < kNumPorts; ++q) {
      // Downstream of output q: return the credit of one received flit (any VC).
      if (!pending_[q].empty() && coin(return_permille_[q])) {
        const size_t k = rng_() % pending_[q].size();
        in.credit[q] = pending_[q][k];
        pending_[q][k] = pending_[q].back();
        pending_[q].pop_back();
        out_links_[q]->send_credit(in.credit[q], m);
      }
      if (q == kNorth && (int64_t)m == p_.illegal_credit_at) {
        if (in.credit[q] >= 0) pending_[q].push_back(in.credit[q]);  // owed, not sent
        in.credit[q] = 0;
        out_links_[q]->send_credit(0, m);
      }
      // Upstream of input q: one flit on a random VC holding a credit.
      if (!coin(inject_permille_[q])) continue;
      const int v0 = (int)(rng_() % vcs_);
      for (int i = 0; i < vcs_; ++i) {
        const int v = (v0 + i) % vcs_;
        if (!credits_[q][v]) continue;
        if (!left_[q][v]) {
          size_[q][v] = left_[q][v] = 1 + (int)(rng_() % max_packet_);
          cur_[q][v] = Flit{};
          cur_[q][v].packet = next_packet_[q]++;
          cur_[q][v].src = (ChipId)(rng_() & rtl::low_bits(kChipIdBits));
          cur_[q][v].dst = (ChipId)legal_dsts_[q][rng_() % legal_dsts_[q].size()];
          cur_[q][v].vc = (uint8_t)v;
        }
        Flit g = cur_[q][v];
        g.seq = (uint16_t)(size_[q][v] - left_[q][v]);
        g.kind = (uint8_t)((g.seq == 0 ? kHead : 0) | (left_[q][v] == 1 ? kTail : 0));
        g.payload = rng_();
        --left_[q][v];
        --credits_[q][v];
        in.send((Port)q, g);
        in_links_[q]->send(g, m);
        break;
      }
    }
    return in;
  }
  // The outputs of cycle m reach the traffic sources from cycle m + 1 on.
  void absorb(const CycleOut& o) {
    for (int q = 0; q < kNumPorts; ++q) {
      if (o.valid[q]) pending_[q].push_back(o.flit[q].vc);
      if (o.credit[q] >= 0 && o.credit[q] < vcs_) ++credits_[q][o.credit[q]];
    }
  }

  // One RTL clock period of 2 ns (used only before cycle 0).
  void rtl_tick() {
    wait(1, sc_core::SC_NS);
    rtl_clk_.write(true);
    wait(1, sc_core::SC_NS);
    rtl_clk_.write(false);
  }

  void run() {
    // Model cycle 0: the Clock's first activation shares the first evaluation phase with
    // this thread's start (in either order), so wait one delta instead of for its tick.
    wait(sc_core::SC_ZERO_TIME);
    sig_.configure(rtl_cfg_);  // the RTL samples its configuration pins in reset
    sig_.drive(CycleIn{});
    sig_.rst_n.write(false);
    rtl_tick();
    rtl_tick();
    sig_.rst_n.write(true);
    for (int d = 0; d < p_.dests; ++d) {
      sig_.write_route((uint32_t)d, routes_[d]);
      rtl_tick();
    }
    sig_.end_writes();
    wait(1, sc_core::SC_NS);
    for (Cycle m = 0;; ++m) {
      if (m > 0) wait(clk_.tick());
      wait(sc_core::SC_ZERO_TIME);  // the model Router has evaluated cycle m
      if (clk_.now() != m) {
        fail(m, "internal: model clock at cycle " + std::to_string(clk_.now()));
        break;
      }
      CycleOut mo;
      std::string err = model_outputs(m, &mo);
      const CycleOut ro = sig_.sample();
      if (err.empty()) err = compare(m, mo, ro);
      if (router_.violations())
        err += (err.empty() ? "cycle " + std::to_string(m) + ": " : "; ") + "model monitor: " +
               router_.first_violation();
      if (Verilated::threadContextp()->gotError())
        err += (err.empty() ? "cycle " + std::to_string(m) + ": " : "; ") +
               "RTL assertion failed (its %Error line is printed above)";
      ++res_.cycles;
      for (int q = 0; q < kNumPorts; ++q) res_.flits_model += mo.valid[q];
      if (rec_) trace(m, err);
      bool moved = false;
      for (int q = 0; q < kNumPorts; ++q) moved |= mo.valid[q] || ro.valid[q];
      if (moved || router_.buffered_flits() == 0) last_move_ = m;
      if (err.empty() && m - last_move_ >= p_.watchdog)
        err = "cycle " + std::to_string(m) + ": watchdog: no flit left either router for " +
              std::to_string(m - last_move_) + " cycles while the model router holds " +
              std::to_string(router_.buffered_flits()) + " flit(s) (a deadlock both designs share)";
      if (!err.empty()) {
        // One more edge: an RTL assertion about this cycle's inputs fires at the edge
        // that ends it.
        rtl_clk_.write(true);
        wait(1, sc_core::SC_NS);
        if (err.find("RTL assertion") == std::string::npos && Verilated::threadContextp()->gotError())
          err += "; RTL assertion failed at the edge ending the cycle (its %Error line is printed above)";
        fail(m, err);
        break;
      }
      if (m + 1 >= p_.cycles) break;
      const CycleIn in = stimulus(m);
      absorb(mo);
      rtl_clk_.write(true);  // ends RTL cycle m
      wait(1, sc_core::SC_NS);
      sig_.drive(in);
      rtl_clk_.write(false);
    }
    res_.agreed = res_.mismatch.empty();
    sc_core::sc_stop();
  }
  void fail(Cycle m, const std::string& what) {
    res_.mismatch = what;
    res_.mismatch_cycle = (int64_t)m;
  }

  const int vcs_, buf_;
  const rtl::RouterCfg rtl_cfg_;  // the same configuration, for the RTL's pins
  CosimParams p_;
  Cycle last_move_ = 0;  // last cycle a flit left either router (or the model was empty)
  std::mt19937_64 rng_;
  Router router_;
  std::array<std::unique_ptr<Link>, kNumPorts> in_links_, out_links_;
  std::vector<RouteEntry> routes_;
  std::array<std::vector<int>, kNumPorts> legal_dsts_;
  // Traffic sources (upstream of each input) and sinks (downstream of each output).
  int credits_[kNumPorts][kMaxVcs] = {};
  int left_[kNumPorts][kMaxVcs] = {}, size_[kNumPorts][kMaxVcs] = {};
  Flit cur_[kNumPorts][kMaxVcs];
  uint32_t next_packet_[kNumPorts] = {};
  std::array<std::vector<int>, kNumPorts> pending_;  // output VCs of flits not yet credited
  int inject_permille_[kNumPorts] = {}, return_permille_[kNumPorts] = {};
  int max_packet_ = 1;
  Cycle phase_end_ = 0;
  // The RTL side.
  sc_core::sc_signal<bool> rtl_clk_;
  rtl::Signals sig_;
  Dut dut_;
  CosimResult res_;
  // Waveforms (only with CosimParams::wave).
  std::unique_ptr<WaveRecorder> rec_;
  std::unique_ptr<RouterLinksIo> model_io_;
  std::unique_ptr<RtlSignalsIo> rtl_io_;
  std::unique_ptr<RouterProbe> model_probe_, rtl_probe_;
};

// Elaborates and runs one bench for DUT class Dut.
template <class Dut>
CosimResult run_with(const RtlConfig& c, const CosimParams& p) {
  NetworkConfig cfg;
  cfg.vcs = c.vcs;
  cfg.buf = c.buf;
  cfg.pipeline = c.pipeline;
  cfg.arbiter = c.islip ? Arbiter::ISlip : Arbiter::RoundRobin;
  Clock clk("clock", sc_core::sc_time(1, sc_core::SC_US));
  CosimBench<Dut> bench("cosim", clk, cfg, p);
  // An RTL assertion must end the run with a report, not abort the process.
  Verilated::threadContextp()->fatalOnError(false);
  // The bench ends the run with sc_stop; its "Simulation stopped by user" note is noise.
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  sc_core::sc_start();
  bench.finish_wave();
  return bench.result();
}

}  // namespace

nlohmann::json to_json(const CosimResult& r) {
  return {{"agreed", r.agreed},
          {"cycles", r.cycles},
          {"flits_compared", r.flits_compared},
          {"credits_compared", r.credits_compared},
          {"flits_model", r.flits_model},
          {"mismatch", r.mismatch.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.mismatch)},
          {"mismatch_cycle", r.mismatch_cycle},
          {"mismatch_port", r.mismatch_port}};
}

std::string RtlConfig::name() const {
  return "V" + std::to_string(vcs) + " B" + std::to_string(buf) + " P" + std::to_string(pipeline) +
         (islip ? " islip" : " rr") + (bug.empty() ? "" : " " + bug);
}

RtlBounds rtl_bounds() { return {FM_RTL_MAX_VCS, FM_RTL_MAX_BUF, FM_RTL_MAX_PIPELINE, FM_RTL_NUM_DESTS}; }

std::string rtl_config_error(const RtlConfig& c) {
  if (!c.bug.empty()) {
    for (const RtlConfig& b : rtl_bug_configs())
      if (b.bug == c.bug)
        return c.vcs == b.vcs && c.buf == b.buf && c.pipeline == b.pipeline && c.islip == b.islip
                   ? ""
                   : c.name() + ": the " + c.bug + " build runs " + b.name() + " only";
    return "no RTL build with " + c.bug;
  }
  const RtlBounds b = rtl_bounds();
  auto range = [](const char* opt, int v, int hi) {
    return v >= 1 && v <= hi ? std::string()
                             : std::string(opt) + " " + std::to_string(v) +
                                   ": the RTL co-simulation supports 1.." + std::to_string(hi) +
                                   " (bound of the verilated RTL build)";
  };
  for (const std::string& e : {range("--vcs", c.vcs, b.max_vcs), range("--buf", c.buf, b.max_buf),
                               range("--pipeline", c.pipeline, b.max_pipeline)})
    if (!e.empty()) return e;
  return "";
}

std::vector<RtlConfig> rtl_bug_configs() {
  return {{2, 4, 3, false, "FM_BUG_RR_STUCK"}, {2, 4, 3, false, "FM_BUG_LOSE_CREDIT"}};
}

CosimResult run_cosim(const RtlConfig& c, const CosimParams& p) {
  if (p.dests < kNumPorts || p.dests > FM_RTL_NUM_DESTS)
    throw std::invalid_argument("cosim: dests must be 5.." + std::to_string(FM_RTL_NUM_DESTS));
  const std::string err = rtl_config_error(c);
  if (!err.empty()) throw std::invalid_argument("cosim: " + err);
  if (c.bug == "FM_BUG_RR_STUCK") return run_with<Vfm_router_bug_rr>(c, p);
  if (c.bug == "FM_BUG_LOSE_CREDIT") return run_with<Vfm_router_bug_credit>(c, p);
  return run_with<Vfm_router>(c, p);
}

}  // namespace fm
