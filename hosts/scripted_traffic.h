// Hands over a fixed list of messages at given times and keeps a copy of
// every delivered packet: exact scenarios for tests (zero-load latency,
// conservation) without any randomness in the host model.
#pragma once

#include <vector>

#include "hosts/host_model.h"
#include "hosts/synthetic_traffic.h"
#include "nic/cic.h"

namespace ibsec::hosts {

struct ScriptedMessage {
  Tick at = 0;
  NodeId source{0};
  nic::MessageRequest message;
};

class ScriptedTraffic final : public HostModel {
 public:
  ScriptedTraffic(const sc_core::sc_module_name& name, EventKernel& kernel, std::vector<ScriptedMessage> script,
                  std::vector<nic::Cic*> cards, uint32_t mtu_bytes, DeliverySink& sink);

  void on_packet_delivered(const network::Packet& packet, Tick now) override;
  [[nodiscard]] bool finished() const override { return next_ == script_.size(); }
  [[nodiscard]] const std::vector<network::Packet>& delivered() const { return delivered_; }

 private:
  void start_of_simulation() override;
  void handle(const ModuleEvent& event) override;

  std::vector<ScriptedMessage> script_;  // sorted by time, stable
  std::vector<nic::Cic*> cards_;
  uint32_t mtu_bytes_;
  DeliverySink& sink_;
  size_t next_ = 0;
  std::vector<network::Packet> delivered_;
};

}  // namespace ibsec::hosts
