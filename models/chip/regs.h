// Control registers of a chip's collective engine, as the host sees them through the
// chip's TLM-2.0 target socket (docs/chip.md has the table). 32-bit registers,
// little-endian; 64-bit values are two registers, low word first.
#pragma once
#include <cstdint>

namespace fm::regs {

constexpr uint64_t kId = 0x00;        // RO  chip id
constexpr uint64_t kCtrl = 0x04;      // WO  1 = start the described collective, 2 = abort it
constexpr uint64_t kStatus = 0x08;    // RO  Status below
constexpr uint64_t kError = 0x0c;     // RO  Error below (valid when STATUS = error)
constexpr uint64_t kOp = 0x10;        // RW  1 = allreduce (sum)
constexpr uint64_t kDtype = 0x14;     // RW  0 = fp32, 1 = bf16
constexpr uint64_t kAlgo = 0x18;      // RW  coll::Algo: 0 ring, 1 biring, 2 altring, 3 2d, 4 ft2d, 5 shrink, 6 snake
constexpr uint64_t kOrder = 0x1c;     // RW  coll::Order: 0 xy, 1 yx, 2 both
constexpr uint64_t kBufLo = 0x20;     // RW  buffer byte address in HBM (flit-aligned)
constexpr uint64_t kBufHi = 0x24;
constexpr uint64_t kSizeLo = 0x28;    // RW  bytes per chip (multiple of the element size)
constexpr uint64_t kSizeHi = 0x2c;
constexpr uint64_t kChunk = 0x30;     // RW  pipelining chunk in bytes (flit-aligned)
constexpr uint64_t kSlices = 0x34;    // RW  2-D family: buffer slices run in turn, 1..64; 0 = auto
constexpr uint64_t kDoneLo = 0x38;    // RO  cycle the collective completed on this chip
constexpr uint64_t kDoneHi = 0x3c;
constexpr uint64_t kLine = 0x40;      // RW  coll::Line: 0 ring, 1 chain, 2 auto (2-D family lines)
constexpr uint64_t kPartBase = 0x100; // RW  participant bitmap: bit c of word c/32 = chip c

enum Status : uint32_t { kIdle = 0, kBusy = 1, kDone = 2, kFailed = 3, kAborted = 4 };
enum Error : uint32_t {
  kNoError = 0,
  kBadOp = 1,           // OP is not 1
  kBadSize = 2,         // SIZE is 0 or not a multiple of the element size
  kMisaligned = 3,      // BUF not flit-aligned, or CHUNK not a positive multiple of a flit
  kOutOfRange = 4,      // BUF + SIZE beyond the HBM
  kBadAlgo = 5,         // unknown ALGO, ORDER or LINE
  kBadParticipants = 6, // a participant is dead or not a chip, or this chip is not one
  kRefused = 7,         // the algorithm cannot run on this fault set (e.g. 2d with holes)
  kStartWhileBusy = 8,  // START while a collective is running
  kBadDtype = 9,        // unknown DTYPE
  kBadSlices = 10,      // SLICES above 64
};
const char* error_name(uint32_t e);

}  // namespace fm::regs
