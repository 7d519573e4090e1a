// The names of the allreduce algorithms and 2-D phase orders (algorithms.h builds them;
// config.h carries the user's choice).
#pragma once

namespace fm::coll {

enum class Algo { Ring, BiRing, AltRing, TwoD, FT2D, Shrink, Snake };
// 2-D phase order: X first, Y first, or half the buffer each way at once.
enum class Order { XY, YX, Both };

}  // namespace fm::coll
