// The option schema's rows of the faults (net.faults: failed chips, boards and links,
// from the command line, a fault file or a schedule of failures during the run) and of
// the recovery from a failure (tb/config_params_impl.h lists every group and its file).
#include <fstream>

#include "models/noc/fault_set.h"
#include "tb/config_params_impl.h"

namespace fm::params_detail {

namespace {

std::vector<Coord>& failed_chips(Config& c) { return c.net.faults.chips; }
std::vector<Coord>& failed_boards(Config& c) { return c.net.faults.boards; }

}  // namespace

// Faults: what has failed before the run, and what fails during it.
std::vector<Param> fault_rows() {
  using S = Section;
  std::vector<Param> t;
  auto coord_list = [](const char* name, const char* member, const char* values,
                       std::string (*parse)(const std::string&, Config*), Json (*echo)(const Config&),
                       const char* help) {
    return list_row(name, Section::Network, kNet, member, values, parse, echo, help);
  };
  t.push_back(coord_list(
      "fail-chip", "net.faults.chips", "x,y; repeatable",
      add_coord<failed_chips>, echo_coords<failed_chips>, "failed chip x,y (repeatable)"));
  t.push_back(coord_list(
      "fail-board", "net.faults.boards", "bx,by; repeatable",
      add_coord<failed_boards>, echo_coords<failed_boards>,
      "failed board bx,by in board coordinates: all its chips (repeatable)"));
  t.push_back(coord_list(
      "fail-link", "net.faults.links", "x,y:D or x,y:D:oneway, D = N | E | S | W; repeatable",
      [](const std::string& s, Config* c) -> std::string {
        LinkFault l;
        if (!parse_link_fault(s, &l)) return "expected x,y:D or x,y:D:oneway with D one of N, E, S, W";
        c->net.faults.links.push_back(l);
        return "";
      },
      [](const Config& c) {
        Json a = Json::array();
        for (const LinkFault& l : c.net.faults.links) a.push_back(to_string(l));
        return a;
      },
      "failed link x,y:D (D = N|E|S|W; both directions) or x,y:D:oneway (repeatable)"));
  // Files: read after validate(), their places checked against the valid mesh line by
  // line; their faults are echoed in the lists above and below.
  t.push_back(with(text_row("fault-file", S::Network, kNet, "net.faults", "a file",
                            [](const std::string& s, Config* c) -> std::string {
                              read_fault_file(s, &c->net.faults, &c->net);  // throws ConfigError naming the line
                              return "";
                            },
                            nullptr,
                            "file of faults, one per line: chip x,y | board bx,by | link x,y:D [oneway]; # comments"),
                   [](Param& p) { p.late = true, p.echoed = false; }));
  // One failure of the schedule; `where` names it in errors ("--fail-at X", "FILE line N").
  static std::string (*const add_timed)(const std::string&, Config*, const std::string&) =
      [](const std::string& f, Config* c, const std::string& where) -> std::string {
    TimedFault t;
    std::string e = parse_timed_fault(f, &t);
    if (e.empty()) {
      FaultConfig one;
      one.timed.push_back(t);
      e = place_error(c->net, with_timed(one, {0}));
    }
    if (!e.empty()) throw ConfigError(where + ": " + e);
    c->net.faults.timed.push_back(t);
    return "";
  };
  t.push_back(with(text_row("fail-schedule", S::Recovery, kAllreduce, "net.faults.timed", "a file",
                            [](const std::string& path, Config* c) -> std::string {
                              std::ifstream in;
                              open_input_file(path, "--fail-schedule " + path, &in);
                              std::string line;
                              int failures = 0;
                              for (int no = 1; std::getline(in, line); ++no) {
                                if (const size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
                                const size_t a = line.find_first_not_of(" \t\r"), b = line.find_last_not_of(" \t\r");
                                if (a == std::string::npos) continue;  // blank or comment
                                add_timed(line.substr(a, b - a + 1), c,
                                          "--fail-schedule " + path + " line " + std::to_string(no));
                                ++failures;
                              }
                              // A schedule without a failure would run fault-free with no word said: a
                              // wrong file, or one not written yet.
                              if (failures == 0)
                                throw ConfigError("--fail-schedule " + path +
                                                  ": no failure in the file (only blank and comment lines); one "
                                                  "--fail-at value per line, e.g. 2000:board:1,1");
                              return "";
                            },
                            nullptr,
                            "a file of failures during the run, one --fail-at value per line, # comments "
                            "(docs/faults.md)"),
                   [](Param& p) { p.late = true, p.echoed = false; }));
  t.push_back(with(list_row("fail-at", S::Recovery, kAllreduce, "net.faults.timed", "WHEN:chip:x,y | WHEN:board:bx,by | WHEN:link:x,y:D[:oneway]; repeatable",
                            [](const std::string& f, Config* c) { return add_timed(f, c, "--fail-at " + f); },
                            [](const Config& c) {
                              Json a = Json::array();
                              for (const TimedFault& f : c.net.faults.timed) a.push_back(to_string(f));
                              return a;
                            },
                            "a failure during the run: WHEN:chip:x,y | WHEN:board:bx,by | WHEN:link:x,y:D[:oneway], "
                            "WHEN a cycle (120000), a share of the data reduced (50%) or the start of a phase "
                            "(@reduce-scatter-y, @all-gather-x+500: that many cycles later); repeatable "
                            "(docs/faults.md)"),
                   [](Param& p) { p.late = true; }));
  return t;
}

// Recovery: detecting a failure, draining, rewriting the tables, restarting or resuming.
std::vector<Param> recovery_rows() {
  using S = Section;
  std::vector<Param> t;
  t.push_back(count_row("detect-cycles", S::Recovery, kAllreduce, "recovery.detect", FM_REF(uint64_t, recovery.detect),
                        0, "cycles", "cycles from a failure until the neighbours report it"));
  t.push_back(count_row("drain-quiet", S::Recovery, kAllreduce, "recovery.quiet", FM_REF(uint64_t, recovery.quiet), 8,
                        "cycles", "recovery: flush the network once no flit has moved for this many cycles"));
  t.push_back(count_row("drain-max", S::Recovery, kAllreduce, "recovery.max_drain",
                        FM_REF(uint64_t, recovery.max_drain), 1, "cycles",
                        "recovery: flush the network at the latest after this many cycles of draining"));
  t.push_back(count_row("table-write-cycles", S::Recovery, kAllreduce, "recovery.write_cycles",
                        FM_REF(uint64_t, recovery.write_cycles), 1, "cycles",
                        "recovery: cycles per route-table register write (routers are written in parallel)"));
  t.push_back(FM_ENUM_ROW("restart-algo", S::Recovery, kAllreduce, "recovery.restart_algo", coll::Algo,
                          recovery.restart_algo, "the algorithm the collective restarts with after a failure"));
  t.push_back(FM_ENUM_ROW("recovery", S::Recovery, kAllreduce, "recovery.mode", RecoveryConfig::Mode, recovery.mode,
      "after a failure: restart (every chip restores its gradient, the collective runs from the start) | resume "
      "(keep the transfers already done on the same data, restore only contaminated ranges)"));
  return t;
}

}  // namespace fm::params_detail
