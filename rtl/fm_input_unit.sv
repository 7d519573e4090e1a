// One router input port: a FIFO of up to BUF_DEPTH slots per VC (buffer write + the route
// looked up for the flit as it is written), and the state of each input VC (IDLE /
// ACTIVE with its allocated output VC). The allocators see, per VC, the flit at the
// front of the FIFO and whether it may take part in VC or switch allocation this cycle.
//
// Readiness (docs/router-microarchitecture.md "Pipeline"): a flit arriving in cycle t is
// ready from t + regRC. With regRC = 1 the FIFO registers themselves give that: a flit
// written at the end of cycle t is visible from t + 1. With regRC = 0 a flit arriving
// into an empty VC is visible at the front in its arrival cycle (bypass). Every flit the
// front shows is therefore ready, and no per-slot `ready` cycle is stored.
// The same holds for sa_ready = VA grant + regVA: with regVA = 0 a VC granted by VA in
// cycle t is eligible for SA in cycle t (the grant is used combinationally), with
// regVA = 1 from t + 1 (the registered ACTIVE state).
//
// Run-time configuration (fm_router's cfg pins, static after reset): vcs_i VCs exist (a
// flit on a VC >= vcs_i is dropped and asserted), each FIFO holds at most buf_depth_i
// flits (its ring has BUF_DEPTH slots; only the fill limit changes), and reg_rc_i /
// reg_va_i say whether the RC and VA pipeline registers are in use.
module fm_input_unit #(
  /// Most virtual channels per port (the hardware's).
  parameter int unsigned NUM_VCS   = fm_pkg::DefaultNumVcs,
  /// Slots per VC buffer (the deepest buffer the run-time depth may select).
  parameter int unsigned BUF_DEPTH = fm_pkg::DefaultBufDepth,
  /// Number of this input port (assertion messages only).
  parameter int unsigned PORT      = 0,
  localparam int unsigned VcIdxW   = fm_pkg::idx_width(NUM_VCS),
  localparam int unsigned VcCntW   = fm_pkg::idx_width(NUM_VCS + 1),
  localparam int unsigned CntW     = fm_pkg::idx_width(BUF_DEPTH + 1)
) (
  input  logic                                     clk_i,
  input  logic                                     rst_ni,
  // Run-time configuration: VCs in use (1..NUM_VCS), buffer depth (1..BUF_DEPTH), and
  // the pipeline registers after RC (P >= 3) and after VA (P >= 4).
  input  logic [VcCntW-1:0]                        vcs_i,
  input  logic [CntW-1:0]                          buf_depth_i,
  input  logic                                     reg_rc_i,
  input  logic                                     reg_va_i,
  // Flit arriving this cycle and the route table entry of its dst (used for heads).
  input  logic                                     in_valid_i,
  input  fm_pkg::flit_t                            in_flit_i,
  input  logic [fm_pkg::PortW-1:0]                 in_route_port_i,
  input  logic [NUM_VCS-1:0]                       in_route_mask_i,
  // Per VC: the flit at the front of the FIFO (when there is one) and, for a head, its route.
  output fm_pkg::flit_data_t [NUM_VCS-1:0]         front_data_o,
  output logic [NUM_VCS-1:0][fm_pkg::PortW-1:0]    front_port_o,
  output logic [NUM_VCS-1:0][NUM_VCS-1:0]          front_mask_o,
  // VC allocation: IDLE VCs with a (head) flit at the front request; grants this cycle.
  output logic [NUM_VCS-1:0]                       va_req_o,
  input  logic [NUM_VCS-1:0]                       va_gnt_i,
  input  logic [NUM_VCS-1:0][VcIdxW-1:0]           va_gnt_vc_i,
  // Switch allocation: VCs past VA with a flit at the front (credits checked outside),
  // and the output VC each one holds (including a VA grant of this cycle when regVA = 0).
  output logic [NUM_VCS-1:0]                       sa_req_o,
  output logic [NUM_VCS-1:0][fm_pkg::PortW-1:0]    out_port_o,
  output logic [NUM_VCS-1:0][VcIdxW-1:0]           out_vc_o,
  // Switch allocation grant on this input port: the front flit of VC pop_vc_i leaves.
  input  logic                                     pop_i,
  input  logic [VcIdxW-1:0]                        pop_vc_i,
  // Credit sent upstream this cycle: one slot of VC pop_vc_i became free, or (no pop)
  // the slot of a head flit dropped for having no route.
  output fm_pkg::credit_t                          credit_o
);

  localparam int unsigned PtrW  = fm_pkg::idx_width(BUF_DEPTH);
  localparam logic [PtrW-1:0] LastSlot = PtrW'(BUF_DEPTH - 1);

  // The arriving flit names an existing VC (one of the vcs_i in use), and which one.
  logic              in_vc_ok;
  logic [VcIdxW-1:0] in_vc;
  assign in_vc_ok = 32'(in_flit_i.vc) < 32'(vcs_i);
  assign in_vc    = in_flit_i.vc[VcIdxW-1:0];

  // A head flit whose route is PortNone (its dst has no route, a dead chip) is not
  // written: it is dropped and its slot credited back in its arrival cycle, as the
  // model's receive step does ("head flit for chip ..., which has no route"). Per VC:
  // such a head arrived with a free slot (into a full VC it is an overflow, no credit).
  logic              in_no_route;
  logic [NUM_VCS-1:0] drop;
  assign in_no_route = in_flit_i.data.kind[fm_pkg::KindHeadBit] &&
                       (in_route_port_i == fm_pkg::PortNone);

  for (genvar v = 0; v < NUM_VCS; v++) begin : gen_vc
    // FIFO: slots, read and write positions, fill count.
    fm_pkg::flit_data_t       data_q [BUF_DEPTH];
    logic [fm_pkg::PortW-1:0] port_q [BUF_DEPTH];
    logic [NUM_VCS-1:0]       mask_q [BUF_DEPTH];
    logic [PtrW-1:0]          rd_ptr_q, rd_ptr_d, wr_ptr_q, wr_ptr_d;
    logic [CntW-1:0]          count_q, count_d;
    // VC state: IDLE/ACTIVE and the output VC held while ACTIVE.
    fm_pkg::vc_state_e        state_q, state_d;
    logic [fm_pkg::PortW-1:0] out_port_q, out_port_d;
    logic [VcIdxW-1:0]        out_vc_q, out_vc_d;

    logic arrive, wr, pop, nonempty, front_valid, tail_pop, va_gnt, va_now;
    assign arrive   = in_valid_i && in_vc_ok && (in_vc == VcIdxW'(v));
    // A full FIFO drops the flit (the model's "buffer overflow" violation; asserted below).
    assign drop[v]  = arrive && (count_q < buf_depth_i) && in_no_route;
    assign wr       = arrive && (count_q < buf_depth_i) && !in_no_route;
    assign pop      = pop_i && (pop_vc_i == VcIdxW'(v));
    assign nonempty = (count_q != '0);
    assign va_gnt   = va_gnt_i[v];

    // Front of the FIFO; with regRC = 0 an arrival into an empty VC is its own front
    // (bypass). With regRC = 1 the bypassed fields are shown but front_valid is 0.
    assign front_valid     = nonempty || (!reg_rc_i && wr);
    assign front_data_o[v] = nonempty ? data_q[rd_ptr_q] : in_flit_i.data;
    assign front_port_o[v] = nonempty ? port_q[rd_ptr_q] : in_route_port_i;
    assign front_mask_o[v] = nonempty ? mask_q[rd_ptr_q] : in_route_mask_i;
    assign tail_pop = pop && front_data_o[v].kind[fm_pkg::KindTailBit];

    // regVA = 0: a VA grant of this cycle makes the VC eligible for SA in this cycle,
    // with the granted output VC; regVA = 1: from the next cycle (registered ACTIVE).
    assign va_now        = !reg_va_i && va_gnt;
    assign va_req_o[v]   = (state_q == fm_pkg::VcIdle) && front_valid;
    assign sa_req_o[v]   = ((state_q == fm_pkg::VcActive) || va_now) && front_valid;
    assign out_port_o[v] = va_now ? front_port_o[v] : out_port_q;
    assign out_vc_o[v]   = va_now ? va_gnt_vc_i[v] : out_vc_q;

    always_comb begin
      rd_ptr_d = rd_ptr_q;
      wr_ptr_d = wr_ptr_q;
      if (pop) rd_ptr_d = (rd_ptr_q == LastSlot) ? '0 : rd_ptr_q + 1'b1;
      if (wr)  wr_ptr_d = (wr_ptr_q == LastSlot) ? '0 : wr_ptr_q + 1'b1;
      count_d = count_q + CntW'(wr) - CntW'(pop);
      // A tail leaving makes the VC IDLE, also when its packet won VA this same cycle.
      state_d    = state_q;
      out_port_d = out_port_q;
      out_vc_d   = out_vc_q;
      if (va_gnt) begin
        state_d    = fm_pkg::VcActive;
        out_port_d = front_port_o[v];
        out_vc_d   = va_gnt_vc_i[v];
      end
      if (tail_pop) state_d = fm_pkg::VcIdle;
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        rd_ptr_q   <= '0;
        wr_ptr_q   <= '0;
        count_q    <= '0;
        state_q    <= fm_pkg::VcIdle;
        out_port_q <= '0;
        out_vc_q   <= '0;
      end else begin
        rd_ptr_q   <= rd_ptr_d;
        wr_ptr_q   <= wr_ptr_d;
        count_q    <= count_d;
        state_q    <= state_d;
        out_port_q <= out_port_d;
        out_vc_q   <= out_vc_d;
      end
    end

    // Slots are not reset: a slot is read only after it has been written.
    always_ff @(posedge clk_i) begin
      if (wr) begin
        data_q[wr_ptr_q] <= in_flit_i.data;
        port_q[wr_ptr_q] <= in_route_port_i;
        mask_q[wr_ptr_q] <= in_route_mask_i;
      end
    end

`ifndef SYNTHESIS
    // Monitor state (the model's InVc::open, open_src, open_packet, open_seq): the packet
    // being written into this VC.
    logic                       open_q;
    logic [fm_pkg::ChipW-1:0]   open_src_q;
    logic [fm_pkg::PacketW-1:0] open_packet_q;
    logic [fm_pkg::SeqW-1:0]    open_seq_q;
    logic in_head, in_tail, continues;
    assign in_head = in_flit_i.data.kind[fm_pkg::KindHeadBit];
    assign in_tail = in_flit_i.data.kind[fm_pkg::KindTailBit];
    assign continues = open_q && (in_flit_i.data.src == open_src_q) &&
                       (in_flit_i.data.packet == open_packet_q) &&
                       (in_flit_i.data.seq == open_seq_q + 1'b1);
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        open_q        <= 1'b0;
        open_src_q    <= '0;
        open_packet_q <= '0;
        open_seq_q    <= '0;
      end else if (wr || drop[v]) begin  // a dropped head opens its packet, as in the model
        open_q        <= in_head ? !in_tail : (open_q && !in_tail);
        open_src_q    <= in_flit_i.data.src;
        open_packet_q <= in_flit_i.data.packet;
        open_seq_q    <= in_flit_i.data.seq;
      end
    end
    assert property (@(posedge clk_i) disable iff (!rst_ni) arrive |-> (count_q < buf_depth_i))
      else $error("input port %0d vc %0d: flit written into a full VC buffer", PORT, v);
    assert property (@(posedge clk_i) disable iff (!rst_ni) (arrive && in_head) |-> !open_q)
      else $error("input port %0d vc %0d: head flit while the previous packet has not seen its tail",
                  PORT, v);
    assert property (@(posedge clk_i) disable iff (!rst_ni) (arrive && in_head) |->
                     (in_flit_i.data.seq == '0))
      else $error("input port %0d vc %0d: head flit with seq %0d", PORT, v, in_flit_i.data.seq);
    assert property (@(posedge clk_i) disable iff (!rst_ni) (arrive && !in_head) |-> continues)
      else $error("input port %0d vc %0d: body/tail flit that does not continue the open packet",
                  PORT, v);
    assert property (@(posedge clk_i) disable iff (!rst_ni) !drop[v])
      else $error("input port %0d vc %0d: head flit for chip %0d, which has no route (dropped)",
                  PORT, v, in_flit_i.data.dst);
    assert property (@(posedge clk_i) disable iff (!rst_ni) (arrive && in_head && !in_no_route) |->
                     (in_route_port_i < fm_pkg::PortW'(fm_pkg::NumPorts)))
      else $error("input port %0d vc %0d: route names port %0d, outside 0..4", PORT, v,
                  in_route_port_i);
    assert property (@(posedge clk_i) disable iff (!rst_ni) (arrive && in_head && !in_no_route) |->
                     (in_route_mask_i != '0))
      else $error("input port %0d vc %0d: route of dst %0d has an empty VC mask", PORT, v,
                  in_flit_i.data.dst);
    assert property (@(posedge clk_i) disable iff (!rst_ni) pop |-> sa_req_o[v])
      else $error("input port %0d vc %0d: switch grant for a VC that did not request", PORT, v);
    assert property (@(posedge clk_i) disable iff (!rst_ni) va_gnt |-> va_req_o[v])
      else $error("input port %0d vc %0d: VC grant for a VC that did not request", PORT, v);
    assert property (@(posedge clk_i) disable iff (!rst_ni) count_q <= buf_depth_i)
      else $error("input port %0d vc %0d: fill count %0d above %0d", PORT, v, count_q,
                  buf_depth_i);
`endif
  end

  // One credit port: the model would send two credits on this link in a cycle with both
  // a pop and a dropped head; the RTL sends the pop's and asserts.
  assign credit_o.valid = pop_i || (drop != '0);
  assign credit_o.vc    = pop_i ? fm_pkg::VcW'(pop_vc_i) : in_flit_i.vc;

`ifndef SYNTHESIS
  assert property (@(posedge clk_i) disable iff (!rst_ni) in_valid_i |-> in_vc_ok)
    else $error("input port %0d: flit on nonexistent vc %0d", PORT, in_flit_i.vc);
  assert property (@(posedge clk_i) disable iff (!rst_ni) !(pop_i && drop != '0))
    else $error("input port %0d: a switched flit and a dropped no-route head need two credits",
                PORT);
`endif

endmodule
