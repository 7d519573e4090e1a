// The results JSON contract: what `faultmesh allreduce --json` (allreduce_json,
// tb/allreduce_run.cpp) and `faultmesh traffic --json` (result_json, tb/traffic_run.cpp)
// write and every reader of a result (the run page, sweeps, plots, bench, the latency
// sweep, the paper report and its run store) relies on.
//
// A result is one JSON object that begins with
//   "kind": "allreduce" | "traffic"      which run wrote it (ResultKind)
//   "schema_version": N                  kResultSchemaVersion of the writer
// followed by the run's statistics. The keys below are the top-level keys a reader in
// sim/ or tb/ reads: writers and readers both use these constants, never a literal, so a
// key renamed on one side is renamed on the other (and the tests, which iterate
// kResultKeys, catch a writer that drops one). A key's meaning covers its unit and the
// layout of what it holds (the fields of the objects in an array such as "phases", the
// sub-keys of "simulator" or "flits_dropped"). The configuration echo under "config" is
// the option schema's contract (tb/config_schema.h), not this one.
//
// Bump kResultSchemaVersion when a key of a result is renamed or removed, or its meaning
// or unit changes (a reader of the old schema would misread the new one); adding a key
// does not need a bump. A reader refuses a result whose schema_version is above its own
// (result_kind), and reads a result without schema_version (written before the contract)
// by the old rule: busbw_GBps present = allreduce, else traffic.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "models/kinds.h"

