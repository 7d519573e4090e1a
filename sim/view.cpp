// faultmesh view: the HTML page of a run (sim/view.h). The C++ side turns each run JSON
// into a compact "page data" object (the page's only input, docs/view.md) and embeds it
// with the page's script and styles (sim/templates/view_page.html) into one file.
#include "sim/view.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "sim/io.h"
#include "sim/po_error.h"
#include "sim/sweep.h"
#include "tb/result_keys.h"
#include "tb/util/parse.h"

namespace fm {

// The page of a run (sim/templates/view_page.html, compiled in by sim/CMakeLists.txt):
// styles and script inline, the run data in a JSON script element (@DATA@, the page
// data below), nothing loaded from anywhere. docs/view.md describes every element. The
// script renders the machine as SVG, one element per link direction, and recolours it
// for the window the scrubber (or the URL: #w=N, the Nth window of the first run, or
// #cycle=C; &link=x,y:D or &chip=x,y hovers one) selects; the DOM carries what is shown
// (data-window, data-flits, data-util, class "dead") so a headless browser test can read
// it back. Errors in the page are listed in #errors.
extern const char* const kViewPage;
// The sweep directory's index.html (sim/templates/sweep_index.html; write_sweep_index):
// the figures, and the points' table, sortable by clicking a column header (numbers as
// numbers).
extern const char* const kSweepIndexPage;

namespace po = boost::program_options;
using Json = nlohmann::json;
namespace rk = result_key;

namespace {

int port_index(const std::string& p) {
  static const char* kNames[] = {"N", "E", "S", "W"};
  for (int i = 0; i < 4; ++i)
    if (p == kNames[i]) return i;
  return -1;
}

// "16x32" -> (16, 32); false when malformed.
bool parse_wh(const Json& v, int* w, int* h) {
  if (!v.is_string()) return false;
  return parse_wxh(v.get<std::string>(), w, h);
}

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

double num(const Json& r, const char* k) { return r.contains(k) && r[k].is_number() ? r[k].get<double>() : 0.0; }
uint64_t unum(const Json& r, const char* k) {
  return r.contains(k) && r[k].is_number() ? r[k].get<uint64_t>() : 0;
}

// What makes a JSON a run result at all: an object with config.mesh, cycles and
// link_utilization; throws UsageError otherwise.
void require_result(const Json& r, const std::string& name) {
  int W = 0, H = 0;
  if (!r.is_object() || !r.contains(rk::kConfig) || !r[rk::kConfig].is_object() ||
      !parse_wh(r[rk::kConfig].value("mesh", Json()), &W, &H) || !r.contains(rk::kLinkUtilization) ||
      !r[rk::kLinkUtilization].is_array() || !r.contains(rk::kCycles))
    throw UsageError("view " + name + ": not an allreduce or traffic result (needs config.mesh, cycles and link_utilization; "
                     "write one with faultmesh allreduce|traffic --json FILE)");
}

// The results contract of the page: every field run_data and figures read, with its
// type and range, checked before anything is drawn. A result edited by hand, truncated
// into other JSON or written by another tool is bad input naming the field and what it
// must be, never an exception from the JSON library or a page of nonsense (a link at
// x = 1000, -5 cycles, a 4096x4096 machine the simulator cannot run).
class ResultCheck {
 public:
  explicit ResultCheck(const std::string& file) : file_(file) {}

