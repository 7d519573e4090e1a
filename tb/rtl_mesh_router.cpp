// RtlMeshRouter: the verilated RTL router behind the RouterBase interface (see the
// header for what it models and the link timing it reproduces).
//
// Timing inside one network cycle t (all at the simulated time of the Clock's tick t):
//   delta 0  (the tick)  read the arrivals of t from the Links, drive them onto the RTL's
//                        input pins, lower the RTL clock
//   delta 1              the verilated model evaluates (its SC_METHOD is sensitive to the
//                        clock and the inputs) and writes its outputs of t
//   delta 2              read the outputs of t, send them into the Links (departure t),
//                        raise the RTL clock: the edge ending cycle t (evaluated in
//                        delta 3, before the next tick)
// Every other unit of the network evaluates t in delta 0 and talks to this one only
// through Links of latency >= 1, so nothing it does in t depends on these deltas.
//
// Before cycle 0, at time 0, the adapter resets the RTL (two clock edges in reset, which
// samples the cfg_* pins) and writes its route table (one edge per entry), each edge
// taking two delta cycles; then it evaluates cycle 0 like any other.
#include "tb/rtl_mesh_router.h"

#include <verilated.h>

#include <sstream>
#include <stdexcept>
#include <vector>

#include "Vfm_router.h"
#include "Vfm_router_bug_credit.h"
#include "Vfm_router_bug_rr.h"
#include "Vfm_router_fm_pkg.h"  // rtl/fm_pkg.sv's public constants and enums, as verilated
#include "tb/rtl_ports.h"

namespace fm {

namespace {

// The RTL-model contract: every number the model and rtl/fm_pkg.sv must agree on, checked
// at compile time against the verilated package (a change on one side alone fails here).
using Pkg = Vfm_router_fm_pkg;
// Port numbering (enum Port, fm_pkg::port_e) and counts.
static_assert((int)Pkg::PortNorth == kNorth && (int)Pkg::PortEast == kEast &&
                  (int)Pkg::PortSouth == kSouth && (int)Pkg::PortWest == kWest &&
                  (int)Pkg::PortLocal == kLocal,
              "port numbering");
static_assert(Pkg::NumPorts == kNumPorts && Pkg::NumNetPorts == kNumNetPorts, "port counts");
static_assert((unsigned)Pkg::PortNone >= (unsigned)kNumPorts && (unsigned)Pkg::PortNone < (1u << kPortBits),
              "the RTL's no-route port code is no port");
// Bounds of the configuration.
static_assert(Pkg::MaxVcs == kMaxVcs && Pkg::MaxBufDepth == kMaxBuf && Pkg::MaxPipeline == kMaxPipeline,
              "VC, buffer and pipeline bounds");
static_assert(Pkg::MaxNumDests == kMaxWireChips, "route table address space = chip id space");
// Flit kinds (enum FlitKind, fm_pkg::kind_e).
static_assert((int)Pkg::KindBody == kBody && (int)Pkg::KindHead == kHead &&
                  (int)Pkg::KindTail == kTail && (int)Pkg::KindHeadTail == kHeadTail &&
                  (1u << Pkg::KindHeadBit) == kHead && (1u << Pkg::KindTailBit) == kTail,
              "flit kinds");
// Field widths on the wire (what pack_flit() uses).
static_assert(Pkg::PayloadW == kPayloadBits && Pkg::PacketW == kPacketBits && Pkg::ChipW == kChipIdBits &&
                  Pkg::SeqW == kSeqBits && Pkg::KindW == kKindBits && Pkg::VcW == kVcBits &&
                  Pkg::PortW == kPortBits,
              "flit field widths");
static_assert(Pkg::MetaW == kPacketBits + 2 * kChipIdBits && Pkg::CtlW == kSeqBits + kKindBits + kVcBits,
              "meta and ctl port widths");
// The route-table word (route_word()) and its no-route port.
static_assert(Pkg::TblWordW == kRouteWordBits && Pkg::RoutePortLsb == kRouteWordPortLsb &&
                  Pkg::RoutePortBits == kRouteWordPortBits && Pkg::RouteMaskLsb == kRouteWordMaskLsb &&
                  Pkg::RouteMaskBits == kRouteWordMaskBits && Pkg::NoRoutePort == kNoRoute,
              "route table word layout");
// The pipeline-register rule (pipeline_regs(), fm_pkg::reg_rc/reg_va/reg_sa).
static_assert(Pkg::RegRcFrom == kRegRcFrom && Pkg::RegVaFrom == kRegVaFrom && Pkg::RegSaFrom == kRegSaFrom,
              "pipeline register thresholds");
// (NetworkConfig is no literal type: that its defaults are fm_pkg's Default* is tested at
// run time, tests/rtl_mesh_test.cpp RtlContract.)

// Upper bounds (NUM_VCS, BUF_DEPTH, PIPELINE, NUM_DESTS) of each RTL build
// (rtl/CMakeLists.txt).
struct Bounds {
  int vcs, buf, pipeline, dests;
};
bool bounds_of(const std::string& bug, Bounds* b) {
  if (bug.empty()) *b = {FM_RTL_MAX_VCS, FM_RTL_MAX_BUF, FM_RTL_MAX_PIPELINE, FM_RTL_NUM_DESTS};
  else if (bug == "FM_BUG_RR_STUCK" || bug == "FM_BUG_LOSE_CREDIT") *b = {2, 4, 3, 64};
  else return false;
  return true;
}

template <class Dut>
class RtlMeshRouter final : public RouterBase {
 public:
  SC_HAS_PROCESS(RtlMeshRouter);
  RtlMeshRouter(sc_core::sc_module_name name, const NetworkConfig& cfg, ChipId id, Clock& clk)
      : RouterBase(name, clk),
        id_(id),
        vcs_(cfg.vcs),
        rtl_cfg_(rtl::RouterCfg::of(cfg)),
        vc_(kNumPorts * cfg.vcs),
        dut_("dut") {
    dut_.clk_i(rtl_clk_);
    sig_.bind(dut_);
    // Evaluates every cycle in its own process (the RTL has no sleep state): it is not
    // added to the Clock's units, so it never sleeps and links never book wake-ups for it.
    SC_METHOD(process);  // its first activation, at time 0, starts the reset sequence
    sensitive << clk.tick();
  }

