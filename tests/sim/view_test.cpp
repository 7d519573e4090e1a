// `faultmesh view` pages rendered in a real browser: headless Chromium loads the page of
// an allreduce with a board failing mid-run and of a traffic run around a dead chip,
// and the rendered DOM is compared with the run's JSON: one element per link direction,
// the dead ones marked, the colours following the scrubber (the flits shown in two
// windows, selected by the URL, are the JSON's for those windows), no script error in
// the page or on the console. Also the two-run page and the sweep's index.html. The
// screenshot of the fault page goes to FAULTMESH_VIEW_SCREENSHOT when set
// (docs/img/view_demo.png is made that way: sim/make_view_screenshot.sh).
//
// Without Chromium the browser tests skip, but under CI (CI=true) they fail:
// sim/setup.sh installs Debian's chromium.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "tb/result_keys.h"
#include "tests/cli_util.h"

using namespace fm::test;
using Json = nlohmann::json;

namespace {

// The browser on PATH ("" when none).
std::string browser() {
  for (const char* b : {"chromium", "chromium-browser"})
    if (std::system(("command -v " + std::string(b) + " >/dev/null 2>&1").c_str()) == 0) return b;
  return "";
}

#define NEED_BROWSER()                                                                    \
  do {                                                                                    \
    if (browser().empty()) {                                                              \
      if (std::getenv("CI")) FAIL() << "chromium missing in CI (sim/setup.sh installs it)"; \
      GTEST_SKIP() << "chromium not installed (sim/setup.sh installs it)";                \
    }                                                                                     \
  } while (0)

struct Rendered {
  int code = -1;
  std::string dom, log;
};

// Loads file://PATH#HASH in headless Chromium; the DOM after the scripts ran, and the
// browser's log (console messages included). With `png`, a screenshot instead.
Rendered render(const std::string& page, const std::string& hash, const std::string& png = "") {
  static int n = 0;
  const std::string d = tmpdir() + "/chrome" + std::to_string(n++);
  const std::string out = d + ".dom", log = d + ".log";
  std::string cmd = browser() + " --headless --no-sandbox --disable-gpu --no-first-run --no-default-browser-check"
                    " --disable-extensions --user-data-dir=" + d + " --enable-logging=stderr --v=0" +
                    " --virtual-time-budget=10000 --window-size=1400,1000";
  cmd += png.empty() ? " --dump-dom" : " --screenshot=" + png;
  cmd += " 'file://" + page + (hash.empty() ? "" : "#" + hash) + "' >" + out + " 2>" + log;
  const int st = std::system(cmd.c_str());
  Rendered r;
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.dom = slurp(out);
  r.log = slurp(log);
  std::system(("rm -rf " + d).c_str());
  return r;
}

std::string attr(const std::string& tag, const std::string& name) {
  const std::regex re("\\s" + name + "=\"([^\"]*)\"");
  std::smatch m;
  return std::regex_search(tag, m, re) ? m[1].str() : "";
}

// Every start tag <NAME ...> of the DOM whose class list has `cls`.
std::vector<std::string> tags(const std::string& dom, const std::string& name, const std::string& cls) {
  std::vector<std::string> out;
  const std::regex re("<" + name + "\\s[^>]*>");
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), re); it != std::sregex_iterator(); ++it) {
    const std::string t = it->str();
    const std::string c = " " + attr(t, "class") + " ";
    if (c.find(" " + cls + " ") != std::string::npos) out.push_back(t);
  }
  return out;
}

bool has_class(const std::string& tag, const std::string& cls) {
  return (" " + attr(tag, "class") + " ").find(" " + cls + " ") != std::string::npos;
}

// The page rendered without errors: its own list is empty and the console logged none.
void expect_no_errors(const Rendered& r, const std::string& what) {
  EXPECT_EQ(r.code, 0) << what << ": " << r.log;
  EXPECT_NE(r.dom.find("data-ready=\"1\""), std::string::npos) << what << ": the script did not finish\n" << r.log;
  EXPECT_NE(r.dom.find("id=\"errors\" data-count=\"0\""), std::string::npos) << what << ": errors in the page";
  for (const char* bad : {"Uncaught", "CONSOLE:", "CONSOLE("})
    EXPECT_EQ(r.log.find(bad), std::string::npos) << what << ": the console shows '" << bad << "':\n" << r.log;
}

