// The run page's input check (sim/view_impl.h): a result is bad input, named field by
// field, before anything of it is drawn.
#include <cmath>
#include <string>

#include "sim/io.h"
#include "sim/view_impl.h"
#include "tb/result_keys.h"

namespace fm::view_detail {

namespace rk = result_key;

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

namespace {

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

}  // namespace

void check_view_result(const Json& r, const std::string& file) { ResultCheck(file).run(r); }

}  // namespace fm::view_detail
