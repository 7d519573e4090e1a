// The host (the runtime that drives the chips): after the compute phase it writes the
// collective's descriptor into every live chip's registers through TLM-2.0 and starts
// them, then watches for completion. As the fault controller's RecoveryHost it aborts the
// collective on every live chip and restarts it on the live set after a reconfiguration
// (docs/faults.md). A model component: tb/allreduce_run.cpp builds one per run.
#pragma once

#include <memory>
#include <string>
#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>
#include <vector>

#include "models/chip/chip.h"
#include "models/collective/resume.h"
#include "models/config.h"
#include "models/fault/fault_controller.h"
#include "models/noc/fault_set.h"
#include "models/noc/network.h"

namespace fm {

// The descriptor every chip gets: the whole live set of `f`, the buffer at HBM address 0.
Descriptor descriptor_of(const Config& c, const FaultSet& f);

class Host : public sc_core::sc_module, public RecoveryHost {
 public:
  sc_core::sc_vector<tlm_utils::simple_initiator_socket<Host>> sock;

  // chips: by chip id, nullptr for chips dead before the run. compute: the compute phase
  // before the collective starts.
  Host(sc_core::sc_module_name name, const Config& cfg, std::vector<Chip*> chips,
       CollectiveLibrary& lib, Network& net, sc_core::sc_time compute);
  SC_HAS_PROCESS(Host);
  bool finished() const { return finished_; }
  const std::string& error() const { return error_; }
  sc_core::sc_time started_at() const { return started_; }
  sc_core::sc_time gave_up_at() const { return gave_up_at_; }
  std::shared_ptr<CollectiveRun> current() const { return run_; }
  const FaultSet& faults() const { return *faults_; }

  // RecoveryHost (models/fault/fault_controller.h).
  bool collective_running() const override { return run_ && !finished_ && !aborted_; }
  double progress() const override;
  Cycle phase_started(const std::string& key) const override;
  bool touched_by(const FaultSet& f) const override;
  void abort_all() override;
  std::string restart(std::shared_ptr<const FaultSet> f, const std::vector<RouteTable>& tables) override;
  bool collective_started() const override { return launched_; }
  void hold_start(bool on) override { held_ = on; }
  void set_faults(std::shared_ptr<const FaultSet> f) override;
  void give_up(const std::string& why) override;
  // Verify mode: each participant's buffer holds its own gradient words again (with a
  // resumed run, only in the ranges its plan restores).
  void restore_words();
  // Host wall time spent planning resumed collectives (coll::plan_resume) so far: what
  // the simulator spends on recovery beyond the cycles, for the results' "simulator"
  // block (never in a cycle or the timeline, which stay the same on every host).
  double planning_seconds() const { return planning_seconds_; }

 private:
  // One 32-bit register write into chip c's control window; false if refused.
  bool write(size_t c, uint64_t addr, uint32_t v);
  // The descriptor for the live set (with --restart-algo when `restart_algo`) and its
  // compiled collective; false, after give_up, when the algorithm refuses the live set.
  bool prepare(bool restart_algo, const char* algorithm);
  // Writes the descriptor into every live chip and starts it.
  void launch();
  bool all_done() const;
  // The SC_THREAD: compute phase, start, then poll for completion.
  void run();

  const Config& cfg_;
  std::vector<Chip*> chips_;
  CollectiveLibrary& lib_;
  Network& net_;
  sc_core::sc_time compute_, started_, gave_up_at_;
  std::shared_ptr<const FaultSet> faults_;
  std::shared_ptr<CollectiveRun> run_;
  Descriptor d_;
  std::vector<int> sock_of_;  // chip id -> socket index (-1: dead before the run)
  // Resume: the runs aborted since the buffers last held the inputs, oldest first, each
  // with what of it was applied (the next plan replays them: models/collective/resume.h).
  struct Aborted {
    std::shared_ptr<CollectiveRun> run;
    std::vector<coll::Applied> applied;
  };
  std::vector<Aborted> aborted_runs_;
  double planning_seconds_ = 0;  // host wall time in the resume planner (a simulator figure, not a cycle)
  bool finished_ = false, aborted_ = false, launched_ = false, held_ = false, rerouted_ = false;
  std::string error_;
};

}  // namespace fm