  void connect_in(Port p, Link* l) override { in_link_[p] = l; }
  void connect_out(Port p, Link* l) override { out_link_[p] = l; }
  // The model Router's acceptance rule (route_entry_fault()); the entries are written
  // into the RTL at time 0, a dead destination's as the no-route word (the RTL then drops
  // a head flit to it with an assertion, as the model drops it with a violation).
  std::string load_table(const RouteTable& t) override {
    writes_.clear();
    uint32_t ports = 0;
    for (int p = 0; p <= kLocal; ++p)
      if (out_link_[p]) ports |= 1u << p;
    for (int d = 0; d < t.size(); ++d) {
      const RouteEntry& e = t.lookup(d);
      if (route_entry_fault(e, vcs_, ports) != RouteEntryFault::kNone)
        return route_entry_error("RTL router " + std::to_string(id_), (ChipId)d, e, vcs_);
      writes_.push_back({(uint32_t)d, e});
    }
    return "";
  }
  uint64_t flits_switched() const override { return switched_; }
  int buffered_flits() const override { return buffered_; }
  uint64_t occupancy_integral(Port p, int v, Cycle now) const override {
    const InVc& q = vc_[p * vcs_ + v];
    return q.integral + (uint64_t)q.count * (now - q.since);
  }
  uint64_t violations() const override { return violations_; }
  const std::string& first_violation() const override { return first_violation_; }
  // The RTL's internal state is not visible here; the buffer occupancy is (flits in
  // minus credits out per input VC).
  std::string describe_stuck() const override {
    std::ostringstream s;
    for (int p = 0; p < kNumPorts; ++p)
      for (int v = 0; v < vcs_; ++v)
        if (const int n = vc_[p * vcs_ + v].count)
          s << "  RTL router " << id_ << " input " << port_name((Port)p) << " vc " << v << ": " << n
            << " flit(s)\n";
    return s.str();
  }

