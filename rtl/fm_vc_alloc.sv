// Separable input-first VC allocator (docs/router-microarchitecture.md "The cycle",
// step 3; Router::vc_allocate in models/noc/router.cpp). Input VCs are numbered
// i = port * NUM_VCS + vc, output VCs o = port * NUM_VCS + vc.
//
// Stage 1, per requesting input VC i: candidates = route mask & free output VCs of the
// route's port; it requests the first candidate at or after va_ptr[i].
// Stage 2, per output VC o: grant the requester first at or after va_out_ptr[o]
// (cyclically over all 5 * NUM_VCS input VCs); va_out_ptr[o] = winner + 1 on a grant.
// va_ptr[i]: round-robin (islip_i = 0) = requested VC + 1 (mod vcs_i) on every request;
// iSLIP (islip_i = 1) = granted VC + 1 (mod vcs_i) only on a grant.
//
// Run-time VC count vcs_i = V <= NUM_VCS: input and output VCs >= V never request and are
// never candidates (their route masks and flits are limited to V VCs), so only va_ptr's
// wrap depends on V. Stage 2 keeps the hardware numbering p * NUM_VCS + v, which orders
// the input VCs exactly as the spec's p * V + v; the pointer winner + 1 (mod 5 * NUM_VCS)
// selects the same requesters as the spec's winner + 1 (mod 5V): those after the winner
// in (port, vc) order, or all of them after the last one.
module fm_vc_alloc #(
  /// Most virtual channels per port (the hardware's).
  parameter int unsigned NUM_VCS = fm_pkg::DefaultNumVcs,
  localparam int unsigned NumVcs = fm_pkg::NumPorts * NUM_VCS,
  localparam int unsigned VcIdxW = fm_pkg::idx_width(NUM_VCS),
  localparam int unsigned VcCntW = fm_pkg::idx_width(NUM_VCS + 1)
) (
  input  logic                                       clk_i,
  input  logic                                       rst_ni,
  /// Run-time configuration (static after reset): VCs in use 1..NUM_VCS, pointer rule.
  input  logic [VcCntW-1:0]                          vcs_i,
  input  logic                                       islip_i,
  /// Per input VC: IDLE with a head at the front (ready this cycle).
  input  logic [NumVcs-1:0]                          req_i,
  /// Per input VC: the head's route (output port, allowed output VCs).
  input  logic [NumVcs-1:0][fm_pkg::PortW-1:0]       req_port_i,
  input  logic [NumVcs-1:0][NUM_VCS-1:0]             req_mask_i,
  /// Per output port and VC: not allocated.
  input  logic [fm_pkg::NumPorts-1:0][NUM_VCS-1:0]   free_i,
  /// Per input VC: granted this cycle, and the output VC (on port req_port_i).
  output logic [NumVcs-1:0]                          gnt_o,
  output logic [NumVcs-1:0][VcIdxW-1:0]              gnt_vc_o,
  /// Per output port and VC: allocated this cycle.
  output logic [fm_pkg::NumPorts-1:0][NUM_VCS-1:0]   alloc_o
);

  localparam int unsigned IvcW = fm_pkg::idx_width(NumVcs);

  // ---------------------------------------------------------------- stage 1 (per input VC)
  logic [NumVcs-1:0]              s1_valid;
  logic [NumVcs-1:0][NUM_VCS-1:0] s1_gnt;   // one-hot requested output VC
  logic [NumVcs-1:0][VcIdxW-1:0]  s1_vc;    // its number
  logic [NumVcs-1:0][VcIdxW-1:0]  va_ptr_q, va_ptr_d;

  for (genvar i = 0; i < NumVcs; i++) begin : gen_in
    logic [NUM_VCS-1:0] cand;
    logic               port_ok;
    assign port_ok = req_port_i[i] < fm_pkg::PortW'(fm_pkg::NumPorts);
    assign cand = (req_i[i] && port_ok) ? (req_mask_i[i] & free_i[req_port_i[i]]) : '0;
    fm_rr_arbiter #(
      .N (NUM_VCS)
    ) i_arb (
      .req_i       (cand),
      .ptr_i       (va_ptr_q[i]),
      .gnt_valid_o (s1_valid[i]),
      .gnt_o       (s1_gnt[i]),
      .gnt_idx_o   (s1_vc[i])
    );
  end

  // ---------------------------------------------------------------- stage 2 (per output VC)
  logic [NumVcs-1:0][NumVcs-1:0]  s2_req;   // [output VC][input VC]
  logic [NumVcs-1:0][NumVcs-1:0]  s2_gnt;
  logic [NumVcs-1:0]              s2_valid;
  logic [NumVcs-1:0][IvcW-1:0]    s2_idx;
  logic [NumVcs-1:0][IvcW-1:0]    va_out_ptr_q, va_out_ptr_d;

  for (genvar o = 0; o < NumVcs; o++) begin : gen_out
    for (genvar i = 0; i < NumVcs; i++) begin : gen_req
      assign s2_req[o][i] = s1_gnt[i][o % NUM_VCS] &&
                            (req_port_i[i] == fm_pkg::PortW'(o / NUM_VCS));
    end
    fm_rr_arbiter #(
      .N (NumVcs)
    ) i_arb (
      .req_i       (s2_req[o]),
      .ptr_i       (va_out_ptr_q[o]),
      .gnt_valid_o (s2_valid[o]),
      .gnt_o       (s2_gnt[o]),
      .gnt_idx_o   (s2_idx[o])
    );
    assign alloc_o[o / NUM_VCS][o % NUM_VCS] = s2_valid[o];
    assign va_out_ptr_d[o] = !s2_valid[o] ? va_out_ptr_q[o] :
                             (s2_idx[o] == IvcW'(NumVcs - 1)) ? '0 : s2_idx[o] + 1'b1;
  end

  // ---------------------------------------------------------------- grants and va_ptr
  logic [VcIdxW-1:0] last_vc;  // highest VC in use
  assign last_vc = VcIdxW'(vcs_i - 1'b1);
  for (genvar i = 0; i < NumVcs; i++) begin : gen_gnt
    logic [NumVcs-1:0] gnt_col;  // grants of every output VC to input VC i (at most one)
    for (genvar o = 0; o < NumVcs; o++) begin : gen_col
      assign gnt_col[o] = s2_gnt[o][i];
    end
    assign gnt_o[i]    = |gnt_col;
    assign gnt_vc_o[i] = s1_vc[i];
    logic move;
    assign move = islip_i ? gnt_o[i] : s1_valid[i];
    assign va_ptr_d[i] = !move ? va_ptr_q[i] :
                         (s1_vc[i] == last_vc) ? '0 : s1_vc[i] + 1'b1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      va_ptr_q     <= '0;
      va_out_ptr_q <= '0;
    end else begin
      va_ptr_q     <= va_ptr_d;
      va_out_ptr_q <= va_out_ptr_d;
    end
  end

`ifndef SYNTHESIS
  for (genvar i = 0; i < NumVcs; i++) begin : gen_chk
    assert property (@(posedge clk_i) disable iff (!rst_ni)
                     req_i[i] |-> (req_port_i[i] < fm_pkg::PortW'(fm_pkg::NumPorts)))
      else $error("input VC %0d: route names port %0d, outside 0..4", i, req_port_i[i]);
  end
`endif

endmodule
