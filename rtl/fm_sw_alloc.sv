// Separable input-first switch allocator (docs/router-microarchitecture.md "The cycle",
// step 4; Router::switch_allocate in models/noc/router.cpp).
//
// Stage 1, per input port p: among its eligible VCs pick the first at or after
// sa_in_ptr[p]; it requests the output port its packet holds.
// Stage 2, per output port o: grant the requesting input port first at or after
// sa_out_ptr[o]; sa_out_ptr[o] = p + 1 (mod 5) on every grant.
// sa_in_ptr[p]: round-robin (islip_i = 0) = picked VC + 1 (mod vcs_i) whenever stage 1
// picks; iSLIP (islip_i = 1) = picked VC + 1 (mod vcs_i) only when stage 2 grants it.
// The run-time VC count vcs_i (<= NUM_VCS) only sets where sa_in_ptr wraps: VCs >= vcs_i
// never become eligible, so they take no part otherwise.
//
// Bug injection (co-simulation must catch it): FM_BUG_RR_STUCK leaves sa_out_ptr where
// it is after a grant.
module fm_sw_alloc #(
  /// Most virtual channels per port (the hardware's).
  parameter int unsigned NUM_VCS = fm_pkg::DefaultNumVcs,
  localparam int unsigned NumPorts = fm_pkg::NumPorts,
  localparam int unsigned VcIdxW   = fm_pkg::idx_width(NUM_VCS),
  localparam int unsigned VcCntW   = fm_pkg::idx_width(NUM_VCS + 1)
) (
  input  logic                                          clk_i,
  input  logic                                          rst_ni,
  /// Run-time configuration (static after reset): VCs in use 1..NUM_VCS, pointer rule.
  input  logic [VcCntW-1:0]                             vcs_i,
  input  logic                                          islip_i,
  /// Per input port and VC: may bid (ACTIVE, front flit ready, output VC has a credit).
  input  logic [NumPorts-1:0][NUM_VCS-1:0]              elig_i,
  /// Per input port and VC: the output port its packet holds.
  input  logic [NumPorts-1:0][NUM_VCS-1:0][fm_pkg::PortW-1:0] out_port_i,
  /// Per input port: the VC picked by stage 1 (meaningful when in_gnt_o).
  output logic [NumPorts-1:0][VcIdxW-1:0]               in_vc_o,
  /// Per input port: its picked VC won an output port this cycle.
  output logic [NumPorts-1:0]                           in_gnt_o,
  /// Per output port: some input port was granted, and which one.
  output logic [NumPorts-1:0]                           out_gnt_o,
  output logic [NumPorts-1:0][fm_pkg::PortW-1:0]        out_port_o
);

  // ---------------------------------------------------------------- stage 1 (per input)
  logic [NumPorts-1:0]                      pick_valid;
  logic [NumPorts-1:0][fm_pkg::PortW-1:0]   pick_port;
  logic [NumPorts-1:0][VcIdxW-1:0]          sa_in_ptr_q, sa_in_ptr_d;

  for (genvar p = 0; p < NumPorts; p++) begin : gen_in
    logic [NUM_VCS-1:0] pick_onehot;
    fm_rr_arbiter #(
      .N (NUM_VCS)
    ) i_arb (
      .req_i       (elig_i[p]),
      .ptr_i       (sa_in_ptr_q[p]),
      .gnt_valid_o (pick_valid[p]),
      .gnt_o       (pick_onehot),
      .gnt_idx_o   (in_vc_o[p])
    );
    // Output port of the picked VC (an AND-OR mux over the one-hot pick).
    always_comb begin
      pick_port[p] = '0;
      for (int unsigned v = 0; v < NUM_VCS; v++) begin
        if (pick_onehot[v]) pick_port[p] = pick_port[p] | out_port_i[p][v];
      end
    end
  end

  // ---------------------------------------------------------------- stage 2 (per output)
  logic [NumPorts-1:0][NumPorts-1:0]        want;   // [output][input]
  logic [NumPorts-1:0][NumPorts-1:0]        gnt;    // [output][input], one-hot per output
  logic [NumPorts-1:0][fm_pkg::PortW-1:0]   sa_out_ptr_q, sa_out_ptr_d;

  for (genvar o = 0; o < NumPorts; o++) begin : gen_out
    for (genvar p = 0; p < NumPorts; p++) begin : gen_want
      assign want[o][p] = pick_valid[p] && (pick_port[p] == fm_pkg::PortW'(o));
    end
    fm_rr_arbiter #(
      .N (NumPorts)
    ) i_arb (
      .req_i       (want[o]),
      .ptr_i       (sa_out_ptr_q[o]),
      .gnt_valid_o (out_gnt_o[o]),
      .gnt_o       (gnt[o]),
      .gnt_idx_o   (out_port_o[o])
    );
`ifdef FM_BUG_RR_STUCK
    // Injected bug: the output pointer never moves.
    assign sa_out_ptr_d[o] = sa_out_ptr_q[o];
`else
    assign sa_out_ptr_d[o] = !out_gnt_o[o] ? sa_out_ptr_q[o] :
                             (out_port_o[o] == fm_pkg::PortW'(NumPorts - 1)) ? '0 :
                             out_port_o[o] + 1'b1;
`endif
  end

  // ---------------------------------------------------------------- grants and sa_in_ptr
  logic [VcIdxW-1:0] last_vc;  // highest VC in use
  assign last_vc = VcIdxW'(vcs_i - 1'b1);
  for (genvar p = 0; p < NumPorts; p++) begin : gen_gnt
    logic [NumPorts-1:0] gnt_col;  // grants of every output to input p (at most one)
    for (genvar o = 0; o < NumPorts; o++) begin : gen_col
      assign gnt_col[o] = gnt[o][p];
    end
    assign in_gnt_o[p] = |gnt_col;
    logic move;
    assign move = islip_i ? in_gnt_o[p] : pick_valid[p];
    assign sa_in_ptr_d[p] = !move ? sa_in_ptr_q[p] :
                            (in_vc_o[p] == last_vc) ? '0 : in_vc_o[p] + 1'b1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sa_in_ptr_q  <= '0;
      sa_out_ptr_q <= '0;
    end else begin
      sa_in_ptr_q  <= sa_in_ptr_d;
      sa_out_ptr_q <= sa_out_ptr_d;
    end
  end

endmodule
