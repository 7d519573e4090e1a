// Coordinates, neighbours, wraparound, boards and distances (no simulation).
#include <gtest/gtest.h>

#include "models/noc/topology.h"

using namespace fm;

TEST(Topology, IdsAndCoordinates) {
  NetworkConfig n;
  n.width = 5;
  n.height = 3;
  Topology2D t(n);
  EXPECT_EQ(t.chips(), 15);
  EXPECT_EQ(t.id(0, 0), 0u);
  EXPECT_EQ(t.id(4, 0), 4u);
  EXPECT_EQ(t.id(0, 1), 5u);
  EXPECT_EQ(t.x(13), 3);
  EXPECT_EQ(t.y(13), 2);
}

TEST(Topology, MeshNeighboursStopAtEdges) {
  NetworkConfig n;
  n.width = 4;
  n.height = 4;
  Topology2D t(n);
  EXPECT_EQ(t.neighbour(t.id(0, 0), kWest), -1);
  EXPECT_EQ(t.neighbour(t.id(0, 0), kSouth), -1);
  EXPECT_EQ(t.neighbour(t.id(0, 0), kEast), (long)t.id(1, 0));
  EXPECT_EQ(t.neighbour(t.id(0, 0), kNorth), (long)t.id(0, 1));
  EXPECT_EQ(t.neighbour(t.id(3, 3), kNorth), -1);
  EXPECT_FALSE(t.is_wrap(t.id(3, 0), kEast));
}

TEST(Topology, TorusWrapsAndMarksDateline) {
  NetworkConfig n;
  n.width = 4;
  n.height = 3;
  n.topology = Topology::Torus;
  Topology2D t(n);
  EXPECT_EQ(t.neighbour(t.id(3, 1), kEast), (long)t.id(0, 1));
  EXPECT_EQ(t.neighbour(t.id(0, 1), kWest), (long)t.id(3, 1));
  EXPECT_EQ(t.neighbour(t.id(2, 2), kNorth), (long)t.id(2, 0));
  EXPECT_TRUE(t.is_wrap(t.id(3, 1), kEast));
  EXPECT_TRUE(t.is_wrap(t.id(0, 1), kWest));
  EXPECT_FALSE(t.is_wrap(t.id(1, 1), kEast));
  EXPECT_EQ(t.distance(t.id(0, 0), t.id(3, 2)), 2);  // one wrap hop in each dimension
}

TEST(Topology, BoardsGroupTwoByTwoAndEdgeBoardsAreSmaller) {
  NetworkConfig n;
  n.width = 5;
  n.height = 4;
  Topology2D t(n);
  EXPECT_EQ(t.boards_x(), 3);
  EXPECT_EQ(t.boards_y(), 2);
  EXPECT_EQ(t.board_of(t.id(0, 0)), t.board_of(t.id(1, 1)));
  EXPECT_NE(t.board_of(t.id(1, 1)), t.board_of(t.id(2, 1)));
  EXPECT_EQ(t.board_of(t.id(4, 3)), 5);  // (bx, by) = (2, 1)
}
