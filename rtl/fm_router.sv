// fm_router: the faultmesh virtual-channel router (docs/router-microarchitecture.md),
// cycle-exact with the SystemC model Router (models/noc/router.{h,cpp}): 5 ports
// (N E S W L), V VCs per port with B-flit buffers, wormhole switching, credit flow
// control, table routing, separable input-first VC and switch allocation with
// round-robin or iSLIP pointer rules, and a P-cycle pipeline (1..4).
//
// Run-time configuration: V, B, P and the pointer rule are static configuration inputs,
// so one build covers many router configurations (the co-simulation matrix uses one
// build with NUM_VCS = 4, BUF_DEPTH = 8, PIPELINE = 4). The parameters NUM_VCS,
// BUF_DEPTH and PIPELINE are the upper bounds the hardware is built for:
//   cfg_vcs_i[4:0]       V, 1..NUM_VCS        (the model's NetworkConfig::vcs)
//   cfg_buf_i[12:0]      B, 1..BUF_DEPTH      (NetworkConfig::buf)
//   cfg_pipeline_i[2:0]  P, 1..PIPELINE       (NetworkConfig::pipeline)
//   cfg_islip_i          0 round-robin, 1 iSLIP (NetworkConfig::arbiter)
// They are sampled at every rising clock edge while rst_ni is low (at least one edge in
// reset is needed) and held while rst_ni is high: change them only in reset. A value out
// of range fails an assertion after reset and the router then runs with V = NUM_VCS,
// B = BUF_DEPTH, P = PIPELINE. With (V, B, P) the router behaves exactly as one built
// for them: VCs >= V do not exist (a flit or credit naming one is dropped and asserted),
// each VC buffer holds at most B flits and each output VC starts with B credits, and
// regRC / regVA / regSA follow P (a register that P does not use is bypassed; one that
// PIPELINE rules out is not built). rtl/NOTES.md "Run-time configuration" has the details.
//
// One clock cycle is one model cycle t:
//   inputs   the flit arriving on each input port in cycle t (the model's
//            Link::receive(t)) and the credit arriving for each output port in cycle t;
//   outputs  the flit departing on each output port in cycle t (granted by switch
//            allocation in cycle t - regSA: combinational from this cycle's inputs when
//            regSA = 0, i.e. P = 1) and the credit sent upstream on each input
//            port in cycle t (combinational: sent in the cycle its flit wins switch
//            allocation);
//   state    updated at the rising edge ending cycle t.
// Pipeline registers: regRC = (P >= 3), regVA = (P >= 4), regSA = (P >= 2).
// Reset (rst_ni low, asynchronous): every VC idle and empty, every output VC free with
// B credits, every pointer 0, every route entry {port L, mask 0}.
//
// Ports (every port 64 bits or narrower, no unpacked arrays, for Verilator's SystemC
// wrapper), for each router port <p> in n, e, s, w, l (numbers 0..4):
//   in_<p>_valid_i          a flit arrives on input port <p> this cycle
//   in_<p>_payload_i[63:0]  its payload
//   in_<p>_meta_i[63:0]     {packet[31:0], src[15:0], dst[15:0]}
//   in_<p>_ctl_i[21:0]      {seq[15:0], kind[1:0] (bit 0 head, bit 1 tail), vc[3:0]}
//   out_<p>_valid_o, out_<p>_payload_o, out_<p>_meta_o, out_<p>_ctl_o
//                           the flit departing on output port <p> this cycle, same
//                           layout; vc is the output VC (fields meaningful only when valid)
//   cr_in_<p>_valid_i, cr_in_<p>_vc_i[3:0]
//                           a credit arriving this cycle for output port <p>, VC vc
//   cr_out_<p>_valid_o, cr_out_<p>_vc_o[3:0]
//                           a credit sent upstream on input port <p> this cycle, VC vc
// Route table register write port (the entry is used from the next cycle on):
//   tbl_we_i                write this cycle
//   tbl_addr_i[15:0]        destination chip id (< NUM_DESTS)
//   tbl_data_i[23:0]        {vc_mask[15:0], port[7:0]} (fm_pkg::route_word_t; port 0..4
//                           with a mask within the V VCs, or 255 = no route)
// Flits of the whole router are fm_pkg::flit_t = {payload, meta, ctl} (150 bits).
//
// Simulation-only checks (`ifndef SYNTHESIS, run by Verilator with --assert): credit
// counter above B, write into a full VC buffer, head into a VC whose previous
// packet has not seen its tail, body flit with no open packet, route naming a port
// outside 0..4 or an empty VC mask, flit or credit on a nonexistent VC, bad table writes,
// configuration inputs out of range.
//
// Bug injection for the co-simulation tests (both off unless defined):
//   FM_BUG_RR_STUCK      switch allocation output pointers never advance (fm_sw_alloc)
//   FM_BUG_LOSE_CREDIT   the first credit returned on input port 0 (N) is never sent
module fm_router #(
  /// Most virtual channels per port (bound of cfg_vcs_i), 1..16.
  parameter int unsigned NUM_VCS   = fm_pkg::DefaultNumVcs,
  /// Slots per VC buffer (bound of cfg_buf_i), 1..256.
  parameter int unsigned BUF_DEPTH = fm_pkg::DefaultBufDepth,
  /// Deepest pipeline (bound of cfg_pipeline_i), 1..4: which pipeline registers exist.
  parameter int unsigned PIPELINE  = fm_pkg::DefaultPipeline,
  /// Route table entries (destination chips), 1..65536.
  parameter int unsigned NUM_DESTS = fm_pkg::DefaultNumDests
) (
  input  logic                          clk_i,
  // rst_ni is the asynchronous reset of every flop; the simulation-only assertions also
  // read it synchronously (disable iff), which is no flop, so SYNCASYNCNET is waived.
  /* verilator lint_off SYNCASYNCNET */
  input  logic                          rst_ni,
  /* verilator lint_on SYNCASYNCNET */
  // Run-time configuration (see above): sampled in reset, held after it.
  input  logic [fm_pkg::CfgVcsW-1:0]    cfg_vcs_i,
  input  logic [fm_pkg::CfgBufW-1:0]    cfg_buf_i,
  input  logic [fm_pkg::CfgPipeW-1:0]   cfg_pipeline_i,
  input  logic                          cfg_islip_i,
  input  logic                          in_n_valid_i,
  input  logic [fm_pkg::PayloadW-1:0]   in_n_payload_i,
  input  logic [fm_pkg::MetaW-1:0]      in_n_meta_i,
  input  logic [fm_pkg::CtlW-1:0]       in_n_ctl_i,
  input  logic                          in_e_valid_i,
  input  logic [fm_pkg::PayloadW-1:0]   in_e_payload_i,
  input  logic [fm_pkg::MetaW-1:0]      in_e_meta_i,
  input  logic [fm_pkg::CtlW-1:0]       in_e_ctl_i,
  input  logic                          in_s_valid_i,
  input  logic [fm_pkg::PayloadW-1:0]   in_s_payload_i,
  input  logic [fm_pkg::MetaW-1:0]      in_s_meta_i,
  input  logic [fm_pkg::CtlW-1:0]       in_s_ctl_i,
  input  logic                          in_w_valid_i,
  input  logic [fm_pkg::PayloadW-1:0]   in_w_payload_i,
  input  logic [fm_pkg::MetaW-1:0]      in_w_meta_i,
  input  logic [fm_pkg::CtlW-1:0]       in_w_ctl_i,
  input  logic                          in_l_valid_i,
  input  logic [fm_pkg::PayloadW-1:0]   in_l_payload_i,
  input  logic [fm_pkg::MetaW-1:0]      in_l_meta_i,
  input  logic [fm_pkg::CtlW-1:0]       in_l_ctl_i,
  output logic                          out_n_valid_o,
  output logic [fm_pkg::PayloadW-1:0]   out_n_payload_o,
  output logic [fm_pkg::MetaW-1:0]      out_n_meta_o,
  output logic [fm_pkg::CtlW-1:0]       out_n_ctl_o,
  output logic                          out_e_valid_o,
  output logic [fm_pkg::PayloadW-1:0]   out_e_payload_o,
  output logic [fm_pkg::MetaW-1:0]      out_e_meta_o,
  output logic [fm_pkg::CtlW-1:0]       out_e_ctl_o,
  output logic                          out_s_valid_o,
  output logic [fm_pkg::PayloadW-1:0]   out_s_payload_o,
  output logic [fm_pkg::MetaW-1:0]      out_s_meta_o,
  output logic [fm_pkg::CtlW-1:0]       out_s_ctl_o,
  output logic                          out_w_valid_o,
  output logic [fm_pkg::PayloadW-1:0]   out_w_payload_o,
  output logic [fm_pkg::MetaW-1:0]      out_w_meta_o,
  output logic [fm_pkg::CtlW-1:0]       out_w_ctl_o,
  output logic                          out_l_valid_o,
  output logic [fm_pkg::PayloadW-1:0]   out_l_payload_o,
  output logic [fm_pkg::MetaW-1:0]      out_l_meta_o,
  output logic [fm_pkg::CtlW-1:0]       out_l_ctl_o,
  input  logic                          cr_in_n_valid_i,
  input  logic [fm_pkg::VcW-1:0]        cr_in_n_vc_i,
  input  logic                          cr_in_e_valid_i,
  input  logic [fm_pkg::VcW-1:0]        cr_in_e_vc_i,
  input  logic                          cr_in_s_valid_i,
  input  logic [fm_pkg::VcW-1:0]        cr_in_s_vc_i,
  input  logic                          cr_in_w_valid_i,
  input  logic [fm_pkg::VcW-1:0]        cr_in_w_vc_i,
  input  logic                          cr_in_l_valid_i,
  input  logic [fm_pkg::VcW-1:0]        cr_in_l_vc_i,
  output logic                          cr_out_n_valid_o,
  output logic [fm_pkg::VcW-1:0]        cr_out_n_vc_o,
  output logic                          cr_out_e_valid_o,
  output logic [fm_pkg::VcW-1:0]        cr_out_e_vc_o,
  output logic                          cr_out_s_valid_o,
  output logic [fm_pkg::VcW-1:0]        cr_out_s_vc_o,
  output logic                          cr_out_w_valid_o,
  output logic [fm_pkg::VcW-1:0]        cr_out_w_vc_o,
  output logic                          cr_out_l_valid_o,
  output logic [fm_pkg::VcW-1:0]        cr_out_l_vc_o,
  input  logic                          tbl_we_i,
  input  logic [fm_pkg::ChipW-1:0]      tbl_addr_i,
  input  logic [fm_pkg::TblWordW-1:0]   tbl_data_i
);

  import fm_pkg::*;

  localparam int unsigned VcIdxW  = idx_width(NUM_VCS);
  localparam int unsigned VcCntW  = idx_width(NUM_VCS + 1);
  localparam int unsigned BufCntW = idx_width(BUF_DEPTH + 1);

  // ---------------------------------------------------------------- parameter checks
  if (NUM_VCS < 1 || NUM_VCS > MaxVcs) begin : gen_bad_num_vcs
    $fatal(1, "fm_router: NUM_VCS = %0d, allowed 1..%0d", NUM_VCS, MaxVcs);
  end
  if (BUF_DEPTH < 1 || BUF_DEPTH > MaxBufDepth) begin : gen_bad_buf_depth
    $fatal(1, "fm_router: BUF_DEPTH = %0d, allowed 1..%0d", BUF_DEPTH, MaxBufDepth);
  end
  if (PIPELINE < 1 || PIPELINE > MaxPipeline) begin : gen_bad_pipeline
    $fatal(1, "fm_router: PIPELINE = %0d, allowed 1..%0d", PIPELINE, MaxPipeline);
  end
  if (NUM_DESTS < 1 || NUM_DESTS > MaxNumDests) begin : gen_bad_num_dests
    $fatal(1, "fm_router: NUM_DESTS = %0d, allowed 1..%0d", NUM_DESTS, MaxNumDests);
  end
  // The declared route word layout (what the model's route_word() is checked against)
  // is the struct's.
  if ($bits(route_word_t) != TblWordW || RoutePortLsb != 0 || RouteMaskLsb != RoutePortBits ||
      RouteMaskLsb + RouteMaskBits != TblWordW) begin : gen_bad_route_word
    $fatal(1, "fm_router: route_word_t does not have the declared layout");
  end

  // ---------------------------------------------------------------- run-time configuration
  // Sampled at each rising edge in reset (synchronously: the values are not constants, so
  // they cannot be asynchronous reset values), held from the release of reset on.
  logic               cfg_ok, cfg_ok_q;
  logic [VcCntW-1:0]  vcs_q;
  logic [BufCntW-1:0] buf_q;
  logic               reg_rc_q, reg_va_q, reg_sa_q, islip_q;
  assign cfg_ok = cfg_vcs_i >= CfgVcsW'(1) && 32'(cfg_vcs_i) <= NUM_VCS &&
                  cfg_buf_i >= CfgBufW'(1) && 32'(cfg_buf_i) <= BUF_DEPTH &&
                  cfg_pipeline_i >= CfgPipeW'(1) && 32'(cfg_pipeline_i) <= PIPELINE;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      cfg_ok_q <= cfg_ok;
      vcs_q    <= cfg_ok ? VcCntW'(cfg_vcs_i) : VcCntW'(NUM_VCS);
      buf_q    <= cfg_ok ? BufCntW'(cfg_buf_i) : BufCntW'(BUF_DEPTH);
      // A register is used only if it exists (P <= PIPELINE when cfg_ok).
      reg_rc_q <= reg_rc(PIPELINE) && (!cfg_ok || reg_rc(32'(cfg_pipeline_i)));
      reg_va_q <= reg_va(PIPELINE) && (!cfg_ok || reg_va(32'(cfg_pipeline_i)));
      reg_sa_q <= reg_sa(PIPELINE) && (!cfg_ok || reg_sa(32'(cfg_pipeline_i)));
      islip_q  <= cfg_islip_i;
    end
  end
`ifndef SYNTHESIS
  assert property (@(posedge clk_i) disable iff (!rst_ni) cfg_ok_q)
    else $error({"fm_router: configuration inputs out of range in reset (V 1..%0d, ",
                 "B 1..%0d, P 1..%0d); running with V = %0d, B = %0d, P = %0d"},
                NUM_VCS, BUF_DEPTH, PIPELINE, NUM_VCS, BUF_DEPTH, PIPELINE);
`endif

  // ---------------------------------------------------------------- ports as arrays
  logic      [NumPorts-1:0] in_valid;
  flit_t     [NumPorts-1:0] in_flit;
  credit_t   [NumPorts-1:0] cr_in;
  logic      [NumPorts-1:0] out_valid;
  flit_t     [NumPorts-1:0] out_flit;
  credit_t   [NumPorts-1:0] cr_out;

  assign in_valid[0] = in_n_valid_i;
  assign in_flit[0]  = {in_n_payload_i, in_n_meta_i, in_n_ctl_i};
  assign cr_in[0]    = {cr_in_n_valid_i, cr_in_n_vc_i};
  assign out_n_valid_o = out_valid[0];
  assign {out_n_payload_o, out_n_meta_o, out_n_ctl_o} = out_flit[0];
  assign {cr_out_n_valid_o, cr_out_n_vc_o} = cr_out[0];
  assign in_valid[1] = in_e_valid_i;
  assign in_flit[1]  = {in_e_payload_i, in_e_meta_i, in_e_ctl_i};
  assign cr_in[1]    = {cr_in_e_valid_i, cr_in_e_vc_i};
  assign out_e_valid_o = out_valid[1];
  assign {out_e_payload_o, out_e_meta_o, out_e_ctl_o} = out_flit[1];
  assign {cr_out_e_valid_o, cr_out_e_vc_o} = cr_out[1];
  assign in_valid[2] = in_s_valid_i;
  assign in_flit[2]  = {in_s_payload_i, in_s_meta_i, in_s_ctl_i};
  assign cr_in[2]    = {cr_in_s_valid_i, cr_in_s_vc_i};
  assign out_s_valid_o = out_valid[2];
  assign {out_s_payload_o, out_s_meta_o, out_s_ctl_o} = out_flit[2];
  assign {cr_out_s_valid_o, cr_out_s_vc_o} = cr_out[2];
  assign in_valid[3] = in_w_valid_i;
  assign in_flit[3]  = {in_w_payload_i, in_w_meta_i, in_w_ctl_i};
  assign cr_in[3]    = {cr_in_w_valid_i, cr_in_w_vc_i};
  assign out_w_valid_o = out_valid[3];
  assign {out_w_payload_o, out_w_meta_o, out_w_ctl_o} = out_flit[3];
  assign {cr_out_w_valid_o, cr_out_w_vc_o} = cr_out[3];
  assign in_valid[4] = in_l_valid_i;
  assign in_flit[4]  = {in_l_payload_i, in_l_meta_i, in_l_ctl_i};
  assign cr_in[4]    = {cr_in_l_valid_i, cr_in_l_vc_i};
  assign out_l_valid_o = out_valid[4];
  assign {out_l_payload_o, out_l_meta_o, out_l_ctl_o} = out_flit[4];
  assign {cr_out_l_valid_o, cr_out_l_vc_o} = cr_out[4];

  // ---------------------------------------------------------------- route table (RC)
  logic [NumPorts-1:0][ChipW-1:0]   rc_addr;
  logic [NumPorts-1:0][PortW-1:0]   rc_port;
  logic [NumPorts-1:0][NUM_VCS-1:0] rc_mask;

  for (genvar p = 0; p < NumPorts; p++) begin : gen_rc_addr
    assign rc_addr[p] = in_flit[p].data.dst;
  end

  fm_route_table #(
    .NUM_VCS   (NUM_VCS),
    .NUM_DESTS (NUM_DESTS),
    .NUM_READ  (NumPorts)
  ) i_route_table (
    .clk_i,
    .rst_ni,
    .vcs_i   (vcs_q),
    .we_i    (tbl_we_i),
    .waddr_i (tbl_addr_i),
    .wdata_i (route_word_t'(tbl_data_i)),
    .raddr_i (rc_addr),
    .rport_o (rc_port),
    .rmask_o (rc_mask)
  );

  // ---------------------------------------------------------------- input units (BW)
  flit_data_t [NumPorts-1:0][NUM_VCS-1:0]              front_data;
  logic       [NumPorts-1:0][NUM_VCS-1:0][PortW-1:0]   front_port;
  logic       [NumPorts-1:0][NUM_VCS-1:0][NUM_VCS-1:0] front_mask;
  logic       [NumPorts-1:0][NUM_VCS-1:0]              va_req, va_gnt;
  logic       [NumPorts-1:0][NUM_VCS-1:0][VcIdxW-1:0]  va_gnt_vc;
  logic       [NumPorts-1:0][NUM_VCS-1:0]              sa_req, sa_elig;
  logic       [NumPorts-1:0][NUM_VCS-1:0][PortW-1:0]   hold_port;  // output VC held (or
  logic       [NumPorts-1:0][NUM_VCS-1:0][VcIdxW-1:0]  hold_vc;    // granted this cycle)
  logic       [NumPorts-1:0][VcIdxW-1:0]               sa_in_vc;
  logic       [NumPorts-1:0]                           sa_in_gnt;
  credit_t    [NumPorts-1:0]                           credit;

  for (genvar p = 0; p < NumPorts; p++) begin : gen_in
    fm_input_unit #(
      .NUM_VCS   (NUM_VCS),
      .BUF_DEPTH (BUF_DEPTH),
      .PORT      (p)
    ) i_input_unit (
      .clk_i,
      .rst_ni,
      .vcs_i           (vcs_q),
      .buf_depth_i     (buf_q),
      .reg_rc_i        (reg_rc_q),
      .reg_va_i        (reg_va_q),
      .in_valid_i      (in_valid[p]),
      .in_flit_i       (in_flit[p]),
      .in_route_port_i (rc_port[p]),
      .in_route_mask_i (rc_mask[p]),
      .front_data_o    (front_data[p]),
      .front_port_o    (front_port[p]),
      .front_mask_o    (front_mask[p]),
      .va_req_o        (va_req[p]),
      .va_gnt_i        (va_gnt[p]),
      .va_gnt_vc_i     (va_gnt_vc[p]),
      .sa_req_o        (sa_req[p]),
      .out_port_o      (hold_port[p]),
      .out_vc_o        (hold_vc[p]),
      .pop_i           (sa_in_gnt[p]),
      .pop_vc_i        (sa_in_vc[p]),
      .credit_o        (credit[p])
    );
  end

  // ---------------------------------------------------------------- output units
  logic  [NumPorts-1:0][NUM_VCS-1:0] has_credit, ovc_free, ovc_alloc;
  logic  [NumPorts-1:0]              sw_valid;
  flit_t [NumPorts-1:0]              sw_flit;

  for (genvar o = 0; o < NumPorts; o++) begin : gen_out
    fm_output_unit #(
      .NUM_VCS   (NUM_VCS),
      .BUF_DEPTH (BUF_DEPTH),
      .PIPELINE  (PIPELINE),
      .PORT      (o)
    ) i_output_unit (
      .clk_i,
      .rst_ni,
      .vcs_i        (vcs_q),
      .buf_depth_i  (buf_q),
      .reg_sa_i     (reg_sa_q),
      .cr_in_i      (cr_in[o]),
      .has_credit_o (has_credit[o]),
      .free_o       (ovc_free[o]),
      .alloc_i      (ovc_alloc[o]),
      .sw_valid_i   (sw_valid[o]),
      .sw_flit_i    (sw_flit[o]),
      .out_valid_o  (out_valid[o]),
      .out_flit_o   (out_flit[o])
    );
  end

  // ---------------------------------------------------------------- VC allocation
  fm_vc_alloc #(
    .NUM_VCS (NUM_VCS)
  ) i_vc_alloc (
    .clk_i,
    .rst_ni,
    .vcs_i      (vcs_q),
    .islip_i    (islip_q),
    .req_i      (va_req),
    .req_port_i (front_port),
    .req_mask_i (front_mask),
    .free_i     (ovc_free),
    .gnt_o      (va_gnt),
    .gnt_vc_o   (va_gnt_vc),
    .alloc_o    (ovc_alloc)
  );

  // ---------------------------------------------------------------- switch allocation
  // Eligible: past VA (sa_req) and the output VC it holds has a credit this cycle.
  for (genvar p = 0; p < NumPorts; p++) begin : gen_elig
    for (genvar v = 0; v < NUM_VCS; v++) begin : gen_vc
      assign sa_elig[p][v] = sa_req[p][v] &&
                             (hold_port[p][v] < PortW'(NumPorts)) &&
                             has_credit[hold_port[p][v]][hold_vc[p][v]];
    end
  end

  logic [NumPorts-1:0]            sa_out_gnt;
  logic [NumPorts-1:0][PortW-1:0] sa_out_port;

  fm_sw_alloc #(
    .NUM_VCS (NUM_VCS)
  ) i_sw_alloc (
    .clk_i,
    .rst_ni,
    .vcs_i      (vcs_q),
    .islip_i    (islip_q),
    .elig_i     (sa_elig),
    .out_port_i (hold_port),
    .in_vc_o    (sa_in_vc),
    .in_gnt_o   (sa_in_gnt),
    .out_gnt_o  (sa_out_gnt),
    .out_port_o (sa_out_port)
  );

  // ---------------------------------------------------------------- crossbar (ST)
  // The front flit of each input port's picked VC, relabelled with its output VC.
  flit_t [NumPorts-1:0] xb_flit;
  for (genvar p = 0; p < NumPorts; p++) begin : gen_xb_in
    assign xb_flit[p].data = front_data[p][sa_in_vc[p]];
    assign xb_flit[p].vc   = VcW'(hold_vc[p][sa_in_vc[p]]);
  end
  for (genvar o = 0; o < NumPorts; o++) begin : gen_xb_out
    assign sw_valid[o] = sa_out_gnt[o];
    assign sw_flit[o]  = (sa_out_port[o] < PortW'(NumPorts)) ? xb_flit[sa_out_port[o]] : '0;
  end

  // ---------------------------------------------------------------- credits upstream
  // A credit leaves input port p in the cycle its flit wins switch allocation.
`ifdef FM_BUG_LOSE_CREDIT
  // Injected bug: the first credit of input port 0 is swallowed.
  logic lost_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni)              lost_q <= 1'b0;
    else if (credit[0].valid) lost_q <= 1'b1;
  end
  assign cr_out[0] = '{valid: credit[0].valid && lost_q, vc: credit[0].vc};
  for (genvar p = 1; p < NumPorts; p++) begin : gen_cr_out
    assign cr_out[p] = credit[p];
  end
`else
  assign cr_out = credit;
`endif

endmodule
