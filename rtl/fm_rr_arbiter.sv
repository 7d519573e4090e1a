// Round-robin pick: the first request at or after a pointer, cyclically over 0..N-1
// (rr_pick() in models/noc/router.cpp for the VA stage 1 and SA arbiters; the smallest
// cyclic distance from the pointer in the VA stage 2 arbiter, which is the same rule).
// Purely combinational: the pointer is kept, and moved, by the allocator that owns it,
// because the round-robin and iSLIP rules move it at different times.
module fm_rr_arbiter #(
  /// Number of requesters.
  parameter int unsigned N = 4,
  /// Width of a requester index.
  localparam int unsigned IdxW = fm_pkg::idx_width(N)
) (
  /// One bit per requester.
  input  logic [N-1:0]    req_i,
  /// Requester with the highest priority this cycle (< N).
  input  logic [IdxW-1:0] ptr_i,
  /// Some request is granted.
  output logic            gnt_valid_o,
  /// One-hot grant (all zero when no request).
  output logic [N-1:0]    gnt_o,
  /// Index of the granted requester (0 when no request).
  output logic [IdxW-1:0] gnt_idx_o
);

  logic [N-1:0] req_hi;  // requests at or after the pointer
  logic [N-1:0] req_sel; // the half that wins: at/after the pointer if any, else all

  always_comb begin
    for (int unsigned i = 0; i < N; i++) begin
      req_hi[i] = req_i[i] && (IdxW'(i) >= ptr_i);
    end
    req_sel = (|req_hi) ? req_hi : req_i;
    gnt_o = '0;
    gnt_idx_o = '0;
    // Lowest set bit of req_sel: scan downwards so the lowest one is written last.
    for (int i = int'(N) - 1; i >= 0; i--) begin
      if (req_sel[i]) begin
        gnt_o = '0;
        gnt_o[i] = 1'b1;
        gnt_idx_o = IdxW'(i);
      end
    end
  end

  assign gnt_valid_o = |req_i;

endmodule
