// Waveforms of a simulation (docs/waveforms.md): router ports, VC state, credits, link
// occupancy and fault events, sampled once per cycle inside a cycle window and written
// as VCD or FST (tb/wave_writer.h) with deterministic signal names, so the GTKWave save
// files in waveforms/ open any run's file.
//
// Three layers:
//  - WaveRecorder: the signal table, the window (--wave-from/--wave-to, or N cycles
//    around the first event with --wave-around-fault, kept in a change history until the
//    event comes), events (faults, a co-simulation mismatch), value-change filtering.
//  - RouterProbe: declares one router's signals and sets them each sampled cycle, from a
//    PortIo (what crosses the router's boundary) and, for the model, its internal state.
//  - Tracer: the SystemC sampler of a whole Network; it exists only when waveforms are
//    asked for, so tracing costs nothing when off (no process, no check in any router).
//
// A simulator command adds waveforms with its option group (sim/options.h:
// wave_options(), wave_from()) and, in its run, Tracer::attach(net, opts) after the
// network is built and before the first sc_start, fault_event() where faults happen,
// and finish() at the end of the run.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "models/config.h"
#include "models/noc/network.h"
#include "tb/wave_writer.h"

namespace fm {

// What to trace and where (filled by sim/options.cpp wave_from()).
struct WaveOptions {
  WaveFormat format = WaveFormat::None;
  std::string path;          // output file
  std::string option;        // "--vcd" or "--fst", for messages
  Cycle from = 0, to = kNever;  // window of cycles, both inclusive
  Cycle around = kNever;     // --wave-around-fault N: window [f - N, f + N] of the first event f
  bool all_routers = false;  // --wave-routers all
  std::vector<Coord> routers;  // --wave-routers list (empty and !all_routers: default set)
  bool enabled() const { return format != WaveFormat::None; }
};

class WaveRecorder {
 public:
  // Opens the output (temporary name until finish()); throws ConfigError if it cannot.
  WaveRecorder(const WaveOptions& o, const std::string& comment);

  // Declaration phase: nested scopes and variables (unsigned, 1..64 bits).
  void push_scope(const std::string& name) { w_->push_scope(name); }
  void pop_scope() { w_->pop_scope(); }
  int add(const std::string& name, int width);
  // Declares the event marker (1 in the cycle of an event) and the event count in the
  // current scope under the given names.
  void add_event_vars(const std::string& marker, const std::string& count);
  void end_declarations() { w_->end_declarations(); }

  // Whether cycle c must be sampled: inside the window, or kept in the history while
  // waiting for the first event (--wave-around-fault).
  bool wants(Cycle c) const;
  // True when no cycle after c will be wanted (the sampler may stop).
  bool done_after(Cycle c) const;
  void set(int id, uint64_t v) { cur_[id] = v; }
  // The values set since the last commit are those of cycle c (cycles increase).
  void commit(Cycle c);
  // An event (fault, mismatch) in cycle c: marked, described in the file, and with
  // --wave-around-fault the first one fixes the window (cycles already sampled come out
  // of the history).
  void event(Cycle c, const std::string& what);
  // Co-simulation: an event's cycle is written even outside the window (a mismatch must
  // be in the file). Call commit() for it.
  void write_events_outside_window() { events_outside_ = true; }
  bool has_event_at(Cycle c) const { return events_.count(c) > 0; }

  // Writes the last timestamp, closes and renames the file into place. Returns a note
  // for the user ("" when there is nothing to say); throws WriteError on an I/O error.
  std::string finish();

 private:
  struct Frame {
    Cycle c;
    std::vector<std::pair<uint32_t, uint64_t>> changes;
  };
  bool window_known() const { return around_ == kNever || !events_.empty(); }
  bool in_window(Cycle c) const { return window_known() && c >= from_ && c <= to_; }
  bool history_mode() const { return !window_known(); }
  void record_history(Cycle c);
  void flush_history();
  void write(Cycle c, std::vector<uint64_t>& vals);

