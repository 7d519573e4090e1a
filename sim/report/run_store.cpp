// The paper report's run store (sim/report/run_store.h).
#include "sim/report/run_store.h"

#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "sim/io.h"
#include "sim/options.h"
#include "tb/util/subprocess.h"
#include "tb/util/parse.h"
#include "tb/result_keys.h"
#include "tb/traffic_run.h"

namespace fm::paper_report {

namespace {

namespace rk = result_key;

// The result fields a record keeps (the page's tables, checks and mid-run split read
// these and nothing else of a run), in the run JSON's order.
const char* const kKept[] = {rk::kOk, rk::kStopReason, rk::kMessage, rk::kAlgo, rk::kBytes, rk::kCycles,
                             rk::kStartCycle, rk::kTimeUs, rk::kAlgbwGBps, rk::kBusbwGBps, rk::kBoundCycles,
                             rk::kBoundRatio, rk::kTopoBoundCycles, rk::kTopoBoundRatio, rk::kVerified,
                             rk::kLiveChips, rk::kParticipants, rk::kWordsPerChip, rk::kTransfers, rk::kMaxLinkWords,
                             rk::kPhases, rk::kLinkUtilMean, rk::kLinkUtilMax, rk::kFlitsInjected,
                             rk::kFlitsDelivered, rk::kFlitsDropped, rk::kConservationOk, rk::kRestarts,
                             rk::kTimeline, rk::kFaultsNotTriggered, rk::kDeadChips, rk::kDeadLinks, rk::kConfig};

// FNV-1a 64 over the running binary's bytes, as 16 hex digits; "" when it cannot be read.
std::string binary_hash() {
  std::ifstream f("/proc/self/exe", std::ios::binary);
  if (!f) return "";
  uint64_t h = 1469598103934665603ULL;
  char buf[1 << 16];
  while (f.read(buf, sizeof buf) || f.gcount() > 0) {
    for (std::streamsize i = 0; i < f.gcount(); ++i) h = (h ^ (uint8_t)buf[i]) * 1099511628211ULL;
    if (!f) break;
  }
  char s[17];
  std::snprintf(s, sizeof s, "%016llx", (unsigned long long)h);
  return s;
}

}  // namespace

FingerprintCache::FingerprintCache(const std::string& dir, bool write) {
  const std::string h = binary_hash();
  if (h.empty()) return;
  path_ = dir + "/fingerprints-" + h + ".tsv";
  struct stat st;
  write_ = write && stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  std::ifstream f(path_, std::ios::binary);
  std::string line;
  while (std::getline(f, line)) {
    // key TAB fingerprint TAB "." : the end mark tells a whole line from one a kill cut.
    const size_t a = line.find('\t'), b = line.rfind('\t');
    if (a == std::string::npos || b <= a + 1 || line.substr(b) != "\t.") continue;
    fp_[line.substr(0, a)] = line.substr(a + 1, b - a - 1);
  }
}

std::string FingerprintCache::get(const std::string& key, const std::vector<std::string>& args) {
  const auto it = fp_.find(key);
  if (it != fp_.end()) {
    ++hits_;
    return it->second;
  }
  const std::string fp = allreduce_fingerprint(args);
  fp_[key] = fp;
  if (write_ && key.find_first_of("\t\n") == std::string::npos) {
    std::ofstream out(path_, std::ios::binary | std::ios::app);
    out << key << "\t" << fp << "\t.\n" << std::flush;
  }
  return fp;
}

RunStore::RunStore(std::string path) : path_(std::move(path)) {
  std::ifstream f(path_, std::ios::binary);
  if (!f) return;
  std::string line;
  for (int n = 1; std::getline(f, line); ++n) {
    if (line.empty()) continue;
    StoreJson j;
    try {
      j = StoreJson::parse(line);
    } catch (const std::exception&) {
      throw UsageError("run store " + path_ + ", line " + std::to_string(n) +
                       ": not a JSON record (fix or remove the line; every other record stays valid)");
    }
    if (!j.is_object() || !j.contains("args") || !j["args"].is_string() || !j.contains("made_by") ||
        !j["made_by"].is_object())
      throw UsageError("run store " + path_ + ", line " + std::to_string(n) +
                       ": a record needs \"args\" (string) and \"made_by\" (object)");
    const std::string a = j["args"].get<std::string>();
    const auto it = by_args_.find(a);
    if (it != by_args_.end()) {
      recs_[it->second] = std::move(j);  // a later line replaces an earlier one
    } else {
      by_args_[a] = recs_.size();
      recs_.push_back(std::move(j));
    }
  }
}

const StoreJson* RunStore::find(const std::string& args) const {
  const auto it = by_args_.find(args);
  return it == by_args_.end() ? nullptr : &recs_[it->second];
}

// Whether a record made by recovery model `made` stands for model `now`, by what each
// version changed (models/model_version.h):
//  3: the resume planner works through a large plan in strips where 2 refused any plan
//     over 2 GiB and restarted from the inputs; every other plan is the same.
//  4: a plan whose continuation's busiest link would carry more than a restart's (plus
//     its restore) restarts instead. A continuation without copies of held results
//     carries a part of the new schedule's words on the same routes, never more, so
//     only a resume that fetched words by copy can change.
// A record stands when none of the changes since it was made touches it; a record of
// model 2 whose restart event is in 2's own wording (it gives no exact copy count)
// does not stand for 4.
bool recovery_stands(const StoreJson& rec, int made, int now) {
  if (made == now) return true;
  if (made < 2 || made > now || now > 4) return false;
  for (const StoreJson& e : rec.value("timeline", StoreJson::array())) {
    const std::string ev = e.value("event", "");
    if (ev.rfind("restart:", 0) != 0) continue;
    if (made < 3 && ev.find("no resume (the plan would need") != std::string::npos) return false;
    if (now >= 4 && made < 4 && ev.find("; resumed: ") != std::string::npos &&
        ev.find(", 0 of them fetched by copies") == std::string::npos)
      return false;
  }
  return true;
}

const StoreJson* RunStore::valid(const RunKey& k) const {
  const StoreJson* r = find(k.args);
  if (!r) return nullptr;
  const StoreJson& m = (*r)["made_by"];
  if (m.value("schedule_fingerprint", "") != k.fingerprint || m.value("model_version", -1) != k.model_version ||
      !recovery_stands(*r, m.value("recovery_version", 0), k.recovery_version))
    return nullptr;
  // The echo's key order means nothing (a store rewritten by a JSON tool may sort it).
  if (!k.config.is_null() &&
      nlohmann::json::parse(r->value(rk::kConfig, StoreJson()).dump()) != nlohmann::json::parse(k.config.dump()))
    return nullptr;
  return r;
}

void RunStore::put(const StoreJson& rec) {
  const std::string a = rec.at("args").get<std::string>();
  const auto it = by_args_.find(a);
  if (it != by_args_.end()) {
    recs_[it->second] = rec;
  } else {
    by_args_[a] = recs_.size();
    recs_.push_back(rec);
  }
  std::string text;
  for (const StoreJson& r : recs_) text += r.dump() + "\n";
  write_file_atomic(path_, text);
}

double record_chip_gb(const StoreJson& rec) {
  int w = 0, h = 0;
  const StoreJson& c = rec.value(rk::kConfig, StoreJson::object());
  if (!parse_wxh(c.value("mesh", ""), &w, &h)) return 0;
  return (double)w * h * rec.value(rk::kBytes, 0.0) / 1e9;
}

double RunStore::rate(const std::string& cpu, int threads) const {
  double gb = 0, secs = 0;
  for (const StoreJson& r : recs_) {
    const StoreJson& m = r["made_by"];
    if (!r.value(rk::kOk, false) || m.value("cpu", "") != cpu || m.value("threads", 0) != threads) continue;
    gb += record_chip_gb(r);
    secs += m.value("wall_seconds", 0.0);
  }
  return secs > 0 ? gb / secs : 0;
}

StoreJson make_record(const StoreJson& run, const std::string& name, const RunKey& k, const Provenance& p,
                      bool with_links) {
  StoreJson r;
  r["args"] = k.args;
  r["name"] = name;
  for (const char* key : kKept)
    if (run.contains(key)) r[key] = run[key];
  if (with_links && run.contains(rk::kLinkUtilization)) r[rk::kLinkUtilization] = run[rk::kLinkUtilization];
  const StoreJson sim = run.value(rk::kSimulator, StoreJson::object());
  r["made_by"] = {{"schedule_fingerprint", k.fingerprint},
                  {"model_version", k.model_version},
                  {"recovery_version", k.recovery_version},
                  {"commit", p.commit},
                  {"threads", p.threads},
                  {"wall_seconds", p.wall_seconds},
                  {"simulated_seconds", sim.value("wall_seconds", 0.0)},
                  {"peak_rss_kb", sim.value("peak_rss_kb", 0)},
                  {"cpu", sim.value("cpu", p.cpu)}};
  return r;
}

std::string source_commit(const std::string& dir) {
  try {
    const Captured head = run_capture({"git", "-C", dir, "rev-parse", "--short=12", "HEAD"});
    if (head.exit_code != 0) return "unknown";
    std::string c = head.out.substr(0, head.out.find('\n'));
    // The store and the page live under docs/ and change as the report runs.
    const Captured st = run_capture({"git", "-C", dir, "status", "--porcelain", "--untracked-files=no", "--", ":/",
                                     ":(exclude,top)docs"});
    if (st.exit_code == 0 && !st.out.empty()) c += "-dirty";
    return c;
  } catch (const std::runtime_error&) {
    return "unknown";
  }
}

}  // namespace fm::paper_report