 private:
  struct Write {
    uint32_t dst;
    RouteEntry e;
  };
  // Occupancy of one input VC as seen from outside: +1 per flit arriving, -1 per credit
  // sent upstream for it (the RTL sends that credit in the cycle the flit leaves).
  struct InVc {
    int count = 0;
    uint64_t integral = 0;
    Cycle since = 0;
  };
  void occ_add(int p, int v, int d, Cycle now) {
    if (v >= vcs_) return;  // a nonexistent VC: the RTL asserts
    InVc& q = vc_[p * vcs_ + v];
    q.integral += (uint64_t)q.count * (now - q.since);
    q.since = now;
    q.count += d;
  }
  void violation(const std::string& what) {
    if (!violations_++) {
      std::ostringstream m;
      m << "RTL router " << id_ << " cycle " << clk_.now() << ": " << what;
      first_violation_ = m.str();
    }
  }
  // Verilator's error flag is one per process, not per router: every router reports it
  // once; the %Error line on stderr names the failing instance.
  void check_rtl() {
    if (!rtl_error_ && Verilated::threadContextp()->gotError()) {
      rtl_error_ = true;
      violation("an RTL assertion failed (its %Error line, naming the router, is printed above)");
    }
  }

  // The reset and table-loading sequence, one step per delta cycle: step 0 configures
  // and asserts reset with the clock low, steps 1..4 give two clock edges in reset,
  // step 5 releases reset and presents the first table write, then each write is
  // captured by a rising edge (odd step) and the next one presented with the clock low
  // (even step). Returns true while the sequence goes on.
  bool reset_step() {
    const int k = step_++;
    if (k == 0) {
      sig_.configure(rtl_cfg_);
      sig_.drive(rtl::CycleIn{});
      sig_.rst_n.write(false);
      rtl_clk_.write(false);
    } else if (k <= 4) {
      rtl_clk_.write(k % 2 == 1);
    } else {
      const size_t w = (size_t)(k - 5) / 2;  // the write presented / captured
      if ((k - 5) % 2 == 0) {
        if (k == 5) sig_.rst_n.write(true);
        rtl_clk_.write(false);
        if (w < writes_.size()) sig_.write_route(writes_[w].dst, writes_[w].e);
        else {
          sig_.end_writes();
          return false;
        }
      } else {
        rtl_clk_.write(true);
      }
    }
    return true;
  }

  // Delta 0 of cycle t: this cycle's arrivals onto the input pins, clock low.
  void drive_inputs(Cycle t) {
    rtl::CycleIn in;
    for (int p = 0; p < kNumPorts; ++p) {
      Flit f;
      if (in_link_[p] && in_link_[p]->receive(t, &f)) {
        in.send((Port)p, f);
        occ_add(p, f.vc, +1, t);
        ++buffered_;
      }
      if (out_link_[p]) {
        in.credit[p] = out_link_[p]->receive_credit(t);
        // Evaluating every cycle, the adapter sees each credit in its arrival cycle; a
        // second one would need a second credit port.
        if (in.credit[p] >= 0 && out_link_[p]->receive_credit(t) >= 0)
          violation(std::string("two credits arrive on output ") + port_name((Port)p) +
                    " in one cycle; the RTL takes one per port per cycle");
      }
    }
    sig_.drive(in);
    rtl_clk_.write(false);
  }
  // Delta 2 of cycle t: the RTL's outputs of t into the links, then the edge ending t.
  void send_outputs(Cycle t) {
    const rtl::CycleOut o = sig_.sample();
    for (int p = 0; p < kNumPorts; ++p) {
      if (o.valid[p]) {
        ++switched_;
        if (out_link_[p]) out_link_[p]->send(o.flit[p], t);
        else violation(std::string("flit sent on unconnected output ") + port_name((Port)p));
      }
      if (o.credit[p] >= 0) {
        occ_add(p, o.credit[p], -1, t);
        --buffered_;
        if (in_link_[p]) in_link_[p]->send_credit(o.credit[p], t);
        else violation(std::string("credit sent on unconnected input ") + port_name((Port)p));
      }
    }
    rtl_clk_.write(true);
  }

