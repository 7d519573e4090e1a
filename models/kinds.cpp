// The names of the allreduce vocabulary (models/kinds.h).
#include "models/kinds.h"

namespace fm::coll {

const char* const kAlgoNames = "ring|biring|altring|2d|ft2d|shrink|snake";

const char* to_string(Algo a) {
  switch (a) {
    case Algo::Ring: return "ring";
    case Algo::BiRing: return "biring";
    case Algo::AltRing: return "altring";
    case Algo::TwoD: return "2d";
    case Algo::FT2D: return "ft2d";
    case Algo::Shrink: return "shrink";
    case Algo::Snake: return "snake";
  }
  return "?";
}

const char* to_string(Order o) {
  switch (o) {
    case Order::XY: return "xy";
    case Order::YX: return "yx";
    case Order::Both: return "both";
  }
  return "?";
}

bool parse_algo(const std::string& s, Algo* out) {
  for (Algo a : {Algo::Ring, Algo::BiRing, Algo::AltRing, Algo::TwoD, Algo::FT2D, Algo::Shrink,
                 Algo::Snake})
    if (s == to_string(a)) {
      *out = a;
      return true;
    }
  return false;
}

const char* to_string(Line l) {
  switch (l) {
    case Line::Ring: return "ring";
    case Line::Chain: return "chain";
    case Line::Auto: return "auto";
  }
  return "?";
}

bool parse_line(const std::string& s, Line* out) {
  for (Line l : {Line::Ring, Line::Chain, Line::Auto})
    if (s == to_string(l)) {
      *out = l;
      return true;
    }
  return false;
}

bool parse_order(const std::string& s, Order* out) {
  for (Order o : {Order::XY, Order::YX, Order::Both})
    if (s == to_string(o)) {
      *out = o;
      return true;
    }
  return false;
}

}  // namespace fm::coll
