// What a card's functional cryptography counted (nic.crypto.mode =
// functional; docs/crypto.md, "In the card"). Without an attacker every drop
// and mismatch count stays 0.
#pragma once

#include <cstdint>

namespace ibsec::nic {

struct CardCryptoStats {
  uint64_t packets_sealed = 0;          // encrypted and tagged by this card
  uint64_t packets_opened = 0;          // verified and decrypted by this card
  uint64_t packets_dropped_auth = 0;    // tag (ciphertext, tag or header) or key id did not verify
  uint64_t packets_dropped_replay = 0;  // sequence number duplicate or below the replay window
  uint64_t packets_dropped_key = 0;     // their session key failed to unwrap, so there was none to use
  uint64_t key_unwraps = 0;             // key memory records unwrapped and verified
  uint64_t key_unwrap_failures = 0;     // records whose unwrap failed (tampered, relocated, rolled back)
  uint64_t payload_mismatches = 0;      // delivered payloads unlike what was sent

  CardCryptoStats& operator+=(const CardCryptoStats& o) {
    packets_sealed += o.packets_sealed;
    packets_opened += o.packets_opened;
    packets_dropped_auth += o.packets_dropped_auth;
    packets_dropped_replay += o.packets_dropped_replay;
    packets_dropped_key += o.packets_dropped_key;
    key_unwraps += o.key_unwraps;
    key_unwrap_failures += o.key_unwrap_failures;
    payload_mismatches += o.payload_mismatches;
    return *this;
  }
};

}  // namespace ibsec::nic