  // The unit's one process: the reset sequence at time 0, then per cycle the three
  // deltas of the file comment. next_trigger(SC_ZERO_TIME) moves to the next delta;
  // next_trigger() falls back to the static sensitivity, the next tick.
  void process() {
    if (resetting_) {
      if (reset_step()) {
        sc_core::next_trigger(sc_core::SC_ZERO_TIME);
        return;
      }
      resetting_ = false;  // cycle 0 starts in this delta
    }
    const Cycle t = clk_.now();
    switch (phase_) {
      case 0:
        check_rtl();  // assertions at the edge ending the previous cycle
        count_evaluated();
        drive_inputs(t);
        phase_ = 1;
        sc_core::next_trigger(sc_core::SC_ZERO_TIME);
        return;
      case 1:  // the RTL evaluates in this delta; its outputs are visible in the next
        phase_ = 2;
        sc_core::next_trigger(sc_core::SC_ZERO_TIME);
        return;
      default:
        send_outputs(t);
        check_rtl();
        phase_ = 0;
        sc_core::next_trigger();
        return;
    }
  }

  const ChipId id_;
  const int vcs_;
  const rtl::RouterCfg rtl_cfg_;
  Link* in_link_[kNumPorts] = {};
  Link* out_link_[kNumPorts] = {};
  std::vector<Write> writes_;
  std::vector<InVc> vc_;  // [port][vc]
  bool resetting_ = true;
  int step_ = 0, phase_ = 0;
  uint64_t switched_ = 0;
  int buffered_ = 0;
  uint64_t violations_ = 0;
  std::string first_violation_;
  bool rtl_error_ = false;
  sc_core::sc_signal<bool> rtl_clk_;
  rtl::Signals sig_;
  Dut dut_;
};

template <class Dut>
RouterFactory factory_of() {
  return [](const char* name, const NetworkConfig& cfg, ChipId id, Clock& clk) -> std::unique_ptr<RouterBase> {
    return std::make_unique<RtlMeshRouter<Dut>>(name, cfg, id, clk);
  };
}

}  // namespace

std::string rtl_mesh_config_error(const NetworkConfig& cfg, const std::string& bug) {
  Bounds b;
  if (!bounds_of(bug, &b)) return "no RTL build with " + bug;
  const std::string build = bug.empty() ? "the RTL build" : "the " + bug + " RTL build";
  auto range = [&](const char* opt, int v, int hi) {
    return v >= 1 && v <= hi ? std::string()
                             : std::string(opt) + " " + std::to_string(v) + ": " + build +
                                   " supports 1.." + std::to_string(hi);
  };
  if (cfg.local_ports != 1)
    return "--local-ports " + std::to_string(cfg.local_ports) + ": the RTL router has one local port";
  for (const std::string& e : {range("--vcs", cfg.vcs, b.vcs), range("--pipeline", cfg.pipeline, b.pipeline)})
    if (!e.empty()) return e;
  // The allreduce's default buffers cover its 200-cycle links' credit round trip (408
  // flits), far beyond the RTL's: say how to get a co-simulation.
  if (const std::string e = range("--buf", cfg.buf, b.buf); !e.empty())
    return e + " (give --buf 1.." + std::to_string(b.buf) + "; the allreduce's default buffers cover its links' "
               "credit round trip)";
  // Chip ids are kChipIdBits on the RTL's wires and table address: refused, not cut.
  if ((int64_t)cfg.chips() > kMaxWireChips)
    return "--mesh " + std::to_string(cfg.width) + "x" + std::to_string(cfg.height) + ": " +
           std::to_string(cfg.chips()) + " chips, but the RTL router's chip ids are " +
           std::to_string(kChipIdBits) + " bits (at most " + std::to_string(kMaxWireChips) + " chips)";
  if (cfg.chips() > b.dests)
    return "--mesh " + std::to_string(cfg.width) + "x" + std::to_string(cfg.height) + ": " + build +
           "'s route table holds " + std::to_string(b.dests) + " chips";
  return "";
}

RouterFactory rtl_router_factory(const NetworkConfig& cfg, const std::string& bug) {
  const std::string err = rtl_mesh_config_error(cfg, bug);
  if (!err.empty()) throw std::invalid_argument("RTL routers: " + err);
  // An RTL assertion must become a violation report, not abort the process.
  Verilated::threadContextp()->fatalOnError(false);
  if (bug == "FM_BUG_RR_STUCK") return factory_of<Vfm_router_bug_rr>();
  if (bug == "FM_BUG_LOSE_CREDIT") return factory_of<Vfm_router_bug_credit>();
  return factory_of<Vfm_router>();
}

}  // namespace fm
