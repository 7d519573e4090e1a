// One router output port: per output VC the credit counter (free slots in the
// downstream input buffer, B after reset) and whether it is free or allocated to a
// packet; and the switch traversal stage, which puts the flit granted by switch
// allocation in cycle c on the output link in cycle c + regSA.
//
// Credits (docs/router-microarchitecture.md "The cycle", step 1): a credit arriving in
// cycle t counts for switch allocation in cycle t. A counter that would go above B stays
// at B (the model's monitor clamps it too) and fails an assertion. The run-time depth B
// (buf_depth_i) is not known at reset, so the hardware counts the flits in flight
// downstream (`used`, 0 after reset) instead of the credits (B - used).
// Free: a VA grant in cycle t allocates the VC from t + 1 (VA reads the state at the
// start of the cycle); a tail switched in cycle t frees it from t + 1.
module fm_output_unit #(
  /// Most virtual channels per port (the hardware's).
  parameter int unsigned NUM_VCS   = fm_pkg::DefaultNumVcs,
  /// Deepest downstream VC buffer the run-time depth may select.
  parameter int unsigned BUF_DEPTH = fm_pkg::DefaultBufDepth,
  /// Deepest pipeline 1..4: the ST register (regSA) exists when PIPELINE >= 2.
  parameter int unsigned PIPELINE  = fm_pkg::DefaultPipeline,
  /// Number of this output port (assertion messages only).
  parameter int unsigned PORT      = 0,
  localparam int unsigned VcCntW   = fm_pkg::idx_width(NUM_VCS + 1),
  localparam int unsigned CntW     = fm_pkg::idx_width(BUF_DEPTH + 1)
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  /// Run-time configuration: VCs in use (1..NUM_VCS), downstream buffer depth
  /// (1..BUF_DEPTH), and whether the ST register is in use (P >= 2).
  input  logic [VcCntW-1:0]   vcs_i,
  input  logic [CntW-1:0]     buf_depth_i,
  input  logic                reg_sa_i,
  /// Credit arriving from downstream this cycle.
  input  fm_pkg::credit_t     cr_in_i,
  /// Per output VC: at least one credit this cycle (after the arriving credit).
  output logic [NUM_VCS-1:0]  has_credit_o,
  /// Per output VC: not allocated to any packet (state at the start of this cycle).
  output logic [NUM_VCS-1:0]  free_o,
  /// Per output VC: allocated by VA this cycle.
  input  logic [NUM_VCS-1:0]  alloc_i,
  /// Flit granted by switch allocation this cycle, its vc already the output VC.
  input  logic                sw_valid_i,
  input  fm_pkg::flit_t       sw_flit_i,
  /// Flit departing on the output link this cycle (fields meaningful only when valid).
  output logic                out_valid_o,
  output fm_pkg::flit_t       out_flit_o
);

  localparam int unsigned VcIdxW = fm_pkg::idx_width(NUM_VCS);

  logic              cr_vc_ok, sw_vc_ok;
  logic [VcIdxW-1:0] cr_vc, sw_vc;
  assign cr_vc_ok = 32'(cr_in_i.vc) < 32'(vcs_i);
  assign cr_vc    = cr_in_i.vc[VcIdxW-1:0];
  assign sw_vc_ok = 32'(sw_flit_i.vc) < 32'(vcs_i);
  assign sw_vc    = sw_flit_i.vc[VcIdxW-1:0];

  for (genvar w = 0; w < NUM_VCS; w++) begin : gen_vc
    // used = B - credits: flits sent downstream on this VC whose credit is still out.
    logic [CntW-1:0] used_q, used_d, used_now;
    logic            free_q, free_d;
    logic            inc, dec, release_vc;
    assign inc = cr_in_i.valid && cr_vc_ok && (cr_vc == VcIdxW'(w));
    assign dec = sw_valid_i && sw_vc_ok && (sw_vc == VcIdxW'(w));
    assign release_vc = dec && sw_flit_i.data.kind[fm_pkg::KindTailBit];
    // After this cycle's credit; credits clamped at B means used clamped at 0.
    assign used_now = (inc && used_q != '0) ? used_q - 1'b1 : used_q;
    assign used_d   = dec ? used_now + 1'b1 : used_now;
    assign free_d   = (free_q && !alloc_i[w]) || release_vc;
    assign has_credit_o[w] = (used_now < buf_depth_i);
    assign free_o[w] = free_q;

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        used_q <= '0;
        free_q <= 1'b1;
      end else begin
        used_q <= used_d;
        free_q <= free_d;
      end
    end

`ifndef SYNTHESIS
    assert property (@(posedge clk_i) disable iff (!rst_ni) inc |-> (used_q != '0))
      else $error("output port %0d vc %0d: credit counter above buffer depth %0d", PORT, w,
                  buf_depth_i);
    assert property (@(posedge clk_i) disable iff (!rst_ni) used_q <= buf_depth_i)
      else $error("output port %0d vc %0d: credit counter %0d below 0 (buffer depth %0d)",
                  PORT, w, 32'(buf_depth_i) - 32'(used_q), buf_depth_i);
    assert property (@(posedge clk_i) disable iff (!rst_ni) alloc_i[w] |-> free_q)
      else $error("output port %0d vc %0d: allocated while not free", PORT, w);
    // Allocated before this cycle, or by VA in this cycle (regVA = 0: VA and SA together).
    assert property (@(posedge clk_i) disable iff (!rst_ni)
                     dec |-> ((!free_q || alloc_i[w]) && used_now < buf_depth_i))
      else $error("output port %0d vc %0d: flit switched without allocation or credit", PORT, w);
`endif
  end

  // Switch traversal: the output link sees the granted flit now (regSA = 0) or next cycle.
  // The ST register exists when the deepest pipeline has one; reg_sa_i selects it.
  if (fm_pkg::reg_sa(PIPELINE)) begin : gen_st_reg
    logic          valid_q;
    fm_pkg::flit_t flit_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) valid_q <= 1'b0;
      else         valid_q <= sw_valid_i;
    end
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni)         flit_q <= '0;
      else if (sw_valid_i) flit_q <= sw_flit_i;
    end
    assign out_valid_o = reg_sa_i ? valid_q : sw_valid_i;
    assign out_flit_o  = reg_sa_i ? flit_q : sw_flit_i;
  end else begin : gen_st_comb
    logic unused_reg_sa;  // always 0 here (P = 1 only)
    assign unused_reg_sa = reg_sa_i;
    assign out_valid_o = sw_valid_i;
    assign out_flit_o  = sw_flit_i;
  end

`ifndef SYNTHESIS
  assert property (@(posedge clk_i) disable iff (!rst_ni) cr_in_i.valid |-> cr_vc_ok)
    else $error("output port %0d: credit for nonexistent vc %0d", PORT, cr_in_i.vc);
  assert property (@(posedge clk_i) disable iff (!rst_ni) sw_valid_i |-> sw_vc_ok)
    else $error("output port %0d: flit switched to nonexistent vc %0d", PORT, sw_flit_i.vc);
`endif

endmodule
