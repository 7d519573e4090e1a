// The configuration's allreduce vocabulary: the algorithms, 2-D phase orders and line
// schemes, with their names and parsers. config.h carries the user's choice and
// models/collective/ builds the schedules; both include this, so neither folder needs
// the other for it.
#pragma once

#include <cstdint>
#include <string>

namespace fm {

// One name table per enum: every name of the enum's values, the first of each value
// its canonical one (to_string, the result's echo), later ones accepted aliases;
// `listed` says whether the option's "allowed" list shows it. EnumNames<E>::table is
// specialised next to each enum; to_string, the parsers and the allowed lists of the
// options (tb/config_params.cpp) all read it.
template <class E>
struct EnumName {
  E value;
  const char* name;
  bool listed = true;
};
template <class E>
struct EnumNames;

template <class E>
const char* enum_name(E e) {
  for (const EnumName<E>& n : EnumNames<E>::table)
    if (n.value == e) return n.name;
  return "?";
}
template <class E>
bool parse_enum(const std::string& s, E* out) {
  for (const EnumName<E>& n : EnumNames<E>::table)
    if (s == n.name) {
      *out = n.value;
      return true;
    }
  return false;
}
// The listed names, " | " between them ("mesh | torus").
template <class E>
const char* enum_list() {
  static const std::string list = [] {
    std::string r;
    for (const EnumName<E>& n : EnumNames<E>::table)
      if (n.listed) r += (r.empty() ? "" : " | ") + std::string(n.name);
    return r;
  }();
  return list.c_str();
}

}  // namespace fm

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

// A schedule's phase, as the code tells phases apart (names are for display and for
// the command line's phase triggers): what it does, along which dimension of the
// machine, and for which half of order both.
enum class Step : uint8_t { ReduceScatter, AllGather, Fold, Unfold };
enum class Dim : uint8_t { None, X, Y };
enum class Half : uint8_t { Whole, XY, YX };
struct Phase {
  Step step = Step::ReduceScatter;
  Dim dim = Dim::None;
  Half half = Half::Whole;
  bool operator==(const Phase& o) const { return step == o.step && dim == o.dim && half == o.half; }
  bool fold() const { return step == Step::Fold || step == Step::Unfold; }
};

inline const char* to_string(Algo a) { return enum_name(a); }
inline const char* to_string(Order o) { return enum_name(o); }
inline const char* to_string(Line l) { return enum_name(l); }
// Each parser: true and *out set when s is one of the names to_string gives.
inline bool parse_algo(const std::string& s, Algo* out) { return parse_enum(s, out); }
inline bool parse_order(const std::string& s, Order* out) { return parse_enum(s, out); }
inline bool parse_line(const std::string& s, Line* out) { return parse_enum(s, out); }

}  // namespace fm::coll

namespace fm {

template <>
struct EnumNames<coll::Algo> {
  static constexpr EnumName<coll::Algo> table[] = {
      {coll::Algo::Ring, "ring"},   {coll::Algo::BiRing, "biring"}, {coll::Algo::AltRing, "altring"},
      {coll::Algo::TwoD, "2d"},     {coll::Algo::FT2D, "ft2d"},     {coll::Algo::Shrink, "shrink"},
      {coll::Algo::Snake, "snake"}};
};
template <>
struct EnumNames<coll::Order> {
  static constexpr EnumName<coll::Order> table[] = {
      {coll::Order::XY, "xy"}, {coll::Order::YX, "yx"}, {coll::Order::Both, "both"}};
};
template <>
struct EnumNames<coll::Line> {
  static constexpr EnumName<coll::Line> table[] = {
      {coll::Line::Ring, "ring"}, {coll::Line::Chain, "chain"}, {coll::Line::Auto, "auto"}};
};

template <>
struct EnumNames<coll::Step> {
  static constexpr EnumName<coll::Step> table[] = {{coll::Step::ReduceScatter, "reduce-scatter"},
                                                   {coll::Step::AllGather, "all-gather"},
                                                   {coll::Step::Fold, "fold leaves"},
                                                   {coll::Step::Unfold, "unfold leaves"}};
};
template <>
struct EnumNames<coll::Dim> {
  static constexpr EnumName<coll::Dim> table[] = {{coll::Dim::None, ""}, {coll::Dim::X, "x"}, {coll::Dim::Y, "y"}};
};
template <>
struct EnumNames<coll::Half> {
  static constexpr EnumName<coll::Half> table[] = {
      {coll::Half::Whole, ""}, {coll::Half::XY, "xy half"}, {coll::Half::YX, "yx half"}};
};

namespace coll {
// A phase's display name, from the name tables above: "reduce-scatter x (xy half)",
// "all-gather", "fold leaves".
inline std::string phase_name(const Phase& p) {
  std::string n = enum_name(p.step);
  if (p.dim != Dim::None) n += std::string(" ") + enum_name(p.dim);
  if (p.half != Half::Whole) n += std::string(" (") + enum_name(p.half) + ")";
  return n;
}
}  // namespace coll

}  // namespace fm