  void run(const Json& r) {
    // The kind and schema first: a result of a newer schema may not hold what the
    // checks below look for, and says so rather than failing one of them.
    if (r.is_object()) {
      try {
        result_kind(r);
      } catch (const ConfigError& e) {
        throw UsageError("view " + file_ + ": " + e.what());
      }
    }
    require_result(r, file_);
    const Json& c = r[rk::kConfig];
    int W = 0, H = 0;
    parse_wh(c["mesh"], &W, &H);
    if (W < 1 || H < 1 || W > 4096 || H > 4096 || (long)W * H > 16384)
      bad("config.mesh", "a machine the simulator runs: WxH, each 1..4096, at most 16384 chips", c["mesh"]);
    w_ = W, h_ = H;
    if (c.contains("board")) {
      int bw = 0, bh = 0;
      if (!parse_wh(c["board"], &bw, &bh) || bw < 1 || bh < 1 || bw > W || bh > H)
        bad("config.board", "WxH within the mesh", c["board"]);
    }
    for (const char* k : {"topology", "pattern"}) opt_string(c, k, "config.");
    for (const char* k : {"cycle_ns", "rate"}) opt_number(c, k, "config.", 0, 1e9);
    for (const char* k : {rk::kCycles, rk::kStartCycle, rk::kWarmupCycles, rk::kMeasureCycles, rk::kDrainCycles,
                          rk::kLiveChips, rk::kParticipants, rk::kBytes, rk::kRestarts, rk::kFlitsInjected,
                          rk::kFlitsEjected})
      opt_count(r, k, "");
    for (const char* k : {rk::kTimeUs, rk::kBusbwGBps, rk::kAlgbwGBps, rk::kBoundRatio, rk::kTopoBoundRatio,
                          rk::kLinkUtilMean, rk::kLinkUtilMax, rk::kOfferedFlitRate, rk::kAcceptedFlitRate,
                          rk::kAvgPacketLatency, rk::kP99PacketLatency, rk::kMaxPacketLatency})
      opt_number(r, k, "", -1e18, 1e18);
    for (const char* k : {rk::kAlgo, rk::kStopReason, rk::kMessage}) opt_string(r, k, "");
    for (const char* k : {rk::kOk, rk::kConservationOk})
      if (r.contains(k) && !r[k].is_boolean()) bad(k, "true or false", r[k]);
    if (r.contains(rk::kVerified) && !r[rk::kVerified].is_boolean() && !r[rk::kVerified].is_null())
      bad(rk::kVerified, "true, false or null", r[rk::kVerified]);
    if (r.contains(rk::kFlitsDropped)) {
      const Json& d = object(r[rk::kFlitsDropped], rk::kFlitsDropped);
      for (auto it = d.begin(); it != d.end(); ++it) count(it.value(), std::string(rk::kFlitsDropped) + "." + it.key());
    }
    each(r, rk::kLinkUtilization, [&](const Json& l, const std::string& at) {
      link(l, at);
      number(field(l, "utilization", at), at + ".utilization", 0, 1e6);
    }, true);
    if (r.contains(rk::kLinkWindows)) {
      const Json& lw = object(r[rk::kLinkWindows], rk::kLinkWindows);
      size_t links = 0;
      const std::string in_lw = std::string(rk::kLinkWindows) + ".";
      each(lw, "links", [&](const Json& l, const std::string& at) { link(l, at), ++links; }, true, in_lw);
      each(lw, "windows", [&](const Json& w, const std::string& at) {
        const uint64_t from = count(field(w, "from", at), at + ".from"), to = count(field(w, "to", at), at + ".to");
        if (to < from) bad(at + ".to", "a cycle >= from (" + std::to_string(from) + ")", w["to"]);
        const Json& f = array(field(w, "flits", at), at + ".flits");
        if (f.size() != links) bad(at + ".flits", std::to_string(links) + " counts, one per link", f);
        for (size_t i = 0; i < f.size(); ++i) count(f[i], at + ".flits[" + std::to_string(i) + "]");
      }, true, in_lw);
    }
    each(r, rk::kDeadChips,
         [&](const Json& x, const std::string& at) { chip(x, at), count(field(x, "cycle", at), at + ".cycle"); });
    each(r, rk::kDeadLinks, [&](const Json& x, const std::string& at) {
      link(x, at);
      count(field(x, "cycle", at), at + ".cycle");
      string(field(x, "cause", at), at + ".cause");
    });
    each(r, rk::kDeadBoards, [&](const Json& x, const std::string& at) {
      coord(field(x, "x0", at), at + ".x0", w_), coord(field(x, "y0", at), at + ".y0", h_);
      integer(field(x, "w", at), at + ".w", 1, w_), integer(field(x, "h", at), at + ".h", 1, h_);
      integer(field(x, "bx", at), at + ".bx", 0, w_), integer(field(x, "by", at), at + ".by", 0, h_);
      count(field(x, "cycle", at), at + ".cycle");
    });
    each(r, rk::kLinkDrops, [&](const Json& x, const std::string& at) {
      link(x, at);
      count(field(x, "dead_link", at), at + ".dead_link"), count(field(x, "dead_destination", at), at + ".dead_destination");
    });
    each(r, rk::kChipDrops, [&](const Json& x, const std::string& at) {
      chip(x, at), count(field(x, "dead_router", at), at + ".dead_router");
    });
    each(r, rk::kChipRoles, [&](const Json& s, const std::string& at) {
      count(field(s, "from_cycle", at), at + ".from_cycle");
      string(field(s, "algo", at), at + ".algo");
      each(s, "chips", [&](const Json& ch, const std::string& a2) { chip(ch, a2), string(field(ch, "role", a2), a2 + ".role"); },
           true, at + ".");
    });
    each(r, rk::kTimeline, [&](const Json& e, const std::string& at) {
      count(field(e, "cycle", at), at + ".cycle"), string(field(e, "event", at), at + ".event");
    });
    each(r, rk::kPhases, [&](const Json& p, const std::string& at) {
      string(field(p, "name", at), at + ".name");
      count(field(p, "start", at), at + ".start"), count(field(p, "end", at), at + ".end");
    });
    each(r, rk::kLinkUtilizationOverTime, [&](const Json& u, const std::string& at) {
      count(field(u, "cycle", at), at + ".cycle"), number(field(u, "utilization", at), at + ".utilization", 0, 1e6);
    });
  }