namespace fm {

// Which command wrote a result.
enum class ResultKind : uint8_t { Allreduce, Traffic };

template <>
struct EnumNames<ResultKind> {
  static constexpr EnumName<ResultKind> table[] = {{ResultKind::Allreduce, "allreduce"},
                                                   {ResultKind::Traffic, "traffic"}};
};

// The schema this binary writes, and the newest it reads.
inline constexpr int kResultSchemaVersion = 1;

namespace result_key {
// The contract's own two keys, first in every result.
inline constexpr char kKind[] = "kind";
inline constexpr char kSchemaVersion[] = "schema_version";
// Both kinds.
inline constexpr char kOk[] = "ok";
inline constexpr char kStopReason[] = "stop_reason";
inline constexpr char kMessage[] = "message";  // only when the run has something to say
inline constexpr char kCycles[] = "cycles";  // allreduce: from start_cycle to the end; traffic: the whole run
inline constexpr char kFlitsInjected[] = "flits_injected";
inline constexpr char kFlitsEjected[] = "flits_ejected";
inline constexpr char kLinkUtilMean[] = "link_util_mean";
inline constexpr char kLinkUtilMax[] = "link_util_max";
inline constexpr char kLinkUtilization[] = "link_utilization";  // [{x, y, port, utilization}]
inline constexpr char kLinkWindows[] = "link_windows";          // tb/view_data.h
inline constexpr char kDeadChips[] = "dead_chips";
inline constexpr char kDeadBoards[] = "dead_boards";
inline constexpr char kDeadLinks[] = "dead_links";
inline constexpr char kSimulator[] = "simulator";  // host timings, not the model's
inline constexpr char kConfig[] = "config";        // the configuration echo
// Allreduce.
inline constexpr char kAlgo[] = "algo";
inline constexpr char kBytes[] = "bytes";
inline constexpr char kStartCycle[] = "start_cycle";
inline constexpr char kTimeUs[] = "time_us";
inline constexpr char kAlgbwGBps[] = "algbw_GBps";
inline constexpr char kBusbwGBps[] = "busbw_GBps";
inline constexpr char kBoundCycles[] = "bound_cycles";
inline constexpr char kBoundRatio[] = "bound_ratio";
inline constexpr char kTopoBoundCycles[] = "topo_bound_cycles";
inline constexpr char kTopoBoundRatio[] = "topo_bound_ratio";
inline constexpr char kVerified[] = "verified";
inline constexpr char kLiveChips[] = "live_chips";
inline constexpr char kParticipants[] = "participants";
inline constexpr char kWordsPerChip[] = "words_per_chip";
inline constexpr char kTransfers[] = "transfers";
inline constexpr char kMaxLinkWords[] = "max_link_words";
inline constexpr char kPhases[] = "phases";  // [{name, start, end}], cycles from start_cycle
inline constexpr char kFlitsDelivered[] = "flits_delivered";
inline constexpr char kFlitsDropped[] = "flits_dropped";  // {dead_router, ..., total}
inline constexpr char kConservationOk[] = "conservation_ok";
inline constexpr char kRestarts[] = "restarts";
inline constexpr char kTimeline[] = "timeline";  // [{cycle, event}]
inline constexpr char kFaultsNotTriggered[] = "faults_not_triggered";
inline constexpr char kLinkUtilizationOverTime[] = "link_utilization_over_time";
inline constexpr char kLinkDrops[] = "link_drops";
inline constexpr char kChipDrops[] = "chip_drops";
inline constexpr char kChipRoles[] = "chip_roles";
inline constexpr char kScheduleFingerprint[] = "schedule_fingerprint";
inline constexpr char kModelVersion[] = "model_version";
inline constexpr char kRecoveryVersion[] = "recovery_version";
// Traffic.
inline constexpr char kWarmupCycles[] = "warmup_cycles";
inline constexpr char kMeasureCycles[] = "measure_cycles";
inline constexpr char kDrainCycles[] = "drain_cycles";
inline constexpr char kOfferedFlitRate[] = "offered_flit_rate";
inline constexpr char kAcceptedFlitRate[] = "accepted_flit_rate";
inline constexpr char kAvgPacketLatency[] = "avg_packet_latency";
inline constexpr char kP99PacketLatency[] = "p99_packet_latency";
inline constexpr char kMaxPacketLatency[] = "max_packet_latency";
inline constexpr char kFlitsSwitched[] = "flits_switched";
inline constexpr char kWallSeconds[] = "wall_seconds";                       // host timing
inline constexpr char kRouterCyclesPerSecond[] = "router_cycles_per_second";  // host timing
}  // namespace result_key

// One contract key: which results hold it and whether every result of those kinds
// does (false: only some runs write it, e.g. "message").
struct ResultKey {
  enum class In : uint8_t { Both, Allreduce, Traffic };
  const char* name;
  In in;
  bool always = true;
  bool in_kind(ResultKind k) const {
    return in == In::Both || (in == In::Allreduce) == (k == ResultKind::Allreduce);
  }
};

// Every contract key, kind and schema_version first.
inline constexpr ResultKey kResultKeys[] = {
    {result_key::kKind, ResultKey::In::Both},
    {result_key::kSchemaVersion, ResultKey::In::Both},
    {result_key::kOk, ResultKey::In::Both},
    {result_key::kStopReason, ResultKey::In::Both},
    {result_key::kMessage, ResultKey::In::Both, false},
    {result_key::kCycles, ResultKey::In::Both},
    {result_key::kFlitsInjected, ResultKey::In::Both},
    {result_key::kFlitsEjected, ResultKey::In::Both},
    {result_key::kLinkUtilMean, ResultKey::In::Both},
    {result_key::kLinkUtilMax, ResultKey::In::Both},
    {result_key::kLinkUtilization, ResultKey::In::Both},
    {result_key::kLinkWindows, ResultKey::In::Both},
    {result_key::kDeadChips, ResultKey::In::Both},
    {result_key::kDeadBoards, ResultKey::In::Both},
    {result_key::kDeadLinks, ResultKey::In::Both},
    {result_key::kSimulator, ResultKey::In::Both},
    {result_key::kConfig, ResultKey::In::Both},
    {result_key::kAlgo, ResultKey::In::Allreduce},
    {result_key::kBytes, ResultKey::In::Allreduce},
    {result_key::kStartCycle, ResultKey::In::Allreduce},
    {result_key::kTimeUs, ResultKey::In::Allreduce},
    {result_key::kAlgbwGBps, ResultKey::In::Allreduce},
    {result_key::kBusbwGBps, ResultKey::In::Allreduce},
    {result_key::kBoundCycles, ResultKey::In::Allreduce},
    {result_key::kBoundRatio, ResultKey::In::Allreduce},
    {result_key::kTopoBoundCycles, ResultKey::In::Allreduce},
    {result_key::kTopoBoundRatio, ResultKey::In::Allreduce},
    {result_key::kVerified, ResultKey::In::Allreduce},
    {result_key::kLiveChips, ResultKey::In::Allreduce},
    {result_key::kParticipants, ResultKey::In::Allreduce},
    {result_key::kWordsPerChip, ResultKey::In::Allreduce},
    {result_key::kTransfers, ResultKey::In::Allreduce},
    {result_key::kMaxLinkWords, ResultKey::In::Allreduce},
    {result_key::kPhases, ResultKey::In::Allreduce},
    {result_key::kFlitsDelivered, ResultKey::In::Allreduce},
    {result_key::kFlitsDropped, ResultKey::In::Allreduce},
    {result_key::kConservationOk, ResultKey::In::Allreduce},
    {result_key::kRestarts, ResultKey::In::Allreduce},
    {result_key::kTimeline, ResultKey::In::Allreduce},
    {result_key::kFaultsNotTriggered, ResultKey::In::Allreduce},
    {result_key::kLinkUtilizationOverTime, ResultKey::In::Allreduce},
    {result_key::kLinkDrops, ResultKey::In::Allreduce},
    {result_key::kChipDrops, ResultKey::In::Allreduce},
    {result_key::kChipRoles, ResultKey::In::Allreduce},
    {result_key::kScheduleFingerprint, ResultKey::In::Allreduce},
    {result_key::kModelVersion, ResultKey::In::Allreduce},
    {result_key::kRecoveryVersion, ResultKey::In::Allreduce},
    {result_key::kWarmupCycles, ResultKey::In::Traffic},
    {result_key::kMeasureCycles, ResultKey::In::Traffic},
    {result_key::kDrainCycles, ResultKey::In::Traffic},
    {result_key::kOfferedFlitRate, ResultKey::In::Traffic},
    {result_key::kAcceptedFlitRate, ResultKey::In::Traffic},
    {result_key::kAvgPacketLatency, ResultKey::In::Traffic},
    {result_key::kP99PacketLatency, ResultKey::In::Traffic},
    {result_key::kMaxPacketLatency, ResultKey::In::Traffic},
    {result_key::kFlitsSwitched, ResultKey::In::Traffic},
    {result_key::kWallSeconds, ResultKey::In::Traffic},
    {result_key::kRouterCyclesPerSecond, ResultKey::In::Traffic},
};

// Starts a result of kind k: {"kind": ..., "schema_version": kResultSchemaVersion}, to
// which the writer adds its statistics.
nlohmann::ordered_json result_header(ResultKind k);

// The kind of a result, the one place a reader learns it. A result with schema_version
// is checked: a whole number 1..kResultSchemaVersion and a known "kind"; a result
// without one was written before the contract and is an allreduce when it has
// busbw_GBps, else traffic. Throws ConfigError (bad input, exit 2) naming the field, its
// value and what it must be: `kind is "x", expected allreduce | traffic`,
// `schema_version is 9, expected 1..1 ...`.
ResultKind result_kind(const nlohmann::json& r);
ResultKind result_kind(const nlohmann::ordered_json& r);

}  // namespace fm
