// A packet-level InfiniBand switch: input buffers per port and virtual lane,
// virtual cut-through (a packet moves on as soon as its header has been
// routed, if the output is free and the next buffer has room for all of it),
// and a crossbar whose outputs are granted round-robin over (input, lane).
//
// Timing: a packet whose head arrives at t can start on its output port at
// t + traversal latency at the earliest. An input port feeds one output at a
// time and is busy until the tail has gone through; all links have the same
// rate, so the tail never overtakes the head.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "network/credit_link.h"
#include "network/packet.h"
#include "sim/event_module.h"

namespace ibsec::network {

struct SwitchParams {
  Tick traversal_latency = 0;
  uint32_t lanes = 1;
};

struct SwitchStats {
  uint64_t packets_forwarded = 0;
};

class Switch final : public sim::EventDrivenModule, public PacketReceiver, public LinkSender {
 public:
  Switch(const sc_core::sc_module_name& name, sim::KernelCounters& counters, PacketPool& pool, uint16_t ports,
         std::vector<PortId> forwarding, const SwitchParams& params);

  // Wiring, done once while the cluster is assembled.
  void attach_output(PortId port, CreditLink* link) { outputs_[port.value()].link = link; }
  void attach_input(PortId port, CreditLink* upstream) { inputs_[port.value()].upstream = upstream; }

  void on_packet_head(PortId port, PacketHandle packet, Tick head_at) override;
  void on_credits_returned(PortId port, Tick at) override;

  [[nodiscard]] const SwitchStats& stats() const { return stats_; }
  [[nodiscard]] size_t buffered_packets() const;

 private:
  enum EventKind : uint32_t { kRouted, kTransferDone, kCreditsBack };

  struct Request {
    uint16_t input;
    uint8_t lane;
  };
  struct Input {
    std::vector<std::deque<PacketHandle>> lanes;  // routed packets, in arrival order
    CreditLink* upstream = nullptr;
    Tick busy_until = 0;
  };
  struct Output {
    CreditLink* link = nullptr;
    std::vector<Request> requests;  // heads of input lanes that want this output
    uint32_t next_grant = 0;        // round-robin pointer over input * lanes + lane
    bool dirty = false;
  };

  void handle(const sim::ModuleEvent& event) override;
  void settle(Tick now) override;

  void request_for_head(uint16_t input, uint8_t lane);
  void mark_dirty(uint16_t output);
  void arbitrate(uint16_t output, Tick now);
  void grant(uint16_t output, size_t request_index, Tick now);
  [[nodiscard]] uint16_t output_of(PacketHandle packet) const;

  PacketPool& pool_;
  std::vector<PortId> forwarding_;
  SwitchParams params_;
  std::vector<Input> inputs_;
  std::vector<Output> outputs_;
  std::vector<uint16_t> dirty_;
  SwitchStats stats_;
};

}  // namespace ibsec::network
