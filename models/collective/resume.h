// Resume instead of restart: after a failure aborts a collective, the live chips' buffers
// hold what the aborted run had applied. Some of it is what the collective that replaces
// it (on the live chips) computes anyway - a line's reduce-scatter result held by its old
// owner, a transfer done on the same data - and some is contaminated (a dead chip's
// contribution, a transfer applied in part). plan_resume turns the new schedule into a
// *continuation* that starts from those buffers: it drops the transfers whose results are
// already there (or are never needed), fetches a result held by another chip with one
// copy instead of recomputing it, and restores from the input copy only the ranges the
// continuation reads at their initial value. docs/faults.md ("Resume") has the design.
//
// How it knows what a buffer holds: symbolically. Every chip's gradient is stood for by a
// random 64-bit number; a buffer segment holds the sum of the numbers of the chips whose
// data it has summed (as --verify's data does, one number per segment instead of one per
// word). Running the aborted run's applied transfers gives every segment's contents;
// running the new schedule gives what each of its writes produces. The continuation is
// checked the same way before it is used: run from the resumed buffers it must leave
// every live chip with the sum over the live chips in every segment, else the plan is
// refused and the collective restarts (with 64-bit numbers a wrong plan passes with
// probability about 2^-64 per segment).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "models/collective/schedule.h"

namespace fm::coll {

// Word ranges [first, first + len) per chip.
using Ranges = std::vector<std::vector<std::pair<uint32_t, uint32_t>>>;

// How far the aborted run got with each of its transfers.
enum class Applied : uint8_t { None = 0, Full = 1, Part = 2 };

struct ResumePlan {
  bool ok = false;     // false: use a restart (`why` says what failed)
  std::string why;
  Schedule schedule;   // the continuation (dependencies derived), participants those of the new schedule
  // Per chip: word ranges [first, first + len) to copy back from the input before the
  // continuation starts, ascending, disjoint.
  Ranges restore;
  uint64_t next_words = 0;     // words the new schedule would transfer
  uint64_t run_words = 0;      // words the continuation transfers (copies included)
  uint64_t copy_words = 0;     // of them, results fetched from the chip that holds them
  // The new schedule's words whose work the aborted run had done: next_words less what
  // the continuation runs as the new schedule's own transfers (run_words - copy_words).
  uint64_t kept_words() const { return next_words - (run_words - copy_words); }
  uint64_t restore_words = 0;  // over all chips
  int restore_chips = 0;       // chips with anything to restore
  // What the aborted runs had done (every run since the buffers last held the inputs):
  // words applied in full into live chips, and of them those free of any dead chip's
  // data (the most any resume could keep).
  uint64_t old_applied_words = 0, old_clean_words = 0;
  int rounds = 0;              // planning rounds to a consistent plan
};

// The most memory the planner takes (bytes), about 48 per chip and segment of the
// buffer: a plan that needs more (a 32x32 machine at the report's sizes needs about
// 3.7 GB) is made in strips of segments one after another, with the same result.
constexpr double kPlanMemoryLimit = 2.0 * (1 << 30);

// One aborted run, in the buffers' history since they last held the inputs.
struct AbortedRun {
  const Schedule* schedule = nullptr;
  std::vector<Applied> applied;  // per transfer: how much reached its destination
  // Started from the inputs (the first run, or a restart), or from the buffers the run
  // before it left, with these ranges restored (a resume).
  bool from_inputs = true;
  const Ranges* restored = nullptr;
};

// The continuation of `next` from the buffers that `history` (oldest first; the first
// from the inputs) left. Chips that `next` leaves out are dead (their buffers are lost).
// `distance(a, b)` ranks the chips holding a result by hops to where it is needed
// (nullptr: lowest id). `memory`: the planner's bound in bytes (tests set it small to
// make many strips).
ResumePlan plan_resume(const std::vector<AbortedRun>& history, const Schedule& next,
                       const std::function<int(ChipId, ChipId)>& distance = nullptr,
                       double memory = kPlanMemoryLimit);
// One run aborted, which started from the inputs.
ResumePlan plan_resume(const Schedule& old, const std::vector<Applied>& applied, const Schedule& next,
                       const std::function<int(ChipId, ChipId)>& distance = nullptr,
                       double memory = kPlanMemoryLimit);

}  // namespace fm::coll
