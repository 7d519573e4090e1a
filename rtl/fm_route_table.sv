// Route table: one entry per destination chip, {port, vc_mask}, written through a
// register port and read by every input port in the cycle a head flit arrives (RC at
// buffer write, docs/router-microarchitecture.md "Pipeline").
//
// Write: the word {vc_mask[15:0], port[7:0]} (fm_pkg::route_word_t) at `we_i` is stored
// at the clock edge ending the cycle, so a lookup in the same cycle still sees the old
// entry (in the model the table is loaded between cycles, before any flit uses it). The
// port byte fm_pkg::NoRoutePort (the model's kNoRoute) is stored as port code PortNone:
// a lookup returns it and the input unit drops a head flit with that route.
// Read: combinational, one port per router input. An address outside 0..NUM_DESTS-1
// reads {port L, mask 0} (the model's default RouteEntry; in the model it is an
// out-of-bounds read) and fails an assertion when a head flit uses it.
// Reset: every entry becomes {port L, mask 0}, the model's default RouteEntry.
// The stored mask has NUM_VCS bits (the hardware's VCs); a write with a port must name a
// non-empty subset of the vcs_i VCs in use (asserted), so masks never select a VC >= vcs_i.
// The assertions are the model's route_entry_fault() rule (models/route_table.h).
module fm_route_table #(
  /// Most virtual channels per port (bits of the stored mask).
  parameter int unsigned NUM_VCS   = fm_pkg::DefaultNumVcs,
  /// Entries (destination chips).
  parameter int unsigned NUM_DESTS = fm_pkg::DefaultNumDests,
  /// Read ports.
  parameter int unsigned NUM_READ  = fm_pkg::NumPorts,
  localparam int unsigned VcCntW   = fm_pkg::idx_width(NUM_VCS + 1)
) (
  input  logic                                       clk_i,
  input  logic                                       rst_ni,
  /// VCs in use (run-time configuration, 1..NUM_VCS): only checked by the assertions.
  input  logic [VcCntW-1:0]                          vcs_i,
  /// Write the entry for destination `waddr_i` with `wdata_i` at the end of this cycle.
  input  logic                                       we_i,
  input  logic [fm_pkg::ChipW-1:0]                   waddr_i,
  input  fm_pkg::route_word_t                        wdata_i,
  /// Destination looked up by each read port.
  input  logic [NUM_READ-1:0][fm_pkg::ChipW-1:0]     raddr_i,
  /// Output port of each lookup.
  output logic [NUM_READ-1:0][fm_pkg::PortW-1:0]     rport_o,
  /// Output VCs allowed by each lookup.
  output logic [NUM_READ-1:0][NUM_VCS-1:0]           rmask_o
);

  localparam int unsigned AddrW = fm_pkg::idx_width(NUM_DESTS);

  logic [fm_pkg::PortW-1:0] port_q [NUM_DESTS];
  logic [NUM_VCS-1:0]       mask_q [NUM_DESTS];

  // The written word is "no route" (its mask is not used).
  logic no_route;
  assign no_route = 32'(wdata_i.port) == fm_pkg::NoRoutePort;

  // One register per entry with its own write decode (a register file).
  for (genvar d = 0; d < NUM_DESTS; d++) begin : gen_entry
    logic we;
    assign we = we_i && (32'(waddr_i) == d);
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        port_q[d] <= fm_pkg::PortLocal;
        mask_q[d] <= '0;
      end else if (we) begin
        port_q[d] <= no_route ? fm_pkg::PortNone : wdata_i.port[fm_pkg::PortW-1:0];
        mask_q[d] <= wdata_i.vc_mask[NUM_VCS-1:0];
      end
    end
  end

  for (genvar r = 0; r < NUM_READ; r++) begin : gen_read
    logic in_range;
    assign in_range   = 32'(raddr_i[r]) < NUM_DESTS;
    assign rport_o[r] = in_range ? port_q[raddr_i[r][AddrW-1:0]] : fm_pkg::PortLocal;
    assign rmask_o[r] = in_range ? mask_q[raddr_i[r][AddrW-1:0]] : '0;
  end

`ifndef SYNTHESIS
  // The VCs in use as a mask.
  logic [fm_pkg::MaxVcs-1:0] all_vcs;
  assign all_vcs = fm_pkg::MaxVcs'((17'd1 << vcs_i) - 17'd1);
  // The model's loader rejects a table with any such entry (Router::load_table).
  assert property (@(posedge clk_i) disable iff (!rst_ni)
                   we_i |-> (32'(waddr_i) < NUM_DESTS))
    else $error("route table write to destination %0d, table has %0d entries",
                waddr_i, NUM_DESTS);
  assert property (@(posedge clk_i) disable iff (!rst_ni)
                   we_i |-> (32'(wdata_i.port) < fm_pkg::NumPorts || no_route))
    else $error("route table write names port %0d, neither 0..4 nor %0d (no route)",
                wdata_i.port, fm_pkg::NoRoutePort);
  assert property (@(posedge clk_i) disable iff (!rst_ni)
                   (we_i && !no_route) |->
                   (wdata_i.vc_mask != '0 && (wdata_i.vc_mask & ~all_vcs) == '0))
    else $error("route table write with VC mask 0x%0h: not a non-empty subset of %0d VCs",
                wdata_i.vc_mask, vcs_i);
`endif

endmodule
