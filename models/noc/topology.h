// Chips on a W x H 2-D mesh or torus, grouped into boards.
// Chip (x, y) has id y * W + x; x grows East, y grows North; (0, 0) is the south-west
// corner. Board (bx, by) holds chips x in [bx*bw, bx*bw+bw), y in [by*bh, by*bh+bh);
// edge boards are smaller when W or H is not a multiple of the board size.
#pragma once
#include "models/config.h"

namespace fm {

class Topology2D {
 public:
  explicit Topology2D(const NetworkConfig& n)
      : w_(n.width), h_(n.height), bw_(n.board_w), bh_(n.board_h), torus_(n.torus()) {}
  int width() const { return w_; }
  int height() const { return h_; }
  int chips() const { return w_ * h_; }
  bool torus() const { return torus_; }
  ChipId id(int x, int y) const { return (ChipId)(y * w_ + x); }
  int x(ChipId c) const { return (int)c % w_; }
  int y(ChipId c) const { return (int)c / w_; }
  // The chip reached through network port p, or -1 at a mesh edge.
  long neighbour(ChipId c, Port p) const;
  // True when the link leaving c through p is a torus wraparound link (the dateline).
  bool is_wrap(ChipId c, Port p) const;
  int board_of(ChipId c) const { return (y(c) / bh_) * boards_x() + x(c) / bw_; }
  int boards_x() const { return (w_ + bw_ - 1) / bw_; }
  int boards_y() const { return (h_ + bh_ - 1) / bh_; }
  // Minimal hop count between two chips (wraparound counted on a torus).
  int distance(ChipId a, ChipId b) const;

 private:
  int w_, h_, bw_, bh_;
  bool torus_;
};

}  // namespace fm