std::string link_key(const Json& l) {
  return std::to_string(l["x"].get<int>()) + "," + std::to_string(l["y"].get<int>()) + ":" + l["port"].get<std::string>();
}

// Checks the mesh of run `run` as rendered at window `w`: one element per link
// direction in the JSON's order with the JSON's flits for that window, and the dead
// ones (died at or before the window's start) marked; returns the flits shown.
std::vector<uint64_t> check_window(const std::string& dom, const Json& j, size_t w, const std::string& what) {
  const Json& lw = j["link_windows"];
  const Json& win = lw["windows"][w];
  const uint64_t t = win["from"];
  std::vector<std::string> links = tags(dom, "line", "link");
  EXPECT_EQ(links.size(), lw["links"].size()) << what << ": one element per link direction";
  std::map<std::string, uint64_t> dead_at;
  for (const Json& d : j["dead_links"]) dead_at[link_key(d)] = d["cycle"];
  std::vector<uint64_t> shown;
  size_t live = 0;
  for (size_t i = 0; i < links.size() && i < lw["links"].size(); ++i) {
    const std::string key = link_key(lw["links"][i]);
    EXPECT_EQ(attr(links[i], "data-link"), key) << what;
    const uint64_t f = std::stoull(attr(links[i], "data-flits"));
    EXPECT_EQ(f, win["flits"][i].get<uint64_t>()) << what << ": link " << key << " in window " << w;
    shown.push_back(f);
    const bool dead = dead_at.count(key) && dead_at[key] <= t;
    EXPECT_EQ(has_class(links[i], "dead"), dead) << what << ": link " << key << " at cycle " << t;
    live += !dead;
  }
  EXPECT_EQ(live, links.size() - tags(dom, "line", "dead").size()) << what;
  return shown;
}

}  // namespace

