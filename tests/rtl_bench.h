// A SystemC bench around the verilated RTL router (rtl/fm_router.sv): an sc_clock,
// one sc_signal per port, a reset and route-table programming phase, then one call of
// a stimulus function per cycle and a record of everything the router sent.
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

#include "models/route_table.h"
#include "models/types.h"
#include "tb/rtl_ports.h"

namespace fm::rtl {

// Called at the start of cycle t with every earlier cycle's outputs; fills `in`.
using Stimulus = std::function<void(int t, const std::vector<CycleOut>& past, CycleIn* in)>;

template <class Dut>
class RouterBench : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(RouterBench);
  // table: entries written after reset, one per cycle, before cycle 0; stim: drives each
  // of the `cycles` cycles.
  RouterBench(sc_core::sc_module_name name, std::vector<std::pair<ChipId, RouteEntry>> table,
              Stimulus stim, int cycles)
      : sc_module(name),
        clk_("clk", 10, sc_core::SC_NS),
        dut_("dut"),
        table_(std::move(table)),
        stim_(std::move(stim)),
        cycles_(cycles) {
    dut_.clk_i(clk_);
    dut_.rst_ni(rst_n_);
#define FM_BIND(p, i)                          \
  dut_.in_##p##_valid_i(in_valid_[i]);         \
  dut_.in_##p##_payload_i(in_payload_[i]);     \
  dut_.in_##p##_meta_i(in_meta_[i]);           \
  dut_.in_##p##_ctl_i(in_ctl_[i]);             \
  dut_.out_##p##_valid_o(out_valid_[i]);       \
  dut_.out_##p##_payload_o(out_payload_[i]);   \
  dut_.out_##p##_meta_o(out_meta_[i]);         \
  dut_.out_##p##_ctl_o(out_ctl_[i]);           \
  dut_.cr_in_##p##_valid_i(cr_in_valid_[i]);   \
  dut_.cr_in_##p##_vc_i(cr_in_vc_[i]);         \
  dut_.cr_out_##p##_valid_o(cr_out_valid_[i]); \
  dut_.cr_out_##p##_vc_o(cr_out_vc_[i]);
    FM_BIND(n, 0)
    FM_BIND(e, 1)
    FM_BIND(s, 2)
    FM_BIND(w, 3)
    FM_BIND(l, 4)
#undef FM_BIND
    dut_.tbl_we_i(tbl_we_);
    dut_.tbl_addr_i(tbl_addr_);
    dut_.tbl_data_i(tbl_data_);
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
  void drive(const CycleIn& in) {
    for (int p = 0; p < kNumPorts; ++p) {
      const Flit f = in.valid[p] ? in.flit[p] : Flit{};
      in_valid_[p].write(in.valid[p]);
      in_payload_[p].write(f.payload);
      in_meta_[p].write(meta_of(f));
      in_ctl_[p].write(ctl_of(f));
      cr_in_valid_[p].write(in.credit[p] >= 0);
      cr_in_vc_[p].write(in.credit[p] >= 0 ? (uint32_t)in.credit[p] : 0u);
    }
  }
  CycleOut sample() const {
    CycleOut o;
    for (int p = 0; p < kNumPorts; ++p) {
      o.valid[p] = out_valid_[p].read();
      if (o.valid[p]) o.flit[p] = flit_of(out_payload_[p].read(), out_meta_[p].read(), out_ctl_[p].read());
      o.credit[p] = cr_out_valid_[p].read() ? (int)cr_out_vc_[p].read() : -1;
    }
    return o;
  }
  void run() {
    if (vcd_) vcd_->open(vcd_path_.c_str());
    drive(CycleIn{});
    rst_n_.write(false);
    // Reset is held over two rising edges, released right after the second.
    wait(clk_.posedge_event());
    wait(clk_.posedge_event());
    rst_n_.write(true);
    for (const auto& [dst, e] : table_) {
      tbl_we_.write(true);
      tbl_addr_.write(dst);
      tbl_data_.write(route_word(e));
      wait(clk_.posedge_event());
    }
    tbl_we_.write(false);
    for (int t = 0; t < cycles_; ++t) {
      CycleIn in;
      stim_(t, outs_, &in);
      drive(in);
      ins_.push_back(in);
      wait(clk_.negedge_event());
      outs_.push_back(sample());
      wait(clk_.posedge_event());
    }
    done_ = true;
    if (vcd_) vcd_->flush();
    sc_core::sc_stop();
  }

  sc_core::sc_clock clk_;
  sc_core::sc_signal<bool> rst_n_;
  sc_core::sc_signal<bool> in_valid_[kNumPorts], out_valid_[kNumPorts];
  sc_core::sc_signal<uint64_t> in_payload_[kNumPorts], in_meta_[kNumPorts];
  sc_core::sc_signal<uint64_t> out_payload_[kNumPorts], out_meta_[kNumPorts];
  sc_core::sc_signal<uint32_t> in_ctl_[kNumPorts], out_ctl_[kNumPorts];
  sc_core::sc_signal<bool> cr_in_valid_[kNumPorts], cr_out_valid_[kNumPorts];
  sc_core::sc_signal<uint32_t> cr_in_vc_[kNumPorts], cr_out_vc_[kNumPorts];
  sc_core::sc_signal<bool> tbl_we_;
  sc_core::sc_signal<uint32_t> tbl_addr_, tbl_data_;
  Dut dut_;
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
