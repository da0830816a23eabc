// An attacker on one cable (docs/attacks.md): a tap between the link and its
// receiver. Every packet the link carries passes through on_packet_head,
// where the attacker may snoop it, flip bits of it, or send packets of its
// own behind it: forged ones with valid-looking headers (inject), earlier
// captures (replay) and copies claiming another source (spoof). Genuine
// packets are forwarded at once, so an attacker that does nothing changes no
// timing.
//
// The attacker's packets take the receiver's buffer credits from the link
// like any sender's, so flow control stays exact; they take no link time
// from genuine traffic (the tap is taken to have its own wire slot). Every
// packet it alters or makes is marked with its AttackKind, which only the
// statistics read.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "attack/attack.h"
#include "core/event_module.h"
#include "core/random.h"
#include "network/credit_link.h"
#include "network/packet.h"
#include "network/packet_payloads.h"
#include "nic/attack_outcomes.h"

namespace ibsec::attack {

// It sits on a link like a switch port or a card would.
using network::CreditLink;
using network::PacketPayloads;
using network::PacketPool;
using network::PacketReceiver;

// Where snooped packets go (the run's capture): the header as it was on the
// wire, the payload bytes and the tag (empty when the packet has none).
class SnoopSink {
 public:
  virtual ~SnoopSink() = default;
  virtual void snooped(const Packet& packet, std::span<const uint8_t> payload, std::span<const uint8_t> tag,
                       Tick at) = 0;
};

// The run's shared packet state the attacker makes its packets in.
struct AttackerContext {
  PacketPool& pool;
  PacketPayloads& payloads;
  uint64_t& next_packet_id;
  uint32_t total_processes = 1;
  bool tagged = true;  // packets carry a GCM tag (any security mode but NoSecurity)
};

class Attacker final : public EventDrivenModule, public PacketReceiver {
 public:
  Attacker(const sc_core::sc_module_name& name, EventKernel& kernel, const AttackParams& params,
           AttackerContext context, SnoopSink* sink);

  // The link this attacker taps (built with this attacker as its receiver)
  // and who really receives it, on which port.
  void tap(CreditLink& link, PacketReceiver& receiver, PortId receiver_port);

  void on_packet_head(PortId port, PacketHandle packet, Tick head_at) override;

  [[nodiscard]] const AttackerStats& stats() const { return stats_; }
  // The result's "attack" section: what the attacker did, and what the
  // receiving cards made of it (`outcomes`, summed over the cards) under the
  // card configuration `security`. Attacked packets still in the network at
  // the end are neither detected nor delivered.
  [[nodiscard]] nlohmann::ordered_json report(const nic::AttackOutcomes& outcomes, const std::string& security,
                                              uint64_t snooped_plaintext) const;

 private:
  void handle(const ModuleEvent& event) override;

  [[nodiscard]] bool targets(const Packet& packet) const;
  bool chance(double probability) { return probability > 0.0 && rng_.uniform01() < probability; }
  void learn(const Packet& packet);
  void snoop(PacketHandle handle, Tick at);
  void tamper(PacketHandle handle);
  void tamper_header(Packet& packet);
  void flip_bit(std::span<uint8_t> bytes);
  void capture_for_replay(PacketHandle handle, Tick at);
  void inject(PacketHandle seen, Tick head_at);
  void spoof(PacketHandle handle, Tick head_at);
  PacketHandle made_from(PacketHandle original, AttackKind kind, Tick at);
  PacketHandle copy(PacketHandle original, AttackKind kind, Tick at);
  void send_own(PacketHandle handle, Tick head_at);

  AttackParams params_;
  AttackerContext context_;
  SnoopSink* sink_;
  CreditLink* link_ = nullptr;
  PacketReceiver* receiver_ = nullptr;
  PortId receiver_port_{0};
  Rng rng_;
  // Identities seen on the wire (process -> node), for spoofing one of them.
  std::unordered_map<uint32_t, NodeId> identities_;
  std::vector<uint32_t> identity_order_;  // insertion order: deterministic picks
  AttackerStats stats_;
};

}  // namespace ibsec::attack
