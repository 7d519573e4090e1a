// Helpers shared by the simulation tests: every simulation runs in a forked child
// (SystemC elaborates once per process) and returns JSON.
#pragma once
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/noc/network.h"
#include "tb/isolated.h"
#include "tb/traffic_run.h"

namespace fm::test {

// Runs fn in a child; fails the test if the child did not exit 0.
inline nlohmann::json in_child(const std::function<nlohmann::json()>& fn) {
  const IsolatedResult r = run_isolated([&] { return fn().dump(); });
  EXPECT_EQ(r.exit_code, 0) << r.output;
  if (r.exit_code != 0) return nlohmann::json::object();
  return nlohmann::json::parse(r.output);
}

inline nlohmann::json traffic_in_child(const Config& c) {
  return in_child([c] { return nlohmann::json(result_json(run_traffic(c))); });
}

// A packet source that creates the listed packets at the listed cycles.
class ScriptedSource : public PacketSource {
 public:
  struct Packet {
    Cycle at;
    ChipId dst;
    int size;
  };
  explicit ScriptedSource(std::vector<Packet> p) : p_(std::move(p)) {}
  Cycle next_time() const override { return i_ < p_.size() ? p_[i_].at : kNever; }
  void pop(ChipId* dst, int* size) override {
    *dst = p_[i_].dst;
    *size = p_[i_].size;
    ++i_;
  }

 private:
  std::vector<Packet> p_;
  size_t i_ = 0;
};

// Makes `src` chip c's packet source, measuring every packet it creates.
inline void attach_source(Network& net, ChipId c, PacketSource* src) {
  net.ni(c).set_window(0, kNever);
  net.ni(c).set_source(src);
  net.ni(c).set_injection(true);
}

inline Config small_config(int w, int h, Topology t = Topology::Mesh) {
  Config c;
  c.net.width = w;
  c.net.height = h;
  c.net.topology = t;
  return c;
}

}  // namespace fm::test