 private:
  // Cycles and counts: whole, 0..1e15 (the simulator stops far below).
  static constexpr double kMaxCount = 1e15;
  std::string file_;
  int w_ = 0, h_ = 0;

  [[noreturn]] void bad(const std::string& path, const std::string& want, const Json& got) const {
    std::string g = got.dump();
    if (g.size() > 40) g = g.substr(0, 37) + "...";
    throw UsageError("view " + file_ + ": " + path + " is " + g + ", expected " + want);
  }
  const Json& field(const Json& o, const char* k, const std::string& at) const {
    if (!o.is_object()) bad(at, "an object", o);
    if (!o.contains(k)) bad(at + "." + k, "present", Json());
    return o[k];
  }
  const Json& object(const Json& v, const std::string& at) const {
    if (!v.is_object()) bad(at, "an object", v);
    return v;
  }
  const Json& array(const Json& v, const std::string& at) const {
    if (!v.is_array()) bad(at, "an array", v);
    return v;
  }
  uint64_t count(const Json& v, const std::string& at) const {
    if (!v.is_number_unsigned() || v.get<double>() > kMaxCount) bad(at, "a whole number 0..1e15", v);
    return v.get<uint64_t>();
  }
  void integer(const Json& v, const std::string& at, int lo, int hi) const {
    if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > hi)
      bad(at, "a whole number " + std::to_string(lo) + ".." + std::to_string(hi), v);
  }
  void coord(const Json& v, const std::string& at, int n) const { integer(v, at, 0, n - 1); }
  void number(const Json& v, const std::string& at, double lo, double hi) const {
    if (!v.is_number() || !(v.get<double>() >= lo && v.get<double>() <= hi))
      bad(at, "a number in [" + fmt("%g", lo) + ", " + fmt("%g", hi) + "]", v);
  }
  void string(const Json& v, const std::string& at) const {
    if (!v.is_string()) bad(at, "a string", v);
  }
  void chip(const Json& x, const std::string& at) const {
    coord(field(x, "x", at), at + ".x", w_), coord(field(x, "y", at), at + ".y", h_);
  }
  void link(const Json& x, const std::string& at) const {
    chip(x, at);
    const Json& p = field(x, "port", at);
    if (!p.is_string() || port_index(p.get<std::string>()) < 0) bad(at + ".port", "one of N, E, S, W", p);
  }
  void opt_count(const Json& o, const char* k, const std::string& pre) const {
    if (o.contains(k)) count(o[k], pre + k);
  }
  void opt_number(const Json& o, const char* k, const std::string& pre, double lo, double hi) const {
    if (o.contains(k) && !o[k].is_null()) number(o[k], pre + k, lo, hi);
  }
  void opt_string(const Json& o, const char* k, const std::string& pre) const {
    if (o.contains(k)) string(o[k], pre + k);
  }
  // Every element of the array o[k] (optional unless `required`), named k[i].
  template <class F>
  void each(const Json& o, const char* k, F f, bool required = false, const std::string& pre = "") const {
    if (!o.contains(k)) {
      if (required) bad(pre + k, "present", Json());
      return;
    }
    const Json& a = array(o[k], pre + k);
    for (size_t i = 0; i < a.size(); ++i) f(a[i], pre + k + "[" + std::to_string(i) + "]");
  }
};

// The key figures of a run, as [id, label, text], formatted here so that the page shows
// exactly the numbers of the JSON (docs/view.md lists the fields).
Json figures(const Json& r, bool allreduce) {
  Json f = Json::array();
  auto add = [&](const std::string& id, const std::string& label, const std::string& text) {
    f.push_back({id, label, text});
  };
  const bool ok = r.value(rk::kOk, false);
  add("result", "result", ok ? "OK" : "FAILED (" + r.value(rk::kStopReason, std::string("?")) + ")" +
                              (r.contains(rk::kMessage) ? ": " + r[rk::kMessage].get<std::string>() : ""));
  const Json& c = r[rk::kConfig];
  const std::string machine = c.value("mesh", std::string("?")) + " " + c.value("topology", std::string(""));
  if (allreduce) {
    add("algo", "allreduce", r.value(rk::kAlgo, std::string("?")) + " on " + machine + ", " +
                                 std::to_string(unum(r, rk::kLiveChips)) + " live chips, " +
                                 std::to_string(unum(r, rk::kParticipants)) + " participants, " +
                                 std::to_string(unum(r, rk::kBytes)) + " bytes per chip");
    add("cycles", "cycles", std::to_string(unum(r, rk::kCycles)));
    add("time", "time", fmt("%.3f us", num(r, rk::kTimeUs)));
    add("busbw", "busbw",
        fmt("%.3f GB/s", num(r, rk::kBusbwGBps)) + fmt(" (algbw %.3f GB/s)", num(r, rk::kAlgbwGBps)));
    add("bound_ratio", "algorithm bound ratio", fmt("%.3f", num(r, rk::kBoundRatio)));
    add("topo_bound_ratio", "topology bound ratio", fmt("%.3f", num(r, rk::kTopoBoundRatio)));
    const Json v = r.value(rk::kVerified, Json());
    add("verified", "verified", v.is_boolean() ? (v.get<bool>() ? "yes" : "NO") : "not checked");
    add("conservation", "conservation", r.value(rk::kConservationOk, false) ? "conserved" : "NOT conserved");
    const Json d = r.value(rk::kFlitsDropped, Json::object());
    auto dn = [&](const char* k) { return std::to_string(d.contains(k) ? d[k].get<uint64_t>() : 0); };
    add("drops", "drops", dn("total") + " (dead router " + dn("dead_router") + ", dead link " + dn("dead_link") +
                              ", dead destination " + dn("dead_destination") + ", flushed " + dn("flushed") +
                              ", aborted " + dn("abort") + ")");
    add("restarts", "restarts", std::to_string(unum(r, rk::kRestarts)));
  } else {
    add("traffic", "traffic", c.value("pattern", std::string("?")) + " at " + fmt("%.4g", num(c, "rate")) +
                                  " flits/node/cycle on " + machine);
    add("cycles", "cycles", std::to_string(unum(r, rk::kCycles)) + " (warm-up " +
                                std::to_string(unum(r, rk::kWarmupCycles)) + ", measure " +
                                std::to_string(unum(r, rk::kMeasureCycles)) + ", drain " +
                                std::to_string(unum(r, rk::kDrainCycles)) + ")");
    add("throughput", "throughput", fmt("offered %.4f", num(r, rk::kOfferedFlitRate)) +
                                        fmt(", accepted %.4f flits/node/cycle", num(r, rk::kAcceptedFlitRate)));
    add("latency", "packet latency", fmt("avg %.2f", num(r, rk::kAvgPacketLatency)) +
                                         fmt(", p99 %.0f", num(r, rk::kP99PacketLatency)) +
                                         fmt(", max %.0f cycles", num(r, rk::kMaxPacketLatency)));
    add("flits", "flits", "injected " + std::to_string(unum(r, rk::kFlitsInjected)) + ", ejected " +
                              std::to_string(unum(r, rk::kFlitsEjected)));
  }
  add("links", "link utilization",
      fmt("mean %.3f", num(r, rk::kLinkUtilMean)) + fmt(", max %.3f", num(r, rk::kLinkUtilMax)));
  return f;
}

// The page data of one run: the machine, its link directions and their flits per
// window, what died when, drops, roles, timeline events, phases, the mean utilization
// over time and the key figures.
Json run_data(const Json& r, const std::string& name) {
  int W = 0, H = 0, bw = 2, bh = 2;
  require_result(r, name);
  parse_wh(r[rk::kConfig]["mesh"], &W, &H);
  const Json& c = r[rk::kConfig];
  parse_wh(c.value("board", Json()), &bw, &bh);
  const ResultKind kind = result_kind(r);
  const bool allreduce = kind == ResultKind::Allreduce;
  Json d;
  d["name"] = name;
  d["kind"] = enum_name(kind);
  d["w"] = W;
  d["h"] = H;
  d["torus"] = c.value("topology", std::string()) == "torus";
  d["board"] = {bw, bh};
  d["cycle_ns"] = num(c, "cycle_ns");
  const uint64_t start = unum(r, rk::kStartCycle);
  uint64_t end = allreduce ? start + unum(r, rk::kCycles) : unum(r, rk::kCycles);
  // Links and windows; a result written before link windows existed gets one window
  // with the whole run's utilization.
  Json links = Json::array(), windows = Json::array();
  if (r.contains(rk::kLinkWindows)) {
    for (const Json& l : r[rk::kLinkWindows]["links"]) links.push_back({l["x"], l["y"], port_index(l["port"])});
    for (const Json& w : r[rk::kLinkWindows]["windows"]) {
      windows.push_back({w["from"], w["to"], w["flits"]});
      end = std::max(end, w["to"].get<uint64_t>());
    }
  } else {
    const uint64_t from = allreduce ? start : unum(r, rk::kWarmupCycles);
    const uint64_t span = allreduce ? unum(r, rk::kCycles) : unum(r, rk::kMeasureCycles);
    Json fl = Json::array();
    for (const Json& l : r[rk::kLinkUtilization]) {
      links.push_back({l["x"], l["y"], port_index(l["port"])});
      fl.push_back((uint64_t)std::llround(l["utilization"].get<double>() * span));
    }
    if (span) windows.push_back({from, from + span, fl});
  }
  d["links"] = links;
  d["windows"] = windows;
  d["end"] = end;
  Json dc = Json::array(), dl = Json::array(), db = Json::array();
  for (const Json& x : r.value(rk::kDeadChips, Json::array())) dc.push_back({x["x"], x["y"], x["cycle"]});
  for (const Json& x : r.value(rk::kDeadLinks, Json::array()))
    dl.push_back({x["x"], x["y"], port_index(x["port"]), x["cycle"], x["cause"]});
  for (const Json& x : r.value(rk::kDeadBoards, Json::array()))
    db.push_back({x["x0"], x["y0"], x["w"], x["h"], x["cycle"], x["bx"], x["by"]});
  d["dead_chips"] = dc;
  d["dead_links"] = dl;
  d["dead_boards"] = db;
  Json ld = Json::object(), cd = Json::object();
  for (const Json& x : r.value(rk::kLinkDrops, Json::array()))
    ld[std::to_string(x["x"].get<int>()) + "," + std::to_string(x["y"].get<int>()) + ":" + x["port"].get<std::string>()] =
        {x["dead_link"], x["dead_destination"]};
  for (const Json& x : r.value(rk::kChipDrops, Json::array()))
    cd[std::to_string(x["x"].get<int>()) + "," + std::to_string(x["y"].get<int>())] = x["dead_router"];
  d["link_drops"] = ld;
  d["chip_drops"] = cd;
  // Roles: distinct role names and, per chip id (y * W + x), an index into them.
  Json roles = Json::array();
  for (const Json& s : r.value(rk::kChipRoles, Json::array())) {
    std::vector<std::string> names;
    Json idx = Json::array();
    std::vector<int> by_id((size_t)W * H, -1);
    for (const Json& ch : s["chips"]) {
      const std::string role = ch["role"];
      auto it = std::find(names.begin(), names.end(), role);
      if (it == names.end()) it = names.insert(names.end(), role);
      const int x = ch["x"], y = ch["y"];
      if (x >= 0 && x < W && y >= 0 && y < H) by_id[(size_t)y * W + x] = (int)(it - names.begin());
    }
    roles.push_back({{"from", s["from_cycle"]}, {"algo", s["algo"]}, {"names", names}, {"chip", by_id}});
  }
  d["roles"] = roles;
  // Events and phases, in absolute cycles.
  Json ev = Json::array(), ph = Json::array(), series = Json::array();
  if (allreduce) {
    if (start > 0) ev.push_back({start, "start: the collective starts (after the compute phase)"});
    for (const Json& e : r.value(rk::kTimeline, Json::array())) ev.push_back({e["cycle"], e["event"]});
    if (r.value(rk::kTimeline, Json::array()).empty() && r.value(rk::kOk, false)) ev.push_back({end, "complete"});
    for (const Json& p : r.value(rk::kPhases, Json::array())) {
      const uint64_t a = p["start"], b = p["end"];
      if (a || b) ph.push_back({p["name"], start + a, start + b});
    }
    for (const Json& u : r.value(rk::kLinkUtilizationOverTime, Json::array()))
      series.push_back({u["cycle"], u["utilization"]});
  } else {
    const uint64_t w0 = unum(r, rk::kWarmupCycles), w1 = w0 + unum(r, rk::kMeasureCycles);
    if (w0) ph.push_back({"warm-up", 0, w0});
    ph.push_back({"measurement", w0, w1});
    if (end > w1) ph.push_back({"drain", w1, end});
    ev.push_back({w0, "measurement starts"});
    ev.push_back({w1, "injection stops, drain"});
    ev.push_back({end, r.value(rk::kOk, false) ? "drained: every injected flit ejected"
                                                : "stopped: " + r.value(rk::kStopReason, std::string("?"))});
    // The mean over the live link directions in each window (the allreduce JSON has it).
    std::vector<char> dead(links.size(), 0);
    std::map<std::string, size_t> at;
    for (size_t i = 0; i < links.size(); ++i)
      at[links[i][0].dump() + "," + links[i][1].dump() + "," + links[i][2].dump()] = i;
    for (const Json& x : dl) {
      auto it = at.find(x[0].dump() + "," + x[1].dump() + "," + x[2].dump());
      if (it != at.end()) dead[it->second] = 1;
    }
    for (const Json& w : windows) {
      const double span = w[1].get<double>() - w[0].get<double>();
      double sum = 0;
      size_t n = 0;
      for (size_t i = 0; i < w[2].size(); ++i)
        if (!dead[i]) sum += w[2][i].get<double>(), ++n;
      if (span > 0 && n) series.push_back({w[1], sum / span / n});
    }
  }
  d["events"] = ev;
  d["phases"] = ph;
  d["series"] = series;
  d["figures"] = figures(r, allreduce);
  return d;
}

// JSON text that is safe inside <script>: no '<' (so no "</script>" and no "<!--").
std::string script_safe(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char ch : s) o += ch == '<' ? std::string("\\u003c") : std::string(1, ch);
  return o;
}

