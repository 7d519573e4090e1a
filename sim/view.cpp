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
#include "sim/view_impl.h"
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
using namespace view_detail;

namespace {

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
  check_view_result(j, path);  // throws for a JSON that is not a run result, naming what is wrong
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