// An allreduce with a board failing when 40 % is reduced: before the failure nothing is
// dead; at the last window the dead links are exactly the JSON's, the live ones exactly
// the link_utilization map, and the colours moved with the window.
TEST(View, AllreducePageWithMidRunBoardFailureInTheBrowser) {
  NEED_BROWSER();
  const std::string j = tmpdir() + "/ar.json", page = tmpdir() + "/ar.html";
  const Outcome o = run("allreduce --mesh 8x8 --algo 2d --order xy --line ring --link-latency 1 --bytes 256KiB --verify on "
                        "--fail-at 40%:board:1,1 -q --json " + j +
                        " --html " + page);
  ASSERT_EQ(o.code, 0) << o.err;
  const Json r = Json::parse(slurp(j));
  const size_t nw = r["link_windows"]["windows"].size();
  ASSERT_GE(nw, 3u);
  ASSERT_EQ(r["dead_chips"].size(), 4u);
  ASSERT_EQ(r["dead_boards"].size(), 1u);
  ASSERT_EQ(r["chip_roles"].size(), 2u) << "roles in 2d and, after the restart, in ft2d";
  const uint64_t fault = r["dead_chips"][0]["cycle"];
  EXPECT_GT(fault, 0u);

  const Rendered first = render(page, "w=0");
  expect_no_errors(first, "window 0");
  EXPECT_NE(first.dom.find("data-window=\"0\""), std::string::npos);
  const std::vector<uint64_t> a = check_window(first.dom, r, 0, "window 0");
  EXPECT_TRUE(tags(first.dom, "line", "dead").empty()) << "nothing is dead before the failure";
  EXPECT_TRUE(tags(first.dom, "rect", "dead").empty());

  const size_t last = nw - 1;
  const Rendered end = render(page, "w=" + std::to_string(last));
  expect_no_errors(end, "last window");
  EXPECT_NE(end.dom.find("data-window=\"" + std::to_string(last) + "\""), std::string::npos);
  const std::vector<uint64_t> b = check_window(end.dom, r, last, "last window");
  EXPECT_NE(a, b) << "the scrubber must move the colours (the JSON's windows differ)";
  const size_t live_links = tags(end.dom, "line", "link").size() - tags(end.dom, "line", "dead").size();
  EXPECT_EQ(live_links, r["link_utilization"].size()) << "live link directions at the end";
  std::set<std::string> dead_links, dead_json;
  for (const std::string& t : tags(end.dom, "line", "dead")) dead_links.insert(attr(t, "data-link"));
  for (const Json& d : r["dead_links"]) dead_json.insert(link_key(d));
  EXPECT_EQ(dead_links, dead_json);
  // The dead chips and the dead board.
  std::set<std::string> chips;
  for (const std::string& t : tags(end.dom, "rect", "chip"))
    if (has_class(t, "dead")) chips.insert(attr(t, "data-chip"));
  EXPECT_EQ(chips, (std::set<std::string>{"2,2", "3,2", "2,3", "3,3"}));
  EXPECT_EQ(tags(end.dom, "rect", "board").size(), 16u + 1u) << "16 boards and the failed one's outline";
  ASSERT_EQ(tags(end.dom, "rect", "failed").size(), 1u);
  EXPECT_TRUE(has_class(tags(end.dom, "rect", "failed")[0], "dead"));
  EXPECT_EQ(attr(tags(end.dom, "rect", "failed")[0], "data-board"), "1,1");
  // The key figures and the timeline marks.
  EXPECT_NE(end.dom.find(">" + std::to_string(r["cycles"].get<uint64_t>()) + "</td>"), std::string::npos);
  EXPECT_NE(end.dom.find("conserved"), std::string::npos);
  EXPECT_NE(end.dom.find("data-event=\"fault: 40%:board:1,1\""), std::string::npos);
  EXPECT_NE(end.dom.find("data-phase=\"fold leaves\""), std::string::npos);

  // Hover (selected by the URL): a chip's role in the schedule running then, a link's
  // drops and death.
  auto info = [](const std::string& dom) {
    const size_t a = dom.find("<div id=\"info\">"), b = dom.find("</div>", a);
    return a == std::string::npos ? std::string() : dom.substr(a, b - a);
  };
  const Rendered before = render(page, "w=0&chip=0,2");
  expect_no_errors(before, "hover before");
  EXPECT_NE(info(before.dom).find("role: row ring, column ring (2d)"), std::string::npos) << info(before.dom);
  const Rendered leaf = render(page, "w=" + std::to_string(last) + "&chip=0,2");
  EXPECT_NE(info(leaf.dom).find("role: leaf (ft2d)"), std::string::npos) << info(leaf.dom);
  Json drops;
  for (const Json& d : r["link_drops"])
    if (link_key(d) == "1,2:E") drops = d;
  ASSERT_TRUE(drops.is_object());
  const Rendered lk = render(page, "w=" + std::to_string(last) + "&link=1,2:E");
  const std::string li = info(lk.dom);
  EXPECT_NE(li.find("link (1,2) E -&gt; (2,2)"), std::string::npos) << li;
  EXPECT_NE(li.find("drops: dead link " + drops["dead_link"].dump() + ", dead destination " +
                    drops["dead_destination"].dump()), std::string::npos) << li;
  EXPECT_NE(li.find("dead from cycle " + std::to_string(fault) + " (a dead chip at an end)"), std::string::npos) << li;

  const std::string png = std::getenv("FAULTMESH_VIEW_SCREENSHOT") ? std::getenv("FAULTMESH_VIEW_SCREENSHOT")
                                                                    : tmpdir() + "/ar.png";
  const Rendered shot = render(page, "w=" + std::to_string(nw / 2), png);
  EXPECT_EQ(shot.code, 0) << shot.log;
  EXPECT_EQ(slurp(png).substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << "screenshot " << png;
}

// A traffic run around a dead chip: its links are dead from cycle 0 in every window.
TEST(View, TrafficPageInTheBrowser) {
  NEED_BROWSER();
  const std::string j = tmpdir() + "/tr.json", page = tmpdir() + "/tr.html";
  const Outcome o = run("traffic --mesh 6x4 --fail-chip 2,1 --rate 0.2 --warmup 500 --cycles 3000 -q --json " + j +
                        " --html " + page);
  ASSERT_EQ(o.code, 0) << o.err;
  const Json r = Json::parse(slurp(j));
  const size_t nw = r["link_windows"]["windows"].size();
  ASSERT_GE(nw, 3u);
  EXPECT_EQ(r["dead_links"].size(), 8u) << "4 directions out of (2,1) and 4 into it";
  const Rendered w1 = render(page, "w=1");
  expect_no_errors(w1, "traffic window 1");
  const std::vector<uint64_t> a = check_window(w1.dom, r, 1, "traffic window 1");
  EXPECT_EQ(tags(w1.dom, "line", "dead").size(), 8u);
  const Rendered wl = render(page, "w=" + std::to_string(nw - 1));
  expect_no_errors(wl, "traffic last window");
  const std::vector<uint64_t> b = check_window(wl.dom, r, nw - 1, "traffic last window");
  EXPECT_NE(a, b);
  EXPECT_NE(wl.dom.find("data-phase=\"measurement\""), std::string::npos);
}

// Two runs on one page: both meshes, one time axis (#cycle= selects each run's window).
TEST(View, TwoRunsSideBySide) {
  NEED_BROWSER();
  const std::string a = tmpdir() + "/free.json", b = tmpdir() + "/fault.json", page = tmpdir() + "/two.html";
  const std::string common = "allreduce --mesh 4x4 --algo 2d --bytes 64KiB -q";
  ASSERT_EQ(run(common + " --json " + a).code, 0);
  ASSERT_EQ(run(common + " --fail-at 50%:chip:1,1 --json " + b).code, 0);
  const Outcome v = run("view " + a + " " + b + " -o " + page);
  ASSERT_EQ(v.code, 0) << v.err;
  const Rendered r = render(page, "cycle=1024");
  expect_no_errors(r, "two runs");
  EXPECT_NE(r.dom.find("class=\"mesh\" width"), std::string::npos);
  EXPECT_EQ(tags(r.dom, "svg", "mesh").size(), 2u);
  EXPECT_NE(r.dom.find("data-run=\"0\" data-window=\"1\""), std::string::npos) << "cycle 1024 is each run's window 1";
  EXPECT_NE(r.dom.find("data-run=\"1\" data-window=\"1\""), std::string::npos);
}

// The sweep's index.html: a table row per point, each linked to a page that exists.
TEST(View, SweepIndexLinksEveryPointPage) {
  const std::string spec = tmpdir() + "/s.ini", dir = tmpdir() + "/sweep";
  {
    std::ofstream f(spec);
    f << "command = traffic\n[base]\nmesh = 4x4\nwarmup = 100\ncycles = 500\n[axes]\nrate = 0.05,0.1,0.2\n";
  }
  const Outcome o = run("sweep " + spec + " --out " + dir + " --jobs 1");
  ASSERT_EQ(o.code, 0) << o.err << o.out;
  const std::string idx = slurp(dir + "/index.html");
  ASSERT_FALSE(idx.empty());
  for (const char* p : {"0000", "0001", "0002"}) {
    const std::string link = "points/" + std::string(p) + "/view.html";
    EXPECT_NE(idx.find("href=\"" + link + "\""), std::string::npos) << link;
    EXPECT_TRUE(exists(dir + "/" + link)) << link;
  }
  EXPECT_NE(idx.find("\">rate</th>"), std::string::npos) << idx.substr(0, 2000);
  if (browser().empty()) return;
  const Rendered r = render(dir + "/index.html", "");
  EXPECT_EQ(r.code, 0) << r.log;
  size_t rows = 0;
  for (size_t at = r.dom.find("<tr>"); at != std::string::npos; at = r.dom.find("<tr>", at + 1)) ++rows;
  EXPECT_EQ(rows, 4u) << "the header and one row per point";
  EXPECT_EQ(r.log.find("Uncaught"), std::string::npos) << r.log;
}

// Bad input: one line naming the problem, exit 2, nothing written (docs/errors.md has
// the rows); a page that cannot be written: exit 4.
// A real result with one field of the wrong type or out of range: exit 2 naming the
// field and what it must be, no page written (the results contract, sim/view.cpp
// ResultCheck), for every field the page reads that a hand edit or another tool could
// break; the unmodified result still makes its page.
TEST(View, MalformedResultFieldsAreNamed) {
  const std::string j = tmpdir() + "/holed.json", bad = tmpdir() + "/malformed.json", page = tmpdir() + "/malformed.html";
  ASSERT_EQ(run("allreduce --mesh 4x4 --algo ft2d --fail-chip 1,1 --fail-at 300:chip:2,2 --bytes 64KiB -q --json " + j).code, 0);
  const Json good = Json::parse(slurp(j));
  struct Case {
    std::string path;  // as the message names it
    std::function<void(Json&)> edit;
  };
  const std::vector<Case> cases = {
      {"chip_roles[0] is 1", [](Json& r) { r["chip_roles"] = {1, 2, 3}; }},
      {"dead_chips[0] is [99,99]", [](Json& r) { r["dead_chips"] = Json::array({Json::array({99, 99})}); }},
      {"dead_chips is \"x\"", [](Json& r) { r["dead_chips"] = "x"; }},
      {"dead_chips[0].x is 7", [](Json& r) { r["dead_chips"][0]["x"] = 7; }},
      {"link_windows is \"zzz\"", [](Json& r) { r["link_windows"] = "zzz"; }},
      {"link_drops[0].x is -1", [](Json& r) { r["link_drops"] = Json::array({{{"x", -1}}}); }},
      {"phases[0].name is 1", [](Json& r) { r["phases"][0]["name"] = 1; }},
      {"cycles is -5", [](Json& r) { r["cycles"] = -5; }},
      {"cycles is 1e+300", [](Json& r) { r["cycles"] = 1e300; }},
      {"config.mesh is \"4096x4096\"", [](Json& r) { r["config"]["mesh"] = "4096x4096"; }},
      {"link_utilization[0].x is 1000", [](Json& r) { r["link_utilization"][0]["x"] = 1000; }},
      {"link_utilization[0].port is \"Q\"", [](Json& r) { r["link_utilization"][0]["port"] = "Q"; }},
      {"link_windows.windows[0].flits", [](Json& r) { r["link_windows"]["windows"][0]["flits"].erase(0); }},
      {"timeline[0].event is 3", [](Json& r) { r["timeline"][0]["event"] = 3; }},
      {"verified is \"yes\"", [](Json& r) { r["verified"] = "yes"; }},
  };
  for (const Case& c : cases) {
    Json r = good;
    c.edit(r);
    std::ofstream(bad) << r.dump();
    const Outcome o = run("view " + bad + " -o " + page);
    EXPECT_EQ(o.code, 2) << c.path << ": " << o.err;
    EXPECT_NE(o.err.find(": " + c.path), std::string::npos) << o.err;
    EXPECT_NE(o.err.find(", expected "), std::string::npos) << o.err;
    EXPECT_EQ(o.err.find("json.exception"), std::string::npos) << o.err;
    EXPECT_FALSE(exists(page)) << c.path;
  }
  EXPECT_EQ(run("view " + j + " -o " + page).code, 0);
  EXPECT_TRUE(exists(page));
}

TEST(View, BadInputExits2AndWritesNothing) {
  const std::string page = tmpdir() + "/bad.html";
  const std::string notjson = tmpdir() + "/notjson.json", notrun = tmpdir() + "/notrun.json";
  {
    std::ofstream(notjson) << "this is not json\n";
    std::ofstream(notrun) << "{\"a\": 1}\n";
  }
  for (const std::string& args : {"view /nonexistent/run.json -o " + page, "view " + notjson + " -o " + page,
                                  "view " + notrun + " -o " + page, "view " + notrun, "view a b c -o " + page}) {
    const Outcome o = run(args);
    EXPECT_EQ(o.code, 2) << args << ": " << o.err;
    EXPECT_EQ(o.err.rfind("faultmesh: error: ", 0), 0u) << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_FALSE(exists(page)) << args;
  }
  const std::string j = tmpdir() + "/small.json";
  ASSERT_EQ(run("traffic --mesh 2x2 --warmup 10 --cycles 100 -q --json " + j).code, 0);
  const Outcome full = run("view " + j + " -o /dev/full");
  EXPECT_EQ(full.code, 4) << full.err;
  EXPECT_NE(full.err.find("faultmesh: cannot write /dev/full"), std::string::npos) << full.err;
}

// The results contract (tb/result_keys.h): a result of an unknown kind, or of a schema
// newer than this binary reads, is bad input naming the field, its value and what is
// allowed, and no page is written; a result written before the contract (no kind, no
// schema_version) still makes its page, its kind told by busbw_GBps.
TEST(View, UnknownKindOrNewerSchemaIsRefused) {
  namespace rk = fm::result_key;
  const std::string ar = tmpdir() + "/contract_ar.json", tr = tmpdir() + "/contract_tr.json";
  const std::string bad = tmpdir() + "/contract_bad.json", page = tmpdir() + "/contract.html";
  ASSERT_EQ(run("allreduce --mesh 4x4 --bytes 16KiB -q --json " + ar).code, 0);
  ASSERT_EQ(run("traffic --mesh 2x2 --warmup 10 --cycles 100 -q --json " + tr).code, 0);
  const Json good = Json::parse(slurp(ar));
  ASSERT_EQ(good.value(rk::kKind, ""), "allreduce");
  ASSERT_EQ(good.value(rk::kSchemaVersion, 0), fm::kResultSchemaVersion);
  struct Case {
    Json edit;  // the fields replaced
    std::string says;
  };
  const std::string newer = std::to_string(fm::kResultSchemaVersion + 1);
  const std::vector<Case> cases = {
      {{{rk::kKind, "collective"}}, ": kind is \"collective\", expected allreduce | traffic"},
      {{{rk::kKind, nullptr}}, ": kind is null, expected allreduce | traffic"},
      {{{rk::kSchemaVersion, fm::kResultSchemaVersion + 1}},
       ": schema_version is " + newer + ", expected 1.." + std::to_string(fm::kResultSchemaVersion) +
           " (written by a newer faultmesh"},
      {{{rk::kSchemaVersion, "one"}}, ": schema_version is \"one\", expected a whole number 1.."},
  };
  for (const Case& c : cases) {
    Json r = good;
    for (auto it = c.edit.begin(); it != c.edit.end(); ++it) r[it.key()] = it.value();
    std::ofstream(bad) << r.dump();
    const Outcome o = run("view " + bad + " -o " + page);
    EXPECT_EQ(o.code, 2) << c.says << ": " << o.err;
    EXPECT_NE(o.err.find("view " + bad + c.says), std::string::npos) << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_FALSE(exists(page)) << c.says;
  }
  // Written before the contract: the kind from the old rule, for either run.
  for (const auto& [file, kind] : {std::pair<std::string, std::string>{ar, "allreduce"}, {tr, "traffic"}}) {
    Json r = Json::parse(slurp(file));
    r.erase(rk::kKind);
    r.erase(rk::kSchemaVersion);
    std::ofstream(bad) << r.dump();
    const Outcome o = run("view " + bad + " -o " + page);
    ASSERT_EQ(o.code, 0) << kind << ": " << o.err;
    EXPECT_NE(slurp(page).find("\"kind\":\"" + kind + "\""), std::string::npos) << kind;
    std::remove(page.c_str());
  }
}
