// The chip's TLM-2.0 control interface (docs/chip.md): descriptor registers read back
// what was written, a bad descriptor gets TLM_GENERIC_ERROR_RESPONSE with STATUS = failed
// and the right ERROR, and the engine does not start (nothing is injected).
#include <tlm_utils/simple_initiator_socket.h>

#include "models/chip/chip.h"
#include "models/routing/routes.h"
#include "tests/sim_util.h"

using namespace fm;
using namespace fm::test;

namespace {

// A test initiator bound to one chip's control socket.
struct Poker : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Poker> sock;
  explicit Poker(sc_core::sc_module_name n) : sc_module(n), sock("sock") {}
  tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t addr, uint32_t* v) {
    tlm::tlm_generic_payload tx;
    tx.set_command(cmd);
    tx.set_address(addr);
    tx.set_data_ptr(reinterpret_cast<unsigned char*>(v));
    tx.set_data_length(4);
    tx.set_streaming_width(4);
    tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    sock->b_transport(tx, d);
    return tx.get_response_status();
  }
  tlm::tlm_response_status write(uint64_t a, uint32_t v) { return access(tlm::TLM_WRITE_COMMAND, a, &v); }
  uint32_t read(uint64_t a) {
    uint32_t v = 0xdeadbeef;
    access(tlm::TLM_READ_COMMAND, a, &v);
    return v;
  }
};

// One field of a good descriptor changed by `mutate`; returns what START answered,
// STATUS, ERROR and how many flits the network saw injected afterwards.
nlohmann::json start_with(const std::function<void(Poker&)>& mutate, bool dead_chip = false) {
  return in_child([mutate, dead_chip] {
    Config cfg;
    cfg.net.width = cfg.net.height = 4;
    cfg.net.local_ports = 4;
    if (dead_chip) cfg.net.faults.chips.push_back({3, 3});
    const auto fs = std::make_shared<const FaultSet>(cfg.net);
    const FaultSet& faults = *fs;
    Network net("net", cfg.net);
    const std::string e = net.load_tables(build_routes(cfg.net, faults).tables);
    if (!e.empty()) throw std::runtime_error(e);
    net.apply_faults(faults);
    CollectiveLibrary lib(cfg, fs);
    Chip chip("chip", cfg, 0, net.ni(0), lib, net.clock().period(), false);
    Poker p("poker");
    p.sock.bind(chip.ctrl);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    nlohmann::json r;
    p.write(regs::kOp, 1);
    p.write(regs::kDtype, 0);
    p.write(regs::kAlgo, 3);  // 2d
    p.write(regs::kOrder, 0);
    p.write(regs::kBufLo, 4096);
    p.write(regs::kBufHi, 0);
    p.write(regs::kSizeLo, 65536);
    p.write(regs::kSizeHi, 0);
    p.write(regs::kChunk, 4096);
    p.write(regs::kSlices, 3);
    p.write(regs::kPartBase, 0xffff);  // chips 0..15
    // Round trip of every descriptor register.
    r["readback"] = {p.read(regs::kOp), p.read(regs::kAlgo), p.read(regs::kBufLo),
                     p.read(regs::kSizeLo), p.read(regs::kChunk), p.read(regs::kPartBase),
                     p.read(regs::kId), p.read(regs::kSlices), p.read(regs::kOrder)};
    r["unknown_reg"] = (int)p.write(0x44, 1);
    mutate(p);
    r["start"] = (int)p.write(regs::kCtrl, 1);
    r["status"] = p.read(regs::kStatus);
    r["error"] = p.read(regs::kError);
    r["text"] = chip.error_text();
    sc_core::sc_start(net.clock().period() * 50.0);
    r["injected"] = net.ni(0).stats().flits_injected;
    return r;
  });
}

}  // namespace

TEST(Chip, DescriptorRoundTripAndGoodStart) {
  const auto j = start_with([](Poker&) {}, false);
  EXPECT_EQ(j["readback"], nlohmann::json({1, 3, 4096, 65536, 4096, 0xffff, 0, 3, 0}));
  EXPECT_EQ(j["unknown_reg"].get<int>(), (int)tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(j["start"].get<int>(), (int)tlm::TLM_OK_RESPONSE) << j["text"];
  EXPECT_EQ(j["status"].get<uint32_t>(), (uint32_t)regs::kBusy);
  EXPECT_GT(j["injected"].get<uint64_t>(), 0u);  // the engine really started
}

TEST(Chip, BadDescriptorsAreRefusedAndTheEngineDoesNotStart) {
  struct Case {
    const char* what;
    std::function<void(Poker&)> mutate;
    bool dead;
    uint32_t error;
  };
  const std::vector<Case> cases = {
      {"size 0", [](Poker& p) { p.write(regs::kSizeLo, 0); }, false, regs::kBadSize},
      {"size not a multiple of fp32", [](Poker& p) { p.write(regs::kSizeLo, 65538); }, false, regs::kBadSize},
      {"misaligned buffer", [](Poker& p) { p.write(regs::kBufLo, 4100); }, false, regs::kMisaligned},
      {"chunk 0", [](Poker& p) { p.write(regs::kChunk, 0); }, false, regs::kMisaligned},
      {"unknown algorithm", [](Poker& p) { p.write(regs::kAlgo, 42); }, false, regs::kBadAlgo},
      {"unknown op", [](Poker& p) { p.write(regs::kOp, 2); }, false, regs::kBadOp},
      {"65 slices", [](Poker& p) { p.write(regs::kSlices, 65); }, false, regs::kBadSlices},
      {"unknown line scheme", [](Poker& p) { p.write(regs::kLine, 3); }, false, regs::kBadAlgo},
      {"beyond HBM", [](Poker& p) { p.write(regs::kBufHi, 0x10); }, false, regs::kOutOfRange},
      {"participant not alive", [](Poker&) {}, true, regs::kBadParticipants},
      {"live chip left out", [](Poker& p) { p.write(regs::kPartBase, 0x7fff); }, false, regs::kBadParticipants},
      {"2d with a hole", [](Poker& p) { p.write(regs::kPartBase, 0x7fff); }, true, regs::kRefused},
  };
  for (const Case& c : cases) {
    const auto j = start_with(c.mutate, c.dead);
    EXPECT_EQ(j["start"].get<int>(), (int)tlm::TLM_GENERIC_ERROR_RESPONSE) << c.what;
    EXPECT_EQ(j["status"].get<uint32_t>(), (uint32_t)regs::kFailed) << c.what;
    EXPECT_EQ(j["error"].get<uint32_t>(), c.error) << c.what << ": " << j["text"];
    EXPECT_EQ(j["injected"].get<uint64_t>(), 0u) << c.what;
  }
}
