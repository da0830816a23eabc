// What an attacker on the fabric is told to do (attack.* in the run's
// configuration; docs/attacks.md) and what came of it. The threat model is
// the paper's §2.1: whoever reaches a cable or a switch port can read, alter,
// insert and re-send packets, but holds no session key.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/parameters.h"
#include "core/time.h"
#include "network/packet.h"

namespace ibsec::attack {

// The attacker works on the fabric's own packets.
using network::AttackKind;
using network::kAttackKinds;
using network::Packet;
using network::PacketHandle;

// Which cable the attacker sits on, named by its sending end.
struct AttackSite {
  enum class Kind { kNodeOut, kNodeIn, kSwitchPort };
  Kind kind = Kind::kNodeOut;
  uint32_t index = 0;  // node or switch
  uint16_t port = 0;   // switch port, for kSwitchPort

  // "node N out" (card N to the fabric), "node N in" (the fabric to card N)
  // or "switch S port P" (out of switch S through port P). Throws
  // ConfigError naming `key` when the text is none of these.
  static AttackSite parse(const std::string& text, const std::string& key);
  [[nodiscard]] std::string text() const;
};

enum class TamperField { kAny, kHeader, kPayload, kTag };

// attack.* : declared in attack.cpp with these initial values as the defaults.
struct AttackParams {
  std::string link;  // the cable as configured; empty = no attacker
  AttackSite site;   // `link`, read
  // Per packet passing the attacker (to a victim), the probability of each action.
  double snoop = 0.0;   // copy what passes into the capture
  double tamper = 0.0;  // flip a bit of the packet in flight
  double inject = 0.0;  // send a forged packet behind it
  double replay = 0.0;  // keep a copy and send it again replay_delay later
  double spoof = 0.0;   // send a copy that claims another source process
  TamperField tamper_field = TamperField::kAny;
  Tick replay_delay = 2 * kTicksPerUs;
  std::vector<uint32_t> victims;  // destination nodes attacked; empty = every packet
  std::string capture_file;       // CSV of snooped packets; empty = none
  uint64_t seed = 1;

  [[nodiscard]] bool present() const { return !link.empty(); }
};

const ParameterSet<AttackParams>& attack_parameters();
// The attacker's random stream for a run's seed: unlike any the traffic draws from.
constexpr uint64_t attacker_seed(uint64_t run_seed) { return run_seed ^ 0xA77AC4ED5EEDULL; }

// The attacker's own counts, by AttackKind (what the cards made of the
// attacked packets is nic::AttackOutcomes).
struct AttackerStats {
  uint64_t packets_seen = 0;
  uint64_t snooped = 0;
  std::array<uint64_t, kAttackKinds> attacked{};  // altered in flight or sent
  uint64_t not_sent_no_credits = 0;               // forged or replayed packets the link had no room for
  uint64_t spoofs_without_identity = 0;           // no other process seen yet to claim to be
};

constexpr const char* attack_name(AttackKind kind) {
  constexpr std::array<const char*, kAttackKinds> kNames{"none", "tamper", "inject", "replay", "spoof"};
  return kNames[static_cast<size_t>(kind)];
}

}  // namespace ibsec::attack
