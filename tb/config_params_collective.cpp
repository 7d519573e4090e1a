// The option schema's rows of the allreduce collective and of the chip that runs it
// (tb/config_params_impl.h lists every group and its file).
#include <algorithm>

#include "models/collective/algorithms.h"  // kMaxSlices
#include "tb/config_params_impl.h"

namespace fm::params_detail {

namespace {

// The chunk --chunk auto picks: bytes/256 clamped to 4..64 KiB, whole flits, so small
// collectives still pipeline.
uint64_t auto_chunk(uint64_t bytes, uint64_t flit) {
  const uint64_t want = std::min<uint64_t>(64 << 10, std::max<uint64_t>(4 << 10, bytes / 256));
  return std::max<uint64_t>(flit, want / flit * flit);
}

}  // namespace

// Collective: the allreduce, its data and its schedule.
std::vector<Param> collective_rows() {
  using S = Section;
  std::vector<Param> t;
  t.push_back(FM_ENUM_ROW("algo", S::Collective, kAllreduce, "coll.algo", coll::Algo, coll.algo,
                          "the allreduce algorithm (docs/collectives.md)"));
  t.push_back(FM_ENUM_ROW("order", S::Collective, kAllreduce, "coll.order", coll::Order, coll.order,
                          "2-D phase order; both: half the data each way at once (the fastest measured, "
                          "docs/collectives.md, Defaults)"));
  t.back().allreduce_default = "both";
  t.push_back(with(
      text_row("bytes", S::Collective, kAllreduce, "coll.bytes", "bytes >= 1, whole elements, at most 2^32 flits, within --hbm-bytes",
               [](const std::string& s, Config* c) -> std::string {
                 if (!parse_bytes(s, &c->coll.bytes))
                   return "expected a positive whole number of bytes, e.g. 64MiB, 100MB, 4096";
                 return c->coll.bytes / (uint64_t)std::max(1, c->net.flit_bytes) >= (1ULL << 32)
                            ? "at most 2^32 flits of data per chip"
                            : "";
               },
               [](const Config& c) { return Json(c.coll.bytes); }, "gradient bytes per chip, e.g. 64MiB, 100MB, 4096"),
      [](Param& p) {
        p.default_text = "16MiB";
        p.check = [](const Config& c) -> std::string {
          return c.coll.bytes ? "" : "--bytes 0: expected a positive whole number of bytes";
        };
      }));
  t.push_back(FM_ENUM_ROW("dtype", S::Collective, kAllreduce, "coll.dtype", DType, coll.dtype,
                          "element type (its size divides --bytes)"));
  t.push_back(with(
      text_row("chunk", S::Collective, kAllreduce, "coll.chunk_bytes", "auto or bytes, a multiple of --flit-bytes below 4 GiB",
               [](const std::string& s, Config* c) -> std::string {
                 const uint64_t fb = (uint64_t)std::max(1, c->net.flit_bytes);
                 if (s == "auto") {
                   c->coll.chunk_bytes = auto_chunk(c->coll.bytes, fb);
                   return "";
                 }
                 uint64_t v = 0;
                 if (!parse_bytes(s, &v) || v % fb || v >= (1ULL << 32))
                   return "must be a positive multiple of --flit-bytes (" + std::to_string(fb) + ") below 4 GiB";
                 c->coll.chunk_bytes = v;
                 return "";
               },
               [](const Config& c) { return Json(c.coll.chunk_bytes); },
               "pipelining chunk of every schedule; auto: bytes/256 clamped to 4..64 KiB, so small "
               "collectives still pipeline"),
      [](Param& p) { p.default_text = "auto"; }));
  t.push_back(with(
      text_row("slices", S::Collective, kAllreduce, "coll.slices", "auto or 1..64",
               [](const std::string& s, Config* c) -> std::string {
                 uint64_t v = 0;
                 if (!auto_or_count(s, coll::kMaxSlices, &v))
                   return "allowed auto or 1.." + std::to_string(coll::kMaxSlices);
                 c->coll.slices = (uint32_t)v;
                 return "";
               },
               [](const Config& c) { return auto_or(c.coll.slices); },
               "2-D family: the buffer cut into N slices run one after another, so a slice's later phases (and "
               "ft2d's fold) overlap the next slice's rings (auto: 4)"),
      [](Param& p) {
        p.check = [](const Config& c) -> std::string {
          return c.coll.slices > coll::kMaxSlices ? "--slices " + std::to_string(c.coll.slices) + ": allowed auto or 1.." +
                                                        std::to_string(coll::kMaxSlices)
                                                  : "";
        };
      }));
  t.push_back(FM_ENUM_ROW("line", S::Collective, kAllreduce, "coll.line", coll::Line, coll.line,
      "2-D family lines: ring (natural ring where it closes, else alternate-node) | chain (reduce toward each "
      "owner from both ends, copy back: S per link direction) | auto (ring where it closes, chain where not)"));
  t.back().allreduce_default = "auto";
  t.push_back(FM_ENUM_ROW("verify", S::Collective, kAllreduce, "coll.verify", Verify, coll.verify,
      "flits carry data words and every chip's sum is checked (auto: on when all chips' words "
      "fit in 1 GiB); --verify alone: on"));
  t.back().implicit = "on";
  return t;
}

// Chip: packets, HBM, reduction unit and compute of each chip.
std::vector<Param> chip_rows() {
  using S = Section;
  std::vector<Param> t;
  t.push_back(int_row("packet-words", S::Chip, kAllreduce, "chip.packet_words", FM_REF(int, chip.packet_words), 1,
                      1024, "flits", "data flits per packet (plus one header flit)"));
  t.push_back(FM_ENUM_ROW("send-order", S::Chip, kAllreduce, "chip.send_order", ChipConfig::SendOrder,
      chip.send_order, "which ready packet a lane starts first: schedule (earliest transfer in the schedule) | fifo (first read "
      "from HBM)"));
  t.push_back(real_row("hbm-bw", S::Chip, kAllreduce, "chip.hbm_gbps", FM_REF(double, chip.hbm_gbps), 0, true, 1e6,
                       "GB/s", "HBM bandwidth per chip"));
  t.push_back(with(text_row("hbm-bytes", S::Chip, kAllreduce, "chip.hbm_bytes", "bytes >= 1",
                            [](const std::string& s, Config* c) -> std::string {
                              return parse_bytes(s, &c->chip.hbm_bytes) ? "" : "expected bytes, e.g. 32GiB";
                            },
                            [](const Config& c) { return Json(c.chip.hbm_bytes); }, "HBM capacity per chip"),
                   [](Param& p) {
                     p.default_text = "32GiB";
                     p.check = [](const Config& c) -> std::string {
                       return c.chip.hbm_bytes ? "" : "--hbm-bytes 0: expected bytes, e.g. 32GiB";
                     };
                   }));
  t.push_back(real_row("reduce-bw", S::Chip, kAllreduce, "chip.reduce_gbps", FM_REF(double, chip.reduce_gbps), 0,
                       true, 1e6, "GB/s", "reduction unit throughput, of incoming data"));
  // Up to 10 s: more than any training step's compute and within what a run can simulate
  // (0.5 s of wall time per ms on a 4x4 mesh); 1e300 overflowed the cycle count.
  t.push_back(real_row("compute-us", S::Chip, kAllreduce, "chip.compute_us", FM_REF(double, chip.compute_us), 0, false,
                       1e7, "microseconds",
                       "compute time of a training step before the allreduce (simulated cycle by cycle)"));
  return t;
}

}  // namespace fm::params_detail
