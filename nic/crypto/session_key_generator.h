// Reproducible session keys: the same seed gives the same keys on every run
// and platform, so a run with functional cryptography can be repeated bit for
// bit. Not a source of secret keys; a real card gets its keys from a key
// exchange.
//
// Derivation: AES-256 used as a pseudo-random function, keyed by a master key
// made of four outputs of core/random.h's Rng(seed) (std::mt19937_64, which
// the C++ standard fixes). A key is the encryption of counter blocks
//
//   id (8 bytes, big-endian) | purpose (1 byte) | block index (7 bytes, big-endian)
//
// with block index 0 for a 16-byte key, 0 and 1 for a 32-byte one.
// A key therefore depends on (seed, purpose, id) only, not on which keys were
// asked for before it, so a card can derive a key again when it needs it, and
// the keys of different ids (or purposes) are independent.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/types.h"
#include "nic/crypto/evp.h"
#include "nic/crypto/session_key.h"

namespace ibsec::nic::crypto {

class SessionKeyGenerator {
 public:
  // `key_bytes`: 16 (AES-128 session keys, the model's default) or 32.
  explicit SessionKeyGenerator(uint64_t seed, size_t key_bytes = 16);

  // The key of one session (e.g. nic::session_key(a, b, processes) for the
  // pair of processes a and b).
  [[nodiscard]] SessionKey session_key(SessionKeyId session);
  // A card's own secret key, for KeyWrap.
  [[nodiscard]] SessionKey card_key(NodeId card);

 private:
  [[nodiscard]] SessionKey derive(uint64_t id, uint8_t purpose);

  evp::CipherContext prf_;
  size_t key_bytes_;
};

}  // namespace ibsec::nic::crypto