std::string html_escape(const std::string& s) {
  std::string o;
  for (char ch : s) {
    switch (ch) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += ch;
    }
  }
  return o;
}

// The template with every `key` replaced (the title appears twice).
std::string replace_all(std::string s, const std::string& key, const std::string& with) {
  for (size_t at = s.find(key); at != std::string::npos; at = s.find(key, at + with.size())) s.replace(at, key.size(), with);
  return s;
}

}  // namespace

std::string base_name(const std::string& p) {
  const size_t s = p.find_last_of('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

std::string view_html(const std::vector<Json>& runs, const std::vector<std::string>& names) {
  Json data;
  data["runs"] = Json::array();
  std::string title;
  for (size_t i = 0; i < runs.size(); ++i) {
    data["runs"].push_back(run_data(runs[i], names[i]));
    title += (i ? " vs " : "") + names[i];
  }
  std::string page = kViewPage;
  page = replace_all(page, "@TITLE@", html_escape("faultmesh: " + title));
  page = replace_all(page, "@DATA@", script_safe(data.dump()));
  return page;
}

Json read_run_json(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) throw UsageError("view " + path + ": no such file");
  if (S_ISDIR(st.st_mode)) throw UsageError("view " + path + ": is a directory, expected a run's JSON file");
  std::ifstream f(path);
  if (!f) throw UsageError("view " + path + ": cannot be read");
  Json j;
  try {
    j = Json::parse(f);
  } catch (const Json::parse_error& e) {
    throw UsageError("view " + path + ": not JSON (" + std::string(e.what()).substr(0, 120) + ")");
  }
  ResultCheck(path).run(j);  // throws for a JSON that is not a run result, naming what is wrong
  run_data(j, path);
  return j;
}

po::options_description html_options() {
  po::options_description o("Page");
  o.add_options()("html", po::value<std::string>(),
                  "write the run's self-contained HTML page here (mesh, link load over time, timeline; docs/view.md)");
  return o;
}

std::string html_from(const po::variables_map& vm) {
  if (!vm.count("html")) return "";
  const std::string p = vm["html"].as<std::string>();
  check_writable(p, "--html");
  return p;
}

void write_run_html(const std::string& path, const nlohmann::ordered_json& run, const std::string& name) {
  write_file_atomic(path, view_html({Json::parse(run.dump())}, {name}));
}

void write_sweep_index(const std::string& dir, const std::vector<nlohmann::ordered_json>& rows,
                       const std::string& plot_dir, bool write_pages) {
  namespace fs = std::filesystem;
  // The points' pages.
  std::vector<std::string> page(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const int id = rows[i].value("point", (int)i);
    const std::string pname = point_name(id, (int)rows.size());
    const std::string rel = "points/" + pname + "/view.html";
    if (write_pages && rows[i].value("status", std::string()) == "ok") {
      std::ifstream f(dir + "/points/" + pname + "/result.json");
      Json r;
      try {
        r = Json::parse(f);
        const std::string html = view_html({r}, {"point " + pname});
        write_file_atomic(dir + "/" + rel, html);
      } catch (const Json::exception&) {
      } catch (const ConfigError&) {  // not a run with a link map (e.g. latency-sweep)
      }
    }
    std::error_code ec;
    if (fs::exists(dir + "/" + rel, ec)) page[i] = rel;
  }
  // Columns: point, status, the options, then the statistics worth sorting by.
  std::vector<std::string> cols = {"point", "status"};
  for (const auto& r : rows)
    for (auto it = r.begin(); it != r.end(); ++it)
      if (it.key().rfind("opt.", 0) == 0 && std::find(cols.begin(), cols.end(), it.key()) == cols.end())
        cols.push_back(it.key());
  const std::string dropped = std::string(rk::kFlitsDropped) + ".total";  // a row flattens the result
  for (const char* k : {rk::kCycles, rk::kTimeUs, rk::kBusbwGBps, rk::kBoundRatio, rk::kTopoBoundRatio,
                        rk::kVerified, rk::kConservationOk, dropped.c_str(), rk::kOfferedFlitRate,
                        rk::kAcceptedFlitRate, rk::kAvgPacketLatency, rk::kP99PacketLatency, rk::kLinkUtilMean,
                        rk::kLinkUtilMax, "error"})
    for (const auto& r : rows)
      if (r.contains(k)) {
        cols.push_back(k);
        break;
      }
  std::ostringstream h;
  h << "<table id=\"points\"><thead><tr>";
  for (size_t c = 0; c < cols.size(); ++c)
    h << "<th data-col=\"" << c << "\">" << html_escape(cols[c].rfind("opt.", 0) == 0 ? cols[c].substr(4) : cols[c])
      << "</th>";
  h << "<th>page</th></tr></thead><tbody>\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    h << "<tr>";
    for (const std::string& k : cols) {
      std::string v;
      if (rows[i].contains(k)) v = rows[i][k].is_string() ? rows[i][k].get<std::string>() : rows[i][k].dump();
      h << "<td>" << html_escape(v) << "</td>";
    }
    h << "<td>" << (page[i].empty() ? "" : "<a href=\"" + html_escape(page[i]) + "\">view</a>") << "</td></tr>\n";
  }
  h << "</tbody></table>\n";
  // Figures: every PNG of the plot directory, linked to its SVG.
  std::ostringstream figs;
  std::vector<std::string> pngs;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(plot_dir, ec))
    if (e.path().extension() == ".png") pngs.push_back(e.path().filename().string());
  std::sort(pngs.begin(), pngs.end());
  const std::string rel = fs::relative(fs::absolute(plot_dir), fs::absolute(dir), ec).string();
  for (const std::string& p : pngs) {
    const std::string src = (rel.empty() || rel == "." ? "" : rel + "/") + p;
    const std::string svg = src.substr(0, src.size() - 4) + ".svg";
    figs << "<figure><a href=\"" << html_escape(svg) << "\"><img src=\"" << html_escape(src) << "\" alt=\""
         << html_escape(p) << "\"></a><figcaption>" << html_escape(p.substr(0, p.size() - 4)) << "</figcaption></figure>\n";
  }
  if (pngs.empty())
    figs << "<p>No figures yet: <code>faultmesh plot " << html_escape(base_name(dir))
         << "</code> draws them into " << html_escape(base_name(dir)) << "/plots and adds them here.</p>\n";
  std::string page_text = kSweepIndexPage;
  page_text = replace_all(page_text, "@TITLE@", html_escape("faultmesh sweep " + base_name(dir)));
  page_text = replace_all(page_text, "@FIGURES@", figs.str());
  page_text = replace_all(page_text, "@TABLE@", h.str());
  write_file_atomic(dir + "/index.html", page_text);
}

}  // namespace fm
