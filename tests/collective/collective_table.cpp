// Prints the schedule_load table of docs/collectives.md: busiest link direction (words)
// of fault-free 2d and of ft2d / shrink / snake with one failed 2x2 board, on 16x32 and
// 32x32 meshes and tori, relative to fault-free 2d, with the topology lower bound.
//   build/tests/collective_table [words] [chunk_words] [order xy|yx|both]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "models/collective/algorithms.h"
#include "models/routing/routes.h"

// libsystemc refers to sc_main with C linkage (sysc/kernel/sc_externs.h, not included
// here): without extern "C" this one is a different, C++-mangled function.
extern "C" int sc_main(int, char**) { return 0; }

using namespace fm;
using namespace fm::coll;

namespace {

struct Row {
  double max_words, bound;
  int participants;
};

Row measure(NetworkConfig n, Algo a, Order o, uint32_t words, uint32_t chunk) {
  FaultSet f(n);
  const RouteSet rs = build_routes(n, f);
  if (rs.fallback_dests > 0)
    fprintf(stderr, "note: %d destinations on non-minimal fallback routes\n", rs.fallback_dests);
  AlgoParams p;
  p.algo = a;
  p.order = o;
  p.words = words;
  p.chunk_words = chunk;
  const Schedule s = build_schedule(f, p);
  const ScheduleLoad l = schedule_load(s, f.topology(), rs.tables);
  return {algorithm_bound_words(l), topology_bound_words(f, s.participant, words), s.participants()};
}

}  // namespace

// Debug view: collective_table detail W H mesh|torus bx by algo order words
static int detail(char** argv) {
  NetworkConfig n;
  n.width = atoi(argv[2]);
  n.height = atoi(argv[3]);
  n.topology = std::string(argv[4]) == "torus" ? Topology::Torus : Topology::Mesh;
  n.vcs = atoi(argv[10]);
  if (atoi(argv[5]) >= 0) n.faults.boards = {Coord{atoi(argv[5]), atoi(argv[6])}};
  FaultSet f(n);
  const RouteSet rs = build_routes(n, f);
  AlgoParams p;
  if (!parse_algo(argv[7], &p.algo) || !parse_order(argv[8], &p.order)) return 2;
  p.words = p.chunk_words = (uint32_t)atol(argv[9]);
  const Schedule s = build_schedule(f, p);
  const ScheduleLoad l = schedule_load(s, f.topology(), rs.tables);
  const Topology2D& t = f.topology();
  printf("routes %s groups %d fallback %d\n", rs.scheme.c_str(), rs.groups, rs.fallback_dests);
  printf("participants %d xfers %zu max %llu hops %d\n", s.participants(), s.xfers.size(),
         (unsigned long long)l.max_link_words, l.max_hops);
  for (int y = t.height() - 1; y >= 0; --y) {
    for (int pp : {0, 1, 2, 3}) {
      printf("%2d %s ", y, port_name((Port)pp));
      for (int x = 0; x < t.width(); ++x)
        printf("%5.0f", 100.0 * l.link_words[t.id(x, y) * 4 + pp] / l.max_link_words);
      printf("\n");
    }
  }
  // Per chip: HBM words moved, in units of the buffer (S): the engines' other limit.
  uint64_t hmax = 0;
  for (uint64_t h : l.chip_hbm_words) hmax = std::max(hmax, h);
  printf("hbm words / S, busiest %.3f\n", (double)hmax / p.words);
  for (int y = t.height() - 1; y >= 0; --y) {
    printf("%2d   ", y);
    for (int x = 0; x < t.width(); ++x) printf("%5.2f", (double)l.chip_hbm_words[t.id(x, y)] / p.words);
    printf("\n");
  }
  return 0;
}

