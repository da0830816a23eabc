// A card's functional cryptography (nic.crypto.mode = functional): the bytes
// behind the timing model. The Cic calls it at the points its pipelines
// reach: a key memory read (unwrap and verify the key), hand-over (the
// host's payload), link injection (seal) and delivery (verify, replay check,
// open). It adds no time: the cycle model charges the GCM unit and the key
// memory as in a timing run. docs/crypto.md, "In the card".
//
// Keys: each session's key comes from SessionKeyGenerator(seed); the card's
// key memory holds it wrapped (KeyWrap) under the card's own key, bound to
// its slot (the session id) and version, and the card keeps each slot's
// version on-chip to catch a rolled-back record. Keys read from memory are
// unwrapped into `on_card_`, the plaintext keys the SKC and buffer hold; a
// packet is sealed or opened only with a key that passed its unwrap.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>

#include "core/types.h"
#include "network/packet.h"
#include "network/packet_payloads.h"
#include "nic/card_crypto_stats.h"
#include "nic/cipher_cache.h"
#include "nic/crypto/aes_gcm.h"
#include "nic/crypto/key_wrap.h"
#include "nic/crypto/session_key_generator.h"
#include "nic/replay_window.h"
#include "nic/session_map.h"

namespace ibsec::nic {

struct CardCryptoParams {
  uint64_t seed = 1;        // the run's seed: keys are reproducible
  uint32_t key_bytes = 16;  // session keys: 16 (AES-128) or 32 (AES-256)
  uint32_t total_processes = 1;
  bool encrypts = true;                                  // false under NoSecurity: payloads go in clear, with no tag
  uint64_t replay_window = ReplayWindow::kDefaultWidth;  // sequence numbers each session direction's window spans
};

enum class ReceiveVerdict { kDeliver, kDropAuth, kDropReplay, kDropNoKey };

class CardCrypto {
 public:
  CardCrypto(NodeId card, const CardCryptoParams& params, network::PacketPayloads& payloads);

  // The host hands over `packet`: its synthetic payload goes into the packet's bytes.
  void write_payload(const network::Packet& packet, network::PacketHandle handle);
  // The key memory has been read for `key`: unwrap and verify the record
  // (writing it first if the session's key exchange has not yet put it there).
  void key_read(SessionKeyId key);
  // Encrypts and tags the packet in place. False (the packet must be
  // dropped) when the session has no verified key on the card.
  [[nodiscard]] bool seal(const network::Packet& packet, network::PacketHandle handle);
  // Checks everything before the host sees the packet; counts each drop by
  // reason and each delivered payload unlike the one sent.
  [[nodiscard]] ReceiveVerdict receive(const network::Packet& packet, network::PacketHandle handle);
  // False under NoSecurity: nothing is checked, so a replay is delivered beside its original.
  [[nodiscard]] bool encrypts() const { return params_.encrypts; }

  // The record in key memory for `slot`, null before its key exchange. Key
  // memory is outside the card: whatever writes it may alter a record.
  [[nodiscard]] crypto::WrappedKey* key_memory_record(SessionKeyId slot);

  [[nodiscard]] const CardCryptoStats& stats() const { return stats_; }

 private:
  static constexpr uint64_t kKeyVersion = 1;  // keys are never renewed within a run

  [[nodiscard]] ReceiveVerdict open(const network::Packet& packet, network::PacketHandle handle);
  const crypto::WrappedKey& record_for(SessionKeyId slot);
  [[nodiscard]] bool verified_again(SessionKeyId key, const crypto::WrappedKey& record, uint64_t version) const;
  void check_payload(const network::Packet& packet, network::PacketHandle handle);

  CardCryptoParams params_;
  network::PacketPayloads& payloads_;
  crypto::SessionKeyGenerator keys_;
  crypto::KeyWrap wrap_;
  std::unordered_map<SessionKeyId, crypto::WrappedKey> key_memory_;  // outside the trust boundary
  std::unordered_map<SessionKeyId, uint64_t> versions_;              // on-chip: each slot's current version
  std::unordered_map<SessionKeyId, crypto::SessionKey> on_card_;     // verified keys
  struct VerifiedRecord {
    crypto::WrappedKey record;  // the bytes that verified
    uint64_t version;           // under this expected version
  };
  std::unordered_map<SessionKeyId, VerifiedRecord> verified_;  // what on_card_'s keys were unwrapped from
  SessionMap<ReplayWindow> windows_;                           // by session direction
  CipherCache ciphers_;
  CardCryptoStats stats_;
};

}  // namespace ibsec::nic
