#include "nic/attack_tally.h"

#include <cstddef>

#include "nic/session_map.h"

namespace ibsec::nic {
namespace {

// One packet of one session direction, by its sequence number.
std::pair<uint64_t, uint32_t> sequence_key(const network::Packet& packet) {
  return {session_direction(packet.source_process, packet.destination_process), packet.sequence};
}

}  // namespace

bool AttackTally::delivered(const network::Packet& packet, bool windows_checked) {
  if (windows_checked && packet.attack == network::AttackKind::kReplay) {
    // Its original has not been seen, or the window would have refused it.
    ++outcomes_.replays_ahead_of_original;
    overtaken_originals_.insert(sequence_key(packet));
    return true;
  }
  if (packet.attack == network::AttackKind::kNone) return true;
  // The process got it, which is what is counted.
  ++outcomes_.delivered[static_cast<size_t>(packet.attack)];
  return !network::forged(packet.attack);
}

void AttackTally::dropped(const network::Packet& packet) {
  if (packet.attack == network::AttackKind::kNone) {
    if (overtaken_originals_.erase(sequence_key(packet)) == 0) ++outcomes_.false_drops;
  } else {
    ++outcomes_.detected[static_cast<size_t>(packet.attack)];
  }
}

}  // namespace ibsec::nic
