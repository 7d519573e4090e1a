// One TPU-like chip as the host sees it: a TLM-2.0 target socket onto a small register
// file (models/chip/regs.h, docs/chip.md) that describes and starts a collective, the
// chip's HBM (models/chip/hbm.h) and its collective engine (models/chip/engine.h),
// which sits on the router's local lanes through the network interface.
//
// The host writes a descriptor (operation, buffer address, size, data type, algorithm,
// participant set) and then CTRL = 1. A bad descriptor makes that write return
// TLM_GENERIC_ERROR_RESPONSE, sets STATUS = failed and ERROR to the reason, and the
// engine does not start. Completion sets STATUS = done and DONE = the completion cycle,
// and notifies done_event().
#pragma once
#include <map>
#include <memory>
#include <string>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

#include "models/chip/engine.h"
#include "models/chip/hbm.h"
#include "models/chip/regs.h"
#include "models/config.h"
#include "models/noc/fault_set.h"

namespace fm {

// What the descriptor registers hold.
struct Descriptor {
  uint32_t op = 0, dtype = 0, algo = 0, order = 0;
  uint64_t buf = 0, size = 0;
  uint32_t chunk = 0;
  uint32_t slices = 0;  // 0: auto
  uint32_t line = 0;    // coll::Line
  std::vector<uint32_t> participants;  // bitmap words
  bool operator<(const Descriptor& o) const;
};

// Builds each distinct collective once and shares it among the chips that start it
// (a compiler would hand every chip its part of the same program). It knows the
// machine's fault set, as the runtime that configures the routes does.
class CollectiveLibrary {
 public:
  CollectiveLibrary(const Config& cfg, std::shared_ptr<const FaultSet> faults)
      : cfg_(cfg), faults_(std::move(faults)) {}
  // Throws ConfigError when the algorithm cannot run on this fault set.
  std::shared_ptr<CollectiveRun> get(const Descriptor& d);
  // A resumed collective: what START with descriptor `d` runs from now on is schedule
  // `s` (the continuation, models/collective/resume.h), with its own run id.
  std::shared_ptr<CollectiveRun> install(const Descriptor& d, std::shared_ptr<const coll::Schedule> s);
  const FaultSet& faults() const { return *faults_; }
  // After a failure: the runtime learns the new fault set (fault controller).
  void set_faults(std::shared_ptr<const FaultSet> f) { faults_ = std::move(f); }

 private:
  const Config& cfg_;
  std::shared_ptr<const FaultSet> faults_;
  std::map<Descriptor, std::shared_ptr<CollectiveRun>> runs_;
  uint32_t built_ = 0;  // runs built so far: each gets its own id
};

class Chip : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Chip> ctrl;

  Chip(sc_core::sc_module_name name, const Config& cfg, ChipId id, NetworkInterface& ni,
       CollectiveLibrary& lib, sc_core::sc_time period, bool store_data);
  SC_HAS_PROCESS(Chip);

  const sc_core::sc_event& done_event() const { return done_; }
  uint32_t status() const { return status_; }
  uint32_t error() const { return error_; }
  // Why the last START failed, in words (ERROR says which class).
  const std::string& error_text() const { return error_text_; }
  Hbm& hbm() { return hbm_; }
  CollectiveEngine& engine() { return engine_; }
  ChipId id() const { return id_; }

 private:
  void b_transport(tlm::tlm_generic_payload& tx, sc_core::sc_time& delay);
  bool write_reg(uint64_t addr, uint32_t v);
  bool read_reg(uint64_t addr, uint32_t* v) const;
  // Validates the descriptor and starts the engine; returns false (with error_ set)
  // when it is refused.
  bool start();
  void fail(uint32_t code, const std::string& text);
  void on_done();

  const Config& cfg_;
  const ChipId id_;
  CollectiveLibrary& lib_;
  const sc_core::sc_time period_;
  Hbm hbm_;
  CollectiveEngine engine_;
  sc_core::sc_event done_, engine_done_;
  Descriptor d_;
  uint32_t status_ = regs::kIdle, error_ = regs::kNoError;
  std::string error_text_;
  uint64_t done_cycle_ = 0;
};

}  // namespace fm
