// The configuration's allreduce vocabulary: the algorithms, 2-D phase orders and line
// schemes, with their names and parsers. config.h carries the user's choice and
// models/collective/ builds the schedules; both include this, so neither folder needs
// the other for it.
#pragma once

#include <string>

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

const char* to_string(Algo a);
const char* to_string(Order o);
const char* to_string(Line l);
// Each parser: true and *out set when s is one of the names to_string gives.
bool parse_algo(const std::string& s, Algo* out);
bool parse_order(const std::string& s, Order* out);
bool parse_line(const std::string& s, Line* out);
extern const char* const kAlgoNames;  // "ring|biring|altring|2d|ft2d|shrink|snake"

}  // namespace fm::coll