// Drawing of ft2d: collective_table draw W H mesh|torus bx by
// A ring chip shows where its row ring sends next ('>' '<' one hop, '*' a longer
// edge; the forward direction of two-way rings); a leaf shows which way it hands its
// data over ('n' 's' 'e' 'w'); '#' is a dead chip.
static int draw(char** argv, int) {
  NetworkConfig n;
  n.width = atoi(argv[2]);
  n.height = atoi(argv[3]);
  n.topology = std::string(argv[4]) == "torus" ? Topology::Torus : Topology::Mesh;
  if (atoi(argv[5]) >= 0) n.faults.boards = {Coord{atoi(argv[5]), atoi(argv[6])}};
  FaultSet f(n);
  AlgoParams p;
  p.algo = Algo::FT2D;
  p.words = p.chunk_words = 1u << 20;
  const Schedule s = build_schedule(f, p);
  const Topology2D& t = f.topology();
  int fold = -1, rs = -1;
  for (size_t i = 0; i < s.phases.size(); ++i) {
    if (s.phases[i].step == Step::Fold) fold = (int)i;
    if (s.phases[i] == Phase{Step::ReduceScatter, Dim::X}) rs = (int)i;
  }
  std::vector<long> next(t.chips(), -1), hand(t.chips(), -1);
  for (const Xfer& x : s.xfers) {
    if (x.phase == rs && (!t.torus() || x.offset < p.words / 2)) next[x.src] = x.dst;
    if (x.phase == fold && t.distance(x.src, x.dst) == 1) hand[x.src] = x.dst;
  }
  for (int y = t.height() - 1; y >= 0; --y) {
    printf("  %2d  ", y);
    for (int x = 0; x < t.width(); ++x) {
      const ChipId c = t.id(x, y);
      char ch = '.';
      if (f.chip_dead(c)) ch = '#';
      else if (hand[c] >= 0 && next[c] < 0) {
        for (Port q : {kNorth, kEast, kSouth, kWest})
          if (t.neighbour(c, q) == hand[c]) ch = "nesw"[q];
      } else if (next[c] >= 0) {
        const ChipId d = (ChipId)next[c];
        ch = '*';
        for (Port q : {kNorth, kEast, kSouth, kWest})
          if (t.neighbour(c, q) == (long)d) ch = "^>v<"[q];
      }
      printf("%c ", ch);
    }
    printf("\n");
  }
  printf("      ");
  for (int x = 0; x < t.width(); ++x) printf("%d ", x % 10);
  printf("\n");
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "detail") return detail(argv);
  if (argc > 6 && std::string(argv[1]) == "draw") return draw(argv, argc);
  const uint32_t words = argc > 1 ? (uint32_t)atol(argv[1]) : 1600000;
  const uint32_t chunk = argc > 2 ? (uint32_t)atol(argv[2]) : words;
  Order order = Order::Both;
  if (argc > 3 && !parse_order(argv[3], &order)) {
    fprintf(stderr, "order must be xy|yx|both\n");
    return 2;
  }
  printf("words %u, order %s; cells: max link words / fault-free 2d (participants)\n\n", words,
         to_string(order));
  printf("| machine | hole board | 2d fault-free | ft2d | shrink | snake | topology bound (hole) |\n");
  printf("|---|---|---|---|---|---|---|\n");
  for (int W : {16, 32})
    for (bool torus : {false, true}) {
      NetworkConfig n;
      n.width = W;
      n.height = 32;
      n.topology = torus ? Topology::Torus : Topology::Mesh;
      n.vcs = 8;  // lash needs 8 VCs for minimal routes on a 32x32 torus with a hole
      const Row ff = measure(n, Algo::TwoD, order, words, chunk);
      const int bx = W / 4, by = 8;  // the middle of the machine
      for (Coord hole : {Coord{bx, by}, Coord{0, by}, Coord{0, 0}}) {
        NetworkConfig h = n;
        h.faults.boards = {hole};
        const Row r[3] = {measure(h, Algo::FT2D, order, words, chunk),
                          measure(h, Algo::Shrink, order, words, chunk),
                          measure(h, Algo::Snake, order, words, chunk)};
        printf("| %dx%d %s | %d,%d | %.0f (%d) |", W, 32, torus ? "torus" : "mesh", hole.x, hole.y,
               ff.max_words, ff.participants);
        for (const Row& x : r) printf(" %.4f (%d) |", x.max_words / ff.max_words, x.participants);
        printf(" %.4f |\n", r[0].bound / ff.max_words);
        fflush(stdout);
      }
    }
  return 0;
}