  std::unique_ptr<WaveWriter> w_;
  std::string path_;
  Cycle from_, to_, around_;
  bool events_outside_ = false;
  std::vector<uint64_t> cur_, written_;
  bool has_written_ = false;
  Cycle last_time_ = 0;     // last timestamp written
  Cycle last_commit_ = kNever;  // last cycle committed inside the window
  int marker_ = -1, count_ = -1;
  std::map<Cycle, std::vector<std::string>> events_;
  std::map<Cycle, bool> noted_;
  // History (--wave-around-fault before the first event): the values at base_cycle_,
  // then the changes of later cycles.
  std::vector<uint64_t> base_, prev_;
  Cycle base_cycle_ = 0, hist_last_ = 0;
  bool has_base_ = false;
  std::deque<Frame> hist_;
};

// What crosses a router's boundary in one cycle (spec numbering): the flit arriving on
// each input and departing on each output, the credit sent upstream on each input and
// arriving on each output (-1: none). The model reads it from its Links, the RTL
// co-simulation from the verilated router's ports, so both get the same signals.
class PortIo {
 public:
  virtual ~PortIo() = default;
  virtual bool in_flit(Cycle now, int p, Flit* f) const = 0;
  virtual bool out_flit(Cycle now, int p, Flit* f) const = 0;
  virtual int in_credit(Cycle now, int p) const = 0;
  virtual int out_credit(Cycle now, int p) const = 0;
};

// PortIo of a model Router, from its links' read-only views.
class RouterLinksIo : public PortIo {
 public:
  explicit RouterLinksIo(const Router& r) : r_(r) {}
  bool in_flit(Cycle now, int p, Flit* f) const override;
  bool out_flit(Cycle now, int p, Flit* f) const override;
  int in_credit(Cycle now, int p) const override;
  int out_credit(Cycle now, int p) const override;

 private:
  const Router& r_;
};

// The signals of one router under scope `scope` (names in docs/waveforms.md):
//   dead_out, dead_in, chip_dead                    (with_faults)
//   in_<P>.{valid,vc,kind,seq,src,dst,packet,payload,credit_valid,credit_vc}
//   in_<P>.vc<v>.{state,occupancy,out_port,out_vc}  (internals)
//   out_<P>.{valid,...,payload,credit_valid,credit_vc}
//   out_<P>.vc<v>.{credits,allocated}               (internals)
// for P in N, E, S, W, L. Flit fields are 0 while valid is 0.
class RouterProbe {
 public:
  // internals: the model router whose VC state and credits are traced (nullptr: ports only).
  RouterProbe(WaveRecorder& rec, const std::string& scope, const PortIo& io, int vcs,
              const Router* internals, bool with_faults);
  void sample(Cycle now);

 private:
  struct FlitVars {
    int valid, vc, kind, seq, src, dst, packet, payload, credit_valid, credit_vc;
  };
  struct InVcVars {
    int state, occupancy, out_port, out_vc;
  };
  struct OutVcVars {
    int credits, allocated;
  };
  FlitVars declare_port(const std::string& name);
  void set_port(const FlitVars& v, bool valid, const Flit& f, int credit);

  WaveRecorder& rec_;
  const PortIo& io_;
  const Router* r_;
  const int vcs_;
  FlitVars in_[kNumPorts], out_[kNumPorts];
  std::vector<InVcVars> in_vc_;    // [port][vc]
  std::vector<OutVcVars> out_vc_;  // [port][vc]
  int dead_out_ = -1, dead_in_ = -1, chip_dead_ = -1;
};

// Samples a Network's traced routers and their ICI links once per cycle, after every
// unit has evaluated the cycle (one delta after the clock tick), inside the window.
class Tracer : public sc_core::sc_module {
 public:
  // The tracer for `net` if `o` asks for waveforms, else nullptr. Call after the network
  // is built and before the first sc_start. Throws ConfigError if the file cannot be
  // created or a router is outside the mesh.
  static std::unique_ptr<Tracer> attach(Network& net, const WaveOptions& o);
  SC_HAS_PROCESS(Tracer);

  // A fault (or any event worth a marker) in cycle c, e.g. "link (3,4)E failed". The
  // fault controller calls it as faults happen; today's faults are applied at cycle 0.
  void fault_event(Cycle c, const std::string& what);
  // Closes the file (renamed into place); returns a note for the user or "".
  std::string finish() { return rec_.finish(); }
  // The routers traced (chip ids, increasing).
  const std::vector<ChipId>& routers() const { return ids_; }

  Tracer(sc_core::sc_module_name name, Network& net, const WaveOptions& o,
         std::vector<ChipId> ids);

 private:
  void process();
  int count_dead_links() const;

  Network& net_;
  WaveRecorder rec_;
  std::vector<ChipId> ids_;
  std::vector<std::unique_ptr<RouterLinksIo>> ios_;
  std::vector<std::unique_ptr<RouterProbe>> probes_;
  struct LinkVars {
    const Link* l;
    int in_flight, credits, dead;
  };
  std::vector<LinkVars> links_;
  int dead_links_ = -1;
  int dead_count_ = 0;
  bool sample_phase_ = false;
  bool stopped_ = false;
  sc_core::sc_event never_;
};

// The default routers to trace: every router up to 16 chips; otherwise (0,0), the
// centre, and the live chips next to the first failed chip or link (at most 8 in all).
std::vector<ChipId> default_traced_routers(const NetworkConfig& n);
// The routers `o` asks for on network `n`; throws ConfigError naming --wave-routers for a
// coordinate outside the mesh.
std::vector<ChipId> traced_routers(const NetworkConfig& n, const WaveOptions& o);

}  // namespace fm
