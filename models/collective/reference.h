// Reference functional executor of a collective schedule: runs the transfers on real
// data and checks the result, to validate both the algorithms and the dependency rules
// (models/collective/schedule.h) independently of the network model.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/collective/resume.h"
#include "models/collective/schedule.h"

namespace fm::coll {

// Every participant starts with word i = initial_word(chip, i). seed 0 runs the
// transfers one by one in list order. Any other seed runs them in a random order that
// only respects the derived dependencies, each transfer as two events: "send" (the
// source's range is snapshotted, once every send dep has been applied) and "apply" (the
// snapshot is added or copied at the destination, once the transfer was sent and every
// apply dep is done: an earlier read of the destination has been sent, an earlier write
// into it applied). Returns "" when every participant ends with the exact elementwise
// sum (mod 2^64) over the participants, else one line naming the first bad chip and
// word, or the stuck events when the dependencies deadlock.
std::string execute_reference(const Schedule& s, uint64_t seed_or_0_for_list_order);

// An aborted and resumed collective on data (models/collective/resume.h): runs `old` in
// the random dependency-respecting order of `seed` until a fraction `stop` of its events
// have happened; a transfer in flight then lands in part with probability 1/2 (an abort
// between two of its packets). The chips `next` leaves out lose their buffers; the plan
// of plan_resume (after `tamper`, a test's way to break it) says which ranges the live
// ones restore, and its continuation runs in random dependency-respecting order. Returns
// "" when every participant of `next` ends with the exact sum over the participants of
// `next` (a refused plan returns its reason); the plan goes to `plan_out`.
std::string execute_resumed_reference(const Schedule& old, const Schedule& next, uint64_t seed,
                                      double stop, ResumePlan* plan_out = nullptr,
                                      const std::function<void(ResumePlan&)>& tamper = {});
// The same through failures that follow one another: runs[0] runs until a fraction
// stops[0] of its events, then the continuation towards runs[1] until stops[1] of its
// events, and so on; the last continuation runs to the end. Each plan replays every
// aborted run since the inputs (models/collective/resume.h, AbortedRun); `tamper` and
// `plan_out` concern the last plan. Returns "" when the participants of runs.back() end
// with the exact sum over them.
std::string execute_chained_reference(const std::vector<const Schedule*>& runs,
                                     const std::vector<double>& stops, uint64_t seed,
                                     ResumePlan* plan_out = nullptr,
                                     const std::function<void(ResumePlan&)>& tamper = {});

}  // namespace fm::coll
