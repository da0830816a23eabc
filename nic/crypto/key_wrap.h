// Session keys at rest in the card's external key memory, which is outside
// the card's trust boundary: each key is encrypted and authenticated under
// the card's own secret key (AES-GCM), bound to its slot and version.
//
// Record at rest (52 bytes for a 16-byte key, 68 for a 32-byte one):
//
//   version (8, big-endian, in clear) | nonce (12) | ciphertext (16 or 32) | tag (16)
//
// AAD: slot id (8, big-endian) | version (8, big-endian). The slot id is not
// stored: the card knows which slot it reads, so a record copied to another
// slot fails its tag (relocation). The version travels in clear so that a
// record can be checked without knowing it, but only a caller that keeps each
// slot's current version on the card and passes it to unwrap() detects an
// old, validly sealed record written back (rollback).
//
// Nonce: 4 zero bytes | count of records sealed under this card key (64 bit,
// big-endian). A card key must only ever be used by one KeyWrap, resumed with
// its write count after a restart, or nonces would repeat.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "core/types.h"
#include "nic/crypto/aes_gcm.h"
#include "nic/crypto/session_key.h"

namespace ibsec::nic::crypto {

class WrappedKey {
 public:
  static constexpr size_t version_bytes = 8;
  static constexpr size_t overhead_bytes = version_bytes + AesGcm::nonce_bytes + AesGcm::max_tag_bytes;
  static constexpr size_t max_bytes = overhead_bytes + SessionKey::max_bytes;

  // A record read back from key memory; nullopt unless it has the length of
  // a wrapped 16- or 32-byte key.
  [[nodiscard]] static std::optional<WrappedKey> parse(std::span<const uint8_t> bytes);

  [[nodiscard]] std::span<const uint8_t> bytes() const { return {bytes_.data(), size_}; }
  [[nodiscard]] uint64_t version() const;
  [[nodiscard]] std::span<const uint8_t> nonce() const { return bytes().subspan(version_bytes, AesGcm::nonce_bytes); }
  [[nodiscard]] std::span<const uint8_t> ciphertext() const {
    return bytes().subspan(version_bytes + AesGcm::nonce_bytes, size_ - overhead_bytes);
  }
  [[nodiscard]] std::span<const uint8_t> tag() const { return bytes().last(AesGcm::max_tag_bytes); }

 private:
  friend class KeyWrap;
  WrappedKey() = default;

  std::array<uint8_t, max_bytes> bytes_{};
  size_t size_ = 0;
};

enum class UnwrapStatus {
  ok,
  version_mismatch,       // not the version the caller expects: a rolled-back (or forged) record
  authentication_failed,  // tampered with, or read from another slot than it was written to
};

struct UnwrapResult {
  UnwrapStatus status = UnwrapStatus::authentication_failed;
  std::optional<SessionKey> key;  // present exactly when status is ok
};

class KeyWrap {
 public:
  // `card_key`: 16 or 32 bytes that never leave the card. `records_sealed`:
  // how many records this card key has sealed before (0 for a new key).
  explicit KeyWrap(std::span<const uint8_t> card_key, uint64_t records_sealed = 0);

  [[nodiscard]] WrappedKey wrap(SessionKeyId slot, uint64_t version, const SessionKey& key);

  // Verifies before anything is decrypted into a key. Without
  // `expected_version` the record's own (authenticated) version is taken,
  // which detects tampering and relocation but not rollback.
  [[nodiscard]] UnwrapResult unwrap(SessionKeyId slot, const WrappedKey& record,
                                    std::optional<uint64_t> expected_version = std::nullopt);

  [[nodiscard]] uint64_t records_sealed() const { return records_sealed_; }

 private:
  AesGcm card_cipher_;
  uint64_t records_sealed_;
};

}  // namespace ibsec::nic::crypto
