// A strict reader of the VCD files faultmesh writes (tb/wave_writer.cpp), for the
// waveform tests: it checks well-formedness as it reads (header commands, $var
// declarations, $enddefinitions before any timestamp, strictly increasing timestamps,
// values only for declared identifiers and within their width, every value a change
// after the first) and returns the signals by their full GTKWave name and their changes.
#pragma once
#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace fm::test {

struct Vcd {
  struct Var {
    std::string id;
    int width = 0;
  };
  std::string error;                       // first problem found ("" = well-formed)
  bool timescale = false;
  std::map<std::string, Var> vars;         // "scope.sub.name" or "scope.name[w-1:0]"
  std::vector<uint64_t> times;             // every timestamp, in file order
  std::map<std::string, std::vector<std::pair<uint64_t, uint64_t>>> changes;  // by id
  std::vector<std::string> comments;       // $comment texts after the header

  bool has(const std::string& name) const { return vars.count(name) > 0; }
  // Value of signal `name` at time t (the last change at or before t); -1 if none yet.
  long long at(const std::string& name, uint64_t t) const {
    auto v = vars.find(name);
    if (v == vars.end()) return -1;
    auto c = changes.find(v->second.id);
    if (c == changes.end()) return -1;
    long long r = -1;
    for (const auto& [tt, val] : c->second) {
      if (tt > t) break;
      r = (long long)val;
    }
    return r;
  }
  // Times at which `name` changed to value `v`.
  std::vector<uint64_t> times_of(const std::string& name, uint64_t v) const {
    std::vector<uint64_t> r;
    auto it = vars.find(name);
    if (it == vars.end()) return r;
    auto c = changes.find(it->second.id);
    if (c == changes.end()) return r;
    for (const auto& [t, val] : c->second)
      if (val == v) r.push_back(t);
    return r;
  }
};

inline Vcd read_vcd(const std::string& path) {
  Vcd d;
  std::ifstream f(path);
  if (!f) {
    d.error = "cannot read " + path;
    return d;
  }
  std::stringstream ss;
  ss << f.rdbuf();
  std::vector<std::string> tok;
  for (std::string t; ss >> t;) tok.push_back(t);
  auto fail = [&](const std::string& e) {
    if (d.error.empty()) d.error = e;
  };
  std::vector<std::string> scope;
  std::map<std::string, int> width_of;  // id -> width
  std::map<std::string, uint64_t> last;  // id -> last value
  bool defs_done = false, in_dumpvars = false, any_time = false;
  uint64_t now = 0;
  auto skip_to_end = [&](size_t& i, std::string* text) {
    for (++i; i < tok.size() && tok[i] != "$end"; ++i)
      if (text) *text += (text->empty() ? "" : " ") + tok[i];
    if (i >= tok.size()) fail("unterminated command");
  };
  for (size_t i = 0; i < tok.size(); ++i) {
    const std::string& t = tok[i];
    if (!defs_done) {
      if (t == "$timescale") {
        d.timescale = true;
        skip_to_end(i, nullptr);
      } else if (t == "$version" || t == "$date" || t == "$comment") {
        skip_to_end(i, nullptr);
      } else if (t == "$scope") {
        if (i + 3 >= tok.size() || tok[i + 3] != "$end") { fail("bad $scope"); break; }
        scope.push_back(tok[i + 2]);
        i += 3;
      } else if (t == "$upscope") {
        if (scope.empty()) fail("$upscope without $scope");
        else scope.pop_back();
        skip_to_end(i, nullptr);
      } else if (t == "$var") {
        // $var wire W id name [range] $end
        std::vector<std::string> f2;
        for (++i; i < tok.size() && tok[i] != "$end"; ++i) f2.push_back(tok[i]);
        if (f2.size() < 4 || f2.size() > 5) { fail("bad $var"); continue; }
        const int w = std::stoi(f2[1]);
        if (w < 1 || w > 64) fail("bad width in $var " + f2[3]);
        if (scope.empty()) fail("$var outside any scope");
        std::string name;
        for (const std::string& s : scope) name += s + ".";
        name += f2[3];
        if (f2.size() == 5) {
          if (f2[4] != "[" + std::to_string(w - 1) + ":0]") fail("range does not match width: " + name);
          name += f2[4];
        } else if (w != 1) {
          fail("vector without range: " + name);
        }
        if (d.vars.count(name)) fail("duplicate signal " + name);
        if (width_of.count(f2[2])) fail("duplicate identifier " + f2[2]);
        d.vars[name] = {f2[2], w};
        width_of[f2[2]] = w;
      } else if (t == "$enddefinitions") {
        if (!scope.empty()) fail("unclosed $scope at $enddefinitions");
        skip_to_end(i, nullptr);
        defs_done = true;
      } else {
        fail("unexpected token in the header: " + t);
      }
      continue;
    }
    if (t[0] == '#') {
      const uint64_t tt = std::stoull(t.substr(1));
      if (any_time && tt <= now) fail("timestamp " + t + " does not increase");
      if (in_dumpvars) fail("timestamp inside $dumpvars");
      now = tt;
      any_time = true;
      d.times.push_back(tt);
    } else if (t == "$dumpvars") {
      if (d.times.size() != 1) fail("$dumpvars not at the first timestamp");
      in_dumpvars = true;
    } else if (t == "$end") {
      if (!in_dumpvars) fail("stray $end");
      in_dumpvars = false;
    } else if (t == "$comment") {
      std::string text;
      skip_to_end(i, &text);
      d.comments.push_back(text);
    } else {
      if (!any_time) { fail("value before the first timestamp"); continue; }
      std::string id, bits;
      if (t[0] == 'b') {
        bits = t.substr(1);
        if (++i >= tok.size()) { fail("vector value without identifier"); break; }
        id = tok[i];
      } else if (t[0] == '0' || t[0] == '1') {
        bits = t.substr(0, 1);
        id = t.substr(1);
      } else {
        fail("unexpected token " + t);
        continue;
      }
      auto w = width_of.find(id);
      if (w == width_of.end()) { fail("value for undeclared identifier " + id); continue; }
      if ((int)bits.size() > w->second || bits.empty()) fail("value wider than its signal: " + t + " " + id);
      uint64_t v = 0;
      for (char c : bits) {
        if (c != '0' && c != '1') fail("non-binary value " + bits);
        v = v << 1 | (uint64_t)(c == '1');
      }
      auto l = last.find(id);
      if (l != last.end() && l->second == v) fail("value without a change at #" + std::to_string(now) + ": " + id);
      last[id] = v;
      d.changes[id].push_back({now, v});
    }
  }
  if (!defs_done) fail("no $enddefinitions");
  if (in_dumpvars) fail("unterminated $dumpvars");
  if (!d.timescale) fail("no $timescale");
  // Every signal gets its initial value at the first timestamp.
  if (!d.times.empty())
    for (const auto& [name, v] : d.vars) {
      auto c = d.changes.find(v.id);
      if (c == d.changes.end() || c->second.front().first != d.times.front())
        fail("no initial value for " + name);
    }
  return d;
}

}  // namespace fm::test
