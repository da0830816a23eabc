// What a card's functional cryptography counted (nic.crypto.mode =
// functional; docs/crypto.md, "In the card"). Without an attacker every drop
// and mismatch count stays 0. Only runs with functional crypto report these,
// so that a timing run's result stays what it was.
#pragma once

#include "core/statistics.h"

namespace ibsec::nic {

struct CardCryptoStats : StatGroupOf<CardCryptoStats> {
  Counter packets_sealed{
      *this, {"packets_sealed", "packets", "packets encrypted and tagged by their sending card (functional crypto)"}};
  Counter packets_opened{
      *this, {"packets_opened", "packets", "packets whose tag verified and that were decrypted at the receiving card"}};
  Counter packets_dropped_auth{*this,
                               {"packets_dropped_auth", "packets",
                                "received packets dropped: tag, ciphertext, header or key id did not verify"}};
  Counter packets_dropped_replay{
      *this,
      {"packets_dropped_replay", "packets", "received packets dropped: sequence number duplicate or below the window"}};
  Counter packets_dropped_key{
      *this, {"packets_dropped_key", "packets", "packets dropped because their session key failed to unwrap"}};
  Counter key_unwraps{*this, {"key_unwraps", "keys", "key memory records unwrapped and verified on a read"}};
  Counter key_unwrap_failures{
      *this,
      {"key_unwrap_failures", "keys", "key memory records that failed to unwrap (tampered, moved or rolled back)"}};
  Counter payload_mismatches{
      *this, {"payload_mismatches", "packets", "delivered payloads unlike what was sent (must be 0 with security)"}};
};

}  // namespace ibsec::nic
