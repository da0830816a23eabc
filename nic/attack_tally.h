// What a receiving card counts of attacked packets (docs/attacks.md), apart
// from the card's pipelines: the simulator marks each attacked packet with
// its kind (network/packet.h), and this tally reads the mark only to count,
// so the card's own checks never see it.
#pragma once

#include <cstdint>
#include <set>
#include <utility>

#include "network/packet.h"
#include "nic/attack_outcomes.h"

namespace ibsec::nic {

class AttackTally {
 public:
  // `packet` passed the card's checks. Returns false for a forged packet:
  // no host sent it, so no host model has a message to credit it to, and
  // the card frees it rather than deliver it. `windows_checked`: the card
  // keeps replay windows (functional crypto that encrypts), so a replay
  // that passed them arrived ahead of its original.
  bool delivered(const network::Packet& packet, bool windows_checked);
  // `packet` failed the card's checks and was dropped.
  void dropped(const network::Packet& packet);

  [[nodiscard]] const AttackOutcomes& outcomes() const { return outcomes_; }

 private:
  AttackOutcomes outcomes_;
  // Originals a replay overtook, by (session direction, sequence number):
  // their refusal as duplicates is no false drop.
  std::set<std::pair<uint64_t, uint32_t>> overtaken_originals_;
};

}  // namespace ibsec::nic
