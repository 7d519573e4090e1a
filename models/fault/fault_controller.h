// The fault controller: executes a schedule of failures during a run (--fail-at) and
// recovers from each (docs/faults.md):
//   1. fault: at its cycle (or when the collective reaches a share of its data or starts a
//      phase) the chip, board or link dies: routers stop, links go dark, the flits they
//      hold are lost and counted; neighbours' credits toward the dead part are frozen.
//   2. detection: exactly `detect` cycles after each failure (missing heartbeats/credits)
//      the controller knows of it; it acts only on what it has detected.
//   3. if the running collective is touched (a participant died, a flit was lost, or one
//      of its transfers is routed over a dead link) it asks the host to abort it on every
//      live chip, waits for the network to drain (flits heading into dead links are
//      dropped there), flushes what cannot drain (packets cut in two by the fault), builds
//      and checks new route tables for the live graph (the routing scheme and the
//      deadlock checker of models/routing/), writes them into every live router through
//      its TLM-2.0 route-table window, and hands the new fault set to the host, which
//      restarts the collective on the live chips. A failure detected during the round
//      makes the controller run another pass before the restart; one detected after the
//      restart gets a round of its own.
//   4. if nothing running is touched, no restart: the tables stay (no route in use
//      crosses the dead part) and the collective goes on. Before the collective has
//      started (compute phase) the tables are rebuilt and the host starts on the live set.
// Every step is timestamped in timeline(); every lost flit is counted by reason.
#pragma once
#include <memory>
#include <string>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <vector>

#include "models/config.h"
#include "models/noc/fault_set.h"
#include "models/noc/network.h"
#include "models/route_table.h"

namespace fm {

// What the controller needs from the runtime that runs the collective (the host).
class RecoveryHost {
 public:
  virtual ~RecoveryHost() = default;
  virtual bool collective_running() const = 0;
  // Share of the running collective's data applied so far, in [0, 1].
  virtual double progress() const = 0;
  // First cycle the running collective worked on a phase named by `key` (phase_matches),
  // or kNever (not yet, or no such phase).
  virtual Cycle phase_started(const std::string& key) const = 0;
  // Whether the running collective must restart on this fault set: a participant is
  // dead or one of its transfers is routed over a dead link (tables as loaded now).
  virtual bool touched_by(const FaultSet& f) const = 0;
  // Abort the running collective on every live chip (now).
  virtual void abort_all() = 0;
  // Restart the collective on the live chips of `f`. `tables` are the route tables just
  // checked for `f` and written into its live routers: the routes the new collective
  // takes. (A router that died since the detection keeps the old table it held; its
  // death is not known yet, so the tables still lead through it.)
  // Returns how it restarted, for the timeline ("" for a plain restart; with
  // --recovery resume what was kept and what is restored).
  virtual std::string restart(std::shared_ptr<const FaultSet> f, const std::vector<RouteTable>& tables) = 0;
  // Whether the collective has been started (false during the compute phase before it).
  virtual bool collective_started() const = 0;
  // Before the start: hold it (on) while the tables are rebuilt, and let it go (off).
  virtual void hold_start(bool on) = 0;
  // Before the start: the collective is to start on the live chips of `f`.
  virtual void set_faults(std::shared_ptr<const FaultSet> f) = 0;
  // Recovery is impossible (the failure partitioned the machine): stop with `why`.
  virtual void give_up(const std::string& why) = 0;
};

// What a timeline event records. Code that reacts to events (the tracer's fault marks,
// the stop reason, the roles after a restart) goes by the kind; `what` is the text the
// JSON's timeline and the summary show.
enum class EventKind : uint8_t {
  Fault,         // a failure happened
  Detected,      // the controller learnt of it
  Drained,       // the network is empty (or stalled packets were flushed)
  Reconfigured,  // new tables checked and written
  Partitioned,   // the failures cut the machine: the run stops
  NoRestart,     // the failure did not touch the running collective
  Abort,         // the collective was aborted on every live chip
  Restart,       // the collective restarted on the live chips
  Complete,      // the last live chip finished
  Stopped,       // the run stopped early (its stop reason follows)
};

struct TimelineEvent {
  Cycle cycle;
  EventKind kind;
  std::string what;
};

// Flits lost, by reason (docs/faults.md, "Accounting").
struct Drops {
  uint64_t dead_router = 0;       // in a dead chip's router or local lanes
  uint64_t dead_link = 0;         // on a link when it failed, or sent into a failed link
  uint64_t dead_destination = 0;  // sent into a failed link toward a dead chip
  uint64_t flushed = 0;           // cut-off packets removed by the reconfiguration flush
  uint64_t total() const { return dead_router + dead_link + dead_destination + flushed; }
};

class FaultController : public sc_core::sc_module {
 public:
  // One initiator per router: the route-table windows (Router::csr).
  sc_core::sc_vector<tlm_utils::simple_initiator_socket<FaultController>> csr;

