// What a receiving card made of attacked packets, by the attack kind the
// simulator marked them with (network/packet.h), and of genuine ones:
// counted at the card for the run's attack report (docs/attacks.md); the
// card's own logic never reads the kind.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "network/packet.h"

namespace ibsec::nic {

struct AttackOutcomes {
  std::array<uint64_t, network::kAttackKinds> detected{};   // dropped by the card's checks
  std::array<uint64_t, network::kAttackKinds> delivered{};  // passed every check: the attack succeeded
  uint64_t false_drops = 0;                                 // genuine, unaltered packets dropped
  // On a fabric that reorders (adaptive routing) a replay can arrive before
  // its original. It carries the original's bytes and passes every check, so
  // the host gets it in the original's place, and the original that follows
  // is refused as the duplicate: the same bytes once, neither a breach nor a loss.
  uint64_t replays_ahead_of_original = 0;

  AttackOutcomes& operator+=(const AttackOutcomes& o) {
    for (size_t k = 0; k < network::kAttackKinds; ++k) {
      detected[k] += o.detected[k];
      delivered[k] += o.delivered[k];
    }
    false_drops += o.false_drops;
    replays_ahead_of_original += o.replays_ahead_of_original;
    return *this;
  }
};

}  // namespace ibsec::nic
