// faultmesh router package: every parameter default, enum and struct of the RTL router.
// It mirrors the SystemC model (models/noc/types.h, models/config.h, models/route_table.h);
// docs/router-microarchitecture.md is the specification both implement.
//
// Every constant and enum the model must agree with carries the "public" metacomment,
// so the verilated build emits it into the generated V<prefix>_fm_pkg.h (as static
// constexpr members and C++ enums of class V<prefix>_fm_pkg); tb/rtl_mesh_router.cpp
// static_asserts each against the model's constant. Changing one side alone fails the
// C++ build.
package fm_pkg;

  // ---------------------------------------------------------------- sizes and ranges
  /// Router ports: 4 ICI ports (N, E, S, W) and the local port to the NI (kNumPorts).
  localparam int unsigned NumPorts /*verilator public*/ = 5;
  /// ICI ports only, without the local port (kNumNetPorts).
  localparam int unsigned NumNetPorts /*verilator public*/ = 4;
  /// Most virtual channels per port (kMaxVcs); the VC field of a flit is 4 bits wide.
  localparam int unsigned MaxVcs /*verilator public*/ = 16;
  /// Deepest VC buffer, in flits (kMaxBuf).
  localparam int unsigned MaxBufDepth /*verilator public*/ = 4096;
  /// Deepest router pipeline, in cycles (--pipeline 1..4).
  localparam int unsigned MaxPipeline /*verilator public*/ = 4;
  /// Largest route table: destinations are 16-bit chip ids.
  localparam int unsigned MaxNumDests /*verilator public*/ = 65536;

  // ---------------------------------------------------------------- parameter defaults
  /// Default VCs per port (--vcs 2: two dateline classes on a torus).
  localparam int unsigned DefaultNumVcs /*verilator public*/ = 2;
  /// Default VC buffer depth in flits (--buf 8).
  localparam int unsigned DefaultBufDepth /*verilator public*/ = 8;
  /// Default pipeline depth (--pipeline 3: RC | VA+SA | ST).
  localparam int unsigned DefaultPipeline /*verilator public*/ = 3;
  /// Default route table size: one entry per chip of the default 8x8 network.
  localparam int unsigned DefaultNumDests /*verilator public*/ = 64;

  // ---------------------------------------------------------------- field widths
  /// Flit payload width (the data word).
  localparam int unsigned PayloadW /*verilator public*/ = 64;
  /// Flit packet number width (the source NI's packet sequence number).
  localparam int unsigned PacketW /*verilator public*/ = 32;
  /// Chip id width (flit src and dst, route table address).
  localparam int unsigned ChipW /*verilator public*/ = 16;
  /// Flit index within its packet.
  localparam int unsigned SeqW /*verilator public*/ = 16;
  /// Flit kind width (bit 0 head, bit 1 tail).
  localparam int unsigned KindW /*verilator public*/ = 2;
  /// VC number on links and in credits.
  localparam int unsigned VcW /*verilator public*/ = 4;
  /// Port number width (0..4).
  localparam int unsigned PortW /*verilator public*/ = 3;
  /// Route table register word: {vc_mask[15:0], port byte[7:0]} (route_word_t); the
  /// port byte is 0..4 or NoRoutePort. The model's route_word() layout.
  localparam int unsigned TblWordW /*verilator public*/ = 24;
  localparam int unsigned RoutePortLsb /*verilator public*/ = 0;
  localparam int unsigned RoutePortBits /*verilator public*/ = 8;
  localparam int unsigned RouteMaskLsb /*verilator public*/ = 8;
  localparam int unsigned RouteMaskBits /*verilator public*/ = MaxVcs;
  /// Port byte of a "no route" entry (the model's kNoRoute): the destination is dead; a
  /// head flit to it is dropped and its buffer slot credited back, as in the model.
  localparam int unsigned NoRoutePort /*verilator public*/ = 255;
  /// Run-time configuration pins (fm_router cfg_*_i): wide enough for the package
  /// maxima, so the port list does not depend on the parameters.
  localparam int unsigned CfgVcsW /*verilator public*/  = $clog2(MaxVcs + 1);       // 1..16: 5 bits
  localparam int unsigned CfgBufW /*verilator public*/  = $clog2(MaxBufDepth + 1);  // 1..4096: 13 bits
  localparam int unsigned CfgPipeW /*verilator public*/ = $clog2(MaxPipeline + 1);  // 1..4: 3 bits

  // ---------------------------------------------------------------- enums
  /// Port numbers, the same in the model (enum Port) and the RTL.
  typedef enum logic [PortW-1:0] {
    PortNorth = 3'd0,  ///< N, (x, y + 1)
    PortEast  = 3'd1,  ///< E, (x + 1, y)
    PortSouth = 3'd2,  ///< S, (x, y - 1)
    PortWest  = 3'd3,  ///< W, (x - 1, y)
    PortLocal = PortW'(NumNetPorts), ///< L (4), the chip's network interface
    PortNone  = 3'd7   ///< stored for a NoRoutePort entry: no output port
  } port_e /*verilator public*/;

  /// Flit kinds (enum FlitKind): a one-flit packet is head and tail.
  typedef enum logic [KindW-1:0] {
    KindBody     = 2'd0,  ///< neither head nor tail
    KindHead     = 2'd1,  ///< first flit of a packet of two or more
    KindTail     = 2'd2,  ///< last flit of a packet of two or more
    KindHeadTail = 2'd3   ///< the only flit of a one-flit packet
  } kind_e /*verilator public*/;
  /// Bit of the kind field that marks a head flit.
  localparam int unsigned KindHeadBit /*verilator public*/ = 0;
  /// Bit of the kind field that marks a tail flit.
  localparam int unsigned KindTailBit /*verilator public*/ = 1;

  /// Arbiter pointer rule (enum Arbiter; the cfg_islip_i pin).
  typedef enum logic {
    ArbRoundRobin = 1'b0,  ///< pointer moves past every request made
    ArbIslip      = 1'b1   ///< pointer moves past a request only when it is granted
  } arbiter_e;

  /// State of an input VC (Router::VcState).
  typedef enum logic {
    VcIdle   = 1'b0,  ///< no output VC held; a head at the front waits for VA
    VcActive = 1'b1   ///< holds an output VC until its tail wins switch allocation
  } vc_state_e;

  // ---------------------------------------------------------------- structs
  /// A flit without the VC it travels on: what an input buffer stores per slot.
  typedef struct packed {
    logic [PayloadW-1:0] payload;  ///< data word
    logic [PacketW-1:0]  packet;   ///< per-source packet sequence number
    logic [ChipW-1:0]    src;      ///< source chip id
    logic [ChipW-1:0]    dst;      ///< destination chip id (route table address)
    logic [SeqW-1:0]     seq;      ///< index of this flit within its packet
    logic [KindW-1:0]    kind;     ///< bit 0 head, bit 1 tail (kind_e)
  } flit_data_t;

  /// A flit on a link (struct Flit): {payload, packet, src, dst, seq, kind, vc}, 150 bits.
  /// Top-level ports split it as payload[63:0], meta = {packet, src, dst}, ctl = {seq, kind, vc}.
  typedef struct packed {
    flit_data_t       data;  ///< everything but the VC
    logic [VcW-1:0]   vc;    ///< VC it travels on / is buffered in
  } flit_t;

  /// Width of the meta port: {packet[31:0], src[15:0], dst[15:0]}.
  localparam int unsigned MetaW /*verilator public*/ = PacketW + 2 * ChipW;
  /// Width of the ctl port: {seq[15:0], kind[1:0], vc[3:0]}.
  localparam int unsigned CtlW /*verilator public*/ = SeqW + KindW + VcW;

  /// A credit (at most one per link direction per cycle): one slot of VC `vc` became free.
  typedef struct packed {
    logic           valid;  ///< a credit is sent / arrives this cycle
    logic [VcW-1:0] vc;     ///< VC whose downstream buffer slot became free
  } credit_t;

  /// A route table entry (struct RouteEntry) as the 24-bit register word.
  typedef struct packed {
    logic [RouteMaskBits-1:0] vc_mask;  ///< bit v: output VC v may be allocated
    logic [RoutePortBits-1:0] port;     ///< output port 0..4 (port_e), or NoRoutePort
  } route_word_t;

  // ---------------------------------------------------------------- pipeline registers
  /// Smallest pipeline depth with a register after RC, VA, SA (the model's kRegRcFrom,
  /// kRegVaFrom, kRegSaFrom; its pipeline_regs() is the same rule).
  localparam int unsigned RegRcFrom /*verilator public*/ = 3;
  localparam int unsigned RegVaFrom /*verilator public*/ = 4;
  localparam int unsigned RegSaFrom /*verilator public*/ = 2;
  /// 1 when a pipeline register follows route computation (P >= 3).
  function automatic bit reg_rc(int unsigned pipeline);
    return pipeline >= RegRcFrom;
  endfunction
  /// 1 when a pipeline register follows VC allocation (P >= 4).
  function automatic bit reg_va(int unsigned pipeline);
    return pipeline >= RegVaFrom;
  endfunction
  /// 1 when a pipeline register follows switch allocation (P >= 2).
  function automatic bit reg_sa(int unsigned pipeline);
    return pipeline >= RegSaFrom;
  endfunction

  /// Width of an index over n things (at least 1 bit, so n = 1 still has a signal).
  function automatic int unsigned idx_width(int unsigned n);
    return (n > 1) ? $clog2(n) : 1;
  endfunction

endpackage