  FaultController(sc_core::sc_module_name name, const Config& cfg, Network& net,
                  RecoveryHost& host);
  SC_HAS_PROCESS(FaultController);

  const std::vector<TimelineEvent>& timeline() const { return timeline_; }
  Drops drops() const;
  // The fault set now (initial faults plus every failure so far).
  std::shared_ptr<const FaultSet> faults() const { return faults_; }
  // What the controller knows: the initial faults and the failures detected so far.
  std::shared_ptr<const FaultSet> detected_faults() const { return detected_faults_; }
  int restarts() const { return restarts_; }
  // Failures applied and recoveries finished (a run is settled when they are equal).
  int applied() const { return (int)applied_.size(); }
  // Indices into cfg.net.faults.timed of the failures applied, in the order applied (a
  // trigger that never came, e.g. a cycle after the end, is not among them).
  const std::vector<size_t>& applied_indices() const { return applied_; }
  // The cycle each applied failure happened, in the order of applied_indices() (the
  // run's HTML page dates the dead chips and links with them, tb/view_data.h).
  const std::vector<Cycle>& fault_cycles() const { return fault_cycle_; }
  // Flits lost in each chip's router when it was killed, for the chips killed during
  // the run (per chip, what Drops::dead_router sums): (chip, flits).
  const std::vector<std::pair<ChipId, uint64_t>>& dead_router_by_chip() const { return dead_router_by_chip_; }
  bool settled() const { return handled_ == (int)applied_.size() && !recovering_; }
  // The last cycle of the controller's timed steps under way (detections still to come,
  // route tables being written), 0 when there are none: the watchdog's timer
  // (tb/driver.h).
  Cycle timer_until() const;

 private:
  void killer();   // applies the failures at their triggers
  void detector();  // detects each failure `detect` cycles after it happened
  void recover();   // runs recovery rounds on what has been detected
  void apply(size_t i);
  bool drain_and_flush();
  // The network configuration with the initial faults and the first `upto` failures.
  NetworkConfig config_upto(size_t upto) const;
  bool reroute(const std::shared_ptr<const FaultSet>& f, size_t upto);
  void stop(const std::string& why);
  void program_tables(const std::vector<RouteTable>& tables);
  std::vector<RouteTable> tables_;  // the route tables last checked and written (reroute)
  Cycle now() const;
  void log(EventKind kind, const std::string& what);

  const Config& cfg_;
  Network& net_;
  RecoveryHost& host_;
  std::shared_ptr<const FaultSet> faults_;
  std::shared_ptr<const FaultSet> detected_faults_;
  std::vector<size_t> applied_;  // indices into cfg.net.faults.timed, in order applied
  std::vector<Cycle> fault_cycle_;  // cycle each applied failure happened
  size_t detected_ = 0;          // applied failures detected so far (a prefix of applied_)
  int handled_ = 0;              // failures whose recovery is done
  bool recovering_ = false;
  int restarts_ = 0;
  // The flits dropped in the network up to the last recovery decision (all rounds): a
  // failure touches the running collective when drops grew since then (its own drops),
  // not when the run has dropped any flit before (the earlier failures' drops).
  uint64_t drops_seen_ = 0;
  std::vector<char> dead_;       // per chip, shared with the links
  sc_core::sc_event killed_;
  std::vector<TimelineEvent> timeline_;
  uint64_t dead_router_ = 0, flushed_ = 0;
  std::vector<std::pair<ChipId, uint64_t>> dead_router_by_chip_;
  Cycle writes_until_ = 0;       // the route-table writes under way end here
  sc_core::sc_event detected_ev_;
};

}  // namespace fm
