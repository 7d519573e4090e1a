// A collective as data: the list of chunk transfers every chip's collective engine
// executes, with the dependencies that make any execution order respecting them give
// the same result as running the transfers one by one in list order.
//
// Units: the gradient buffer is `words` words long; one word is the payload of one
// data flit (NetworkConfig::flit_bytes bytes of gradient). In --verify mode each word is
// a 64-bit integer and reduction is integer addition (mod 2^64), so sums are exact and
// any missing, duplicated or misplaced contribution shows.
//
// Semantics of one transfer (Xfer): the engine of `src` reads words [offset, offset+len)
// of its buffer and sends them to `dst`, whose engine either adds them into the same
// range of its own buffer (reduce) or overwrites that range (copy). Offsets are the same
// at both ends (all algorithms here work in place).
//
// Dependencies (computed by ScheduleBuilder from the list order, never written by hand):
//   send deps  of X: earlier transfers INTO X.src whose range overlaps X's range; X may
//                    start reading only after all of them have been applied at X.src.
//   apply deps of X: earlier transfers OUT OF X.dst whose range overlaps (X must not
//                    overwrite data still to be read: write-after-read), and earlier
//                    transfers INTO X.dst overlapping X where either one is a copy
//                    (reduce after reduce commutes; copy does not). X's data may arrive
//                    early; the engine holds it until these are done.
// An execution that respects both gives exactly the result of the sequential order.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "models/kinds.h"
#include "models/noc/types.h"

namespace fm::coll {

struct Xfer {
  ChipId src = 0, dst = 0;
  uint32_t offset = 0, len = 0;  // words
  uint8_t reduce = 0;            // 1: dst adds; 0: dst overwrites
  uint8_t phase = 0;             // index into Schedule::phases
};

struct Schedule {
  uint32_t words = 0;                    // buffer length in words
  std::vector<char> participant;         // per chip id: takes part (contributes, receives)
  std::vector<Phase> phases;             // in order of first use; phase_name() shows one
  std::vector<Xfer> xfers;               // in sequential-semantics order
  // The dependencies, held the way the engines use them (one copy for the schedule and
  // its run): per transfer the number of its send (apply) dependencies, and the
  // transfers that have transfer i as one, in list order:
  // send_succ_idx[send_succ_off[i] .. send_succ_off[i+1]). dependencies() gives them
  // the other way round.
  std::vector<uint32_t> send_deps, apply_deps;
  std::vector<uint32_t> send_succ_off, send_succ_idx;
  std::vector<uint32_t> apply_succ_off, apply_succ_idx;
  int participants() const {
    int n = 0;
    for (char p : participant) n += p != 0;
    return n;
  }
};

// The phases' display names, in phase order (the results' "phases", the run page).
inline std::vector<std::string> phase_names(const Schedule& s) {
  std::vector<std::string> n;
  for (const Phase& p : s.phases) n.push_back(phase_name(p));
  return n;
}

// Collects transfers in sequential-semantics order and derives the dependencies.
class ScheduleBuilder {
 public:
  // count_only: add() checks and counts transfers but stores none (finish() must not be
  // called): the transfer count of a schedule in O(chips) memory (count_transfers).
  ScheduleBuilder(int chips, uint32_t words, bool count_only = false);
  void set_participant(ChipId c, bool on);
  // Returns the phase index (creating the phase on first use of `p`).
  int phase(const Phase& p);
  void add(ChipId src, ChipId dst, uint32_t offset, uint32_t len, bool reduce, int phase);
  Schedule finish();  // computes the dependency lists; the builder is spent
  uint64_t added() const { return added_; }  // transfers added so far
  // The schedule as built so far: transfers and phase names, no dependencies yet.
  const Schedule& pending() const { return s_; }
  bool count_only() const { return count_only_; }
  // Counts n transfers without adding them: a count-only builder's shortcut for a
  // pattern whose transfer count is known in closed form (emit's lines).
  void count(uint64_t n) { added_ += n; }

 private:
  Schedule s_;
  bool count_only_ = false;
  uint64_t added_ = 0;
};

// The send (send = true) or apply dependencies of every transfer as compressed lists:
// those of transfer i are idx[off[i] .. off[i+1]), ascending (reference executor, tests).
struct DepLists {
  std::vector<uint32_t> off, idx;
};
DepLists dependencies(const Schedule& s, bool send);

// A 64-bit hash of everything a schedule tells the engines: the buffer length, the
// participants, the phase names, every transfer (ends, range, reduce or copy, phase)
// and the derived dependencies in both directions. Two schedules with the same
// fingerprint drive the model identically, so a stored result made from one stands for
// the other (the paper report's run store, docs/results.md). FNV-1a over the fields'
// little-endian bytes: the same value on every platform and build.
uint64_t fingerprint(const Schedule& s);

// The initial value of word i of chip c's buffer in --verify mode and in the reference
// executor (models/collective/reference.h): a 64-bit hash of (c, i), so every chip and
// word differs and a misplaced or duplicated contribution changes the sum.
uint64_t initial_word(ChipId c, uint32_t i);

}  // namespace fm::coll
