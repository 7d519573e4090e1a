// The paper report's run store (docs/sweeps.md, "The paper report's run store"): one JSON line
// per finished simulation, kept in the repository (docs/paper/runs.jsonl by default) so
// that the report accumulates from one machine, session or Slurm job to the next.
//
// A record is the run's result without its bulk (no per-link maps unless a figure of
// the page draws them): the configuration echo, cycles and time, both bounds,
// participants and live chips, phases, timeline, verification and flit conservation,
// the busiest link's words; and what made it: the allreduce arguments that define it,
// its schedule fingerprint and model version (the two that decide whether it still
// stands), the commit, the threads, the wall seconds and the host's CPU model.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fm::paper_report {

using StoreJson = nlohmann::ordered_json;

// What a stored record must match to stand for a run: the allreduce arguments that
// define the run (outputs and threads left out: they never change a result), the full
// configuration they give (every default included: a default that changes makes the
// same arguments another run), the fingerprint of the schedules it executes (faultmesh
// allreduce --fingerprint) and the model version of the binary that would run it.
struct RunKey {
  std::string args;
  std::string fingerprint;
  int model_version = 0;
  int recovery_version = 0;  // kRecoveryVersion for a run with --fail-at, else 0
  StoreJson config;  // the configuration echo these arguments give now (null: not compared)
};

// Whether a stored record made by recovery model `made` (kRecoveryVersion) stands for a
// run of model `now`: the same model, or an older one whose change does not touch this
// record (models/model_version.h says what each version changed).
bool recovery_stands(const StoreJson& rec, int made, int now);

// Where and how a run was made.
struct Provenance {
  std::string commit;  // the source tree's commit ("-dirty" when its code differed)
  std::string cpu;     // the host's CPU model, when the run's result does not name its own
  int threads = 1;
  double wall_seconds = 0;
};

class RunStore {
 public:
  // Loads `path`; a missing file is an empty store. Throws UsageError naming the file
  // and line of a line that is not a record (a store is never silently truncated).
  explicit RunStore(std::string path);
  const std::string& path() const { return path_; }
  // The record stored for these arguments, or null.
  const StoreJson* find(const std::string& args) const;
  // The record for k.args when it still stands for the run k describes (same
  // configuration echo, fingerprint and model version), else null.
  const StoreJson* valid(const RunKey& k) const;
  // Adds the record, replacing one with the same arguments, and writes the whole store
  // to a temporary file beside it that is renamed into place: a kill at any moment
  // leaves either the old store or the new one.
  void put(const StoreJson& rec);
  size_t size() const { return recs_.size(); }
  const std::vector<StoreJson>& records() const { return recs_; }
  // Simulated chip-GB per wall second of the ok records made on `cpu` with `threads`
  // threads (sum over sum); 0 when there are none.
  double rate(const std::string& cpu, int threads) const;

 private:
  std::string path_;
  std::vector<StoreJson> recs_;  // in file order
  std::map<std::string, size_t> by_args_;
};

// The schedule fingerprints this binary computed, by run-store key (RunKey::args). A
// report needs every point's fingerprint before it runs anything (and --render-only and
// --plan too); building a schedule to hash it takes up to seconds on the report's largest
// runs, minutes over the whole plan. The same binary builds the same schedules from the
// same arguments, so the fingerprints are kept in `dir` (the report's scratch runs
// directory) in a file named by a hash of the binary's own bytes, and a later report of
// the same binary reads them back; a rebuilt binary starts a file of its own. A line cut
// by a kill is skipped. Without a readable binary (no /proc/self/exe) nothing is cached.
class FingerprintCache {
 public:
  // Reads the file of this binary in `dir`; `write`: append what get() computes (only
  // when `dir` exists).
  FingerprintCache(const std::string& dir, bool write);
  // The fingerprint for these arguments (allreduce_fingerprint(args)), from the file
  // or computed (and then appended).
  std::string get(const std::string& key, const std::vector<std::string>& args);
  const std::string& path() const { return path_; }
  int hits() const { return hits_; }

 private:
  std::string path_;  // empty: not cached
  bool write_ = false;
  std::map<std::string, std::string> fp_;
  int hits_ = 0;
};

// The record of a finished run from its result JSON (faultmesh allreduce --json): the
// compact fields the page reads, the per-link utilization only with `with_links`, and
// the key and provenance. `name` is the report's name for the run.
StoreJson make_record(const StoreJson& run, const std::string& name, const RunKey& k, const Provenance& p,
                      bool with_links);

// The chip-GB a record simulated: chips x bytes per chip (0 when its mesh is unreadable).
double record_chip_gb(const StoreJson& rec);

// The commit of the git work tree that holds `dir`, with "-dirty" when its files other
// than docs/ differ from it; "unknown" outside a work tree or without git.
std::string source_commit(const std::string& dir);

}  // namespace fm::paper_report
