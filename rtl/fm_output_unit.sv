// One router output port: per output VC the credit counter (free slots in the
// downstream input buffer, B after reset) and whether it is free or allocated to a
// packet; and the switch traversal stage, which puts the flit granted by switch
// allocation in cycle c on the output link in cycle c + regSA.
//
// Credits (docs/router-microarchitecture.md "The cycle", step 1): a credit arriving in
// cycle t counts for switch allocation in cycle t. A counter that would go above B stays
// at B (the model's monitor clamps it too) and fails an assertion.
// Free: a VA grant in cycle t allocates the VC from t + 1 (VA reads the state at the
// start of the cycle); a tail switched in cycle t frees it from t + 1.
module fm_output_unit #(
  /// Virtual channels per port.
  parameter int unsigned NUM_VCS   = fm_pkg::DefaultNumVcs,
  /// Flits per downstream VC buffer (initial credit count).
  parameter int unsigned BUF_DEPTH = fm_pkg::DefaultBufDepth,
  /// Pipeline depth 1..4 (gives regSA).
  parameter int unsigned PIPELINE  = fm_pkg::DefaultPipeline,
  /// Number of this output port (assertion messages only).
  parameter int unsigned PORT      = 0
) (
  input  logic                clk_i,
  input  logic                rst_ni,
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

  localparam bit          RegSa = fm_pkg::reg_sa(PIPELINE);
  localparam int unsigned CntW  = fm_pkg::idx_width(BUF_DEPTH + 1);
  localparam int unsigned VcIdxW = fm_pkg::idx_width(NUM_VCS);
  localparam logic [CntW-1:0] Full = CntW'(BUF_DEPTH);

  logic              cr_vc_ok, sw_vc_ok;
  logic [VcIdxW-1:0] cr_vc, sw_vc;
  assign cr_vc_ok = 32'(cr_in_i.vc) < NUM_VCS;
  assign cr_vc    = cr_in_i.vc[VcIdxW-1:0];
  assign sw_vc_ok = 32'(sw_flit_i.vc) < NUM_VCS;
  assign sw_vc    = sw_flit_i.vc[VcIdxW-1:0];

  for (genvar w = 0; w < NUM_VCS; w++) begin : gen_vc
    logic [CntW-1:0] credits_q, credits_d, credits_now;
    logic            free_q, free_d;
    logic            inc, dec, release_vc;
    assign inc = cr_in_i.valid && cr_vc_ok && (cr_vc == VcIdxW'(w));
    assign dec = sw_valid_i && sw_vc_ok && (sw_vc == VcIdxW'(w));
    assign release_vc = dec && sw_flit_i.data.kind[fm_pkg::KindTailBit];
    // Counter after this cycle's credit, clamped at B.
    assign credits_now = (inc && credits_q != Full) ? credits_q + 1'b1 : credits_q;
    assign credits_d   = dec ? credits_now - 1'b1 : credits_now;
    assign free_d      = (free_q && !alloc_i[w]) || release_vc;
    assign has_credit_o[w] = (credits_now != '0);
    assign free_o[w] = free_q;

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        credits_q <= Full;
        free_q    <= 1'b1;
      end else begin
        credits_q <= credits_d;
        free_q    <= free_d;
      end
    end

`ifndef SYNTHESIS
    assert property (@(posedge clk_i) disable iff (!rst_ni) inc |-> (credits_q != Full))
      else $error("output port %0d vc %0d: credit counter above buffer depth %0d", PORT, w,
                  BUF_DEPTH);
    assert property (@(posedge clk_i) disable iff (!rst_ni) credits_q <= Full)
      else $error("output port %0d vc %0d: credit counter %0d above buffer depth %0d", PORT, w,
                  credits_q, BUF_DEPTH);
    assert property (@(posedge clk_i) disable iff (!rst_ni) alloc_i[w] |-> free_q)
      else $error("output port %0d vc %0d: allocated while not free", PORT, w);
    // Allocated before this cycle, or by VA in this cycle (regVA = 0: VA and SA together).
    assert property (@(posedge clk_i) disable iff (!rst_ni)
                     dec |-> ((!free_q || alloc_i[w]) && credits_now != '0))
      else $error("output port %0d vc %0d: flit switched without allocation or credit", PORT, w);
`endif
  end

  // Switch traversal: the output link sees the granted flit now (regSA = 0) or next cycle.
  if (RegSa) begin : gen_st_reg
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
    assign out_valid_o = valid_q;
    assign out_flit_o  = flit_q;
  end else begin : gen_st_comb
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
