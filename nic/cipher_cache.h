// AES-GCM contexts with their keys already loaded, for the last few sessions a
// card sealed or opened packets of. Loading a key (key schedule and GHASH
// key) costs about as much as sealing a 256-byte packet (docs/crypto.md,
// Speed), and a card interleaves the packets of many sessions, so one
// context per direction would reload a key almost every packet. A
// simulation-speed device only: which key a packet uses is decided by the
// caller, and an entry whose key differs is reloaded (AesGcm::rekey compares
// the bytes), so the cache can never change a result.
#pragma once

#include <array>
#include <cstddef>
#include <optional>

#include "core/types.h"
#include "nic/crypto/aes_gcm.h"
#include "nic/crypto/session_key.h"

namespace ibsec::nic {

class CipherCache {
 public:
  // Enough for a card talking to every other card of the paper's 16-node cluster.
  static constexpr size_t kEntries = 16;

  crypto::AesGcm& cipher_for(SessionKeyId session, const crypto::SessionKey& key) {
    for (Entry& e : entries_) {
      if (e.cipher && e.session == session) {
        e.cipher->rekey(key.bytes());  // a no-op unless the session's key changed
        return *e.cipher;
      }
    }
    Entry& victim = entries_[next_victim_];  // first in, first out: cheap and good enough
    next_victim_ = (next_victim_ + 1) % kEntries;
    victim.session = session;
    if (victim.cipher) {
      victim.cipher->rekey(key.bytes());
    } else {
      victim.cipher.emplace(key.bytes());
    }
    return *victim.cipher;
  }

 private:
  struct Entry {
    SessionKeyId session{0};
    std::optional<crypto::AesGcm> cipher;
  };
  std::array<Entry, kEntries> entries_{};
  size_t next_victim_ = 0;
};

}  // namespace ibsec::nic
