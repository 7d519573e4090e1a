// Reference functional executor of a collective schedule: runs the transfers on real
// data and checks the result, to validate both the algorithms and the dependency rules
// (models/collective/schedule.h) independently of the network model.
#pragma once
#include <cstdint>
#include <string>

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

}  // namespace fm::coll
