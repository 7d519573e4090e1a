// The names of the allreduce algorithms and 2-D phase orders (algorithms.h builds them;
// config.h carries the user's choice).
#pragma once

namespace fm::coll {

enum class Algo { Ring, BiRing, AltRing, TwoD, FT2D, Shrink, Snake };
// 2-D phase order: X first, Y first, or half the buffer each way at once.
enum class Order { XY, YX, Both };
// How the 2-D family runs a straight line of chips (a row or column ring, a phase-2
// group on one line): Ring (the natural ring both ways when it closes, else the
// alternate-node ring), Chain (both ends reduce toward each owner and copy back: every
// link direction carries the range once), Auto (the lower link load per line: ring
// where it closes, chain where it cannot).
enum class Line { Ring, Chain, Auto };

}  // namespace fm::coll
