// A SystemC bench around the verilated RTL router (rtl/fm_router.sv): an sc_clock,
// one sc_signal per port, the run-time configuration pins set before reset, a reset and
// route-table programming phase, then one call of a stimulus function per cycle and a
// record of everything the router sent.
//
// Cycle t of the bench is one model cycle: it starts at a rising clock edge, the
// stimulus drives the flits and credits ARRIVING in cycle t right after that edge, the
// bench samples the flits DEPARTING and the credits SENT in cycle t at the falling edge
// (combinational paths have settled), and the next rising edge ends cycle t.
// Use it inside fm::test::in_child: SystemC elaborates once per process.
#pragma once
#include <verilated.h>
#include <verilated_vcd_sc.h>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <systemc>
#include <utility>
#include <vector>

#include "models/noc/types.h"
#include "models/route_table.h"
#include "tb/rtl_ports.h"

namespace fm::rtl {

// Called at the start of cycle t with every earlier cycle's outputs; fills `in`.
using Stimulus = std::function<void(int t, const std::vector<CycleOut>& past, CycleIn* in)>;

template <class Dut>
class RouterBench : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(RouterBench);
  // cfg: the router configuration (cfg_* pins); table: entries written after reset, one
  // per cycle, before cycle 0; stim: drives each of the `cycles` cycles.
  RouterBench(sc_core::sc_module_name name, const RouterCfg& cfg,
              std::vector<std::pair<ChipId, RouteEntry>> table, Stimulus stim, int cycles)
      : sc_module(name),
        clk_("clk", 10, sc_core::SC_NS),
        dut_("dut"),
        cfg_(cfg),
        table_(std::move(table)),
        stim_(std::move(stim)),
        cycles_(cycles) {
    dut_.clk_i(clk_);
    sig_.bind(dut_);
    SC_THREAD(run);
  }

  // Traces the DUT into a VCD file; call Verilated::traceEverOn(true) before constructing
  // the bench and this before sc_start.
  void trace_to(const std::string& path) { vcd_path_ = path; }
  void start_of_simulation() override {
    if (vcd_path_.empty()) return;
    vcd_ = std::make_unique<VerilatedVcdSc>();
    dut_.trace(vcd_.get(), 99);
  }

  const std::vector<CycleIn>& inputs() const { return ins_; }
  const std::vector<CycleOut>& outputs() const { return outs_; }
  bool finished() const { return done_; }

  // The run as JSON: every flit and credit that went in or came out, with its cycle.
  nlohmann::json to_json_trace() const {
    nlohmann::json j = {{"finished", done_},
                        {"in", nlohmann::json::array()},
                        {"cr_in", nlohmann::json::array()},
                        {"out", nlohmann::json::array()},
                        {"cr_out", nlohmann::json::array()}};
    for (size_t t = 0; t < ins_.size(); ++t) {
      for (int p = 0; p < kNumPorts; ++p) {
        if (ins_[t].valid[p]) j["in"].push_back({{"t", t}, {"port", p}, {"flit", to_json(ins_[t].flit[p])}});
        if (ins_[t].credit[p] >= 0) j["cr_in"].push_back({{"t", t}, {"port", p}, {"vc", ins_[t].credit[p]}});
      }
    }
    for (size_t t = 0; t < outs_.size(); ++t) {
      for (int p = 0; p < kNumPorts; ++p) {
        if (outs_[t].valid[p]) j["out"].push_back({{"t", t}, {"port", p}, {"flit", to_json(outs_[t].flit[p])}});
        if (outs_[t].credit[p] >= 0) j["cr_out"].push_back({{"t", t}, {"port", p}, {"vc", outs_[t].credit[p]}});
      }
    }
    return j;
  }

 private:
  void run() {
    if (vcd_) vcd_->open(vcd_path_.c_str());
    sig_.configure(cfg_);
    sig_.drive(CycleIn{});
    sig_.rst_n.write(false);
    // Reset is held over two rising edges (the configuration is sampled at both),
    // released right after the second.
    wait(clk_.posedge_event());
    wait(clk_.posedge_event());
    sig_.rst_n.write(true);
    for (const auto& [dst, e] : table_) {
      sig_.write_route(dst, e);
      wait(clk_.posedge_event());
    }
    sig_.end_writes();
    for (int t = 0; t < cycles_; ++t) {
      CycleIn in;
      stim_(t, outs_, &in);
      sig_.drive(in);
      ins_.push_back(in);
      wait(clk_.negedge_event());
      outs_.push_back(sig_.sample());
      wait(clk_.posedge_event());
    }
    done_ = true;
    if (vcd_) vcd_->flush();
    sc_core::sc_stop();
  }

  sc_core::sc_clock clk_;
  rtl::Signals sig_;
  Dut dut_;
  RouterCfg cfg_;
  std::vector<std::pair<ChipId, RouteEntry>> table_;
  Stimulus stim_;
  int cycles_;
  std::vector<CycleIn> ins_;
  std::vector<CycleOut> outs_;
  bool done_ = false;
  std::string vcd_path_;
  std::unique_ptr<VerilatedVcdSc> vcd_;
};

}  // namespace fm::rtl
