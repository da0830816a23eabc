// AES-GCM authenticated encryption of one packet at a time, over OpenSSL's
// EVP interface: the functional counterpart of the GCM unit that
// nic/gcm_unit.h times. See docs/crypto.md.
//
// One object holds one OpenSSL context for its key. The key schedule and the
// GHASH key are computed once per key (rekey() skips an unchanged key); each
// packet then only loads its nonce, so sealing a packet costs the cipher work
// and no set-up, and no call allocates: the caller owns every buffer.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "nic/crypto/evp.h"

namespace ibsec::nic::crypto {

class AesGcm {
 public:
  // 96 bits: the nonce length GCM uses directly as its first counter block.
  // Other lengths (the spec allows any) are hashed into one and also work.
  static constexpr size_t nonce_bytes = 12;
  static constexpr size_t max_tag_bytes = 16;
  // Shorter tags than 96 bits are not offered: SP 800-38D restricts them to
  // uses with few forgery attempts, which a network card cannot promise.
  static constexpr size_t min_tag_bytes = 12;

  // `key` is 16 bytes (AES-128) or 32 (AES-256).
  explicit AesGcm(std::span<const uint8_t> key, size_t tag_bytes = max_tag_bytes);
  ~AesGcm();
  AesGcm(AesGcm&&) noexcept = default;  // a moved-from object may only be destroyed
  AesGcm& operator=(AesGcm&&) noexcept = default;
  AesGcm(const AesGcm&) = delete;
  AesGcm& operator=(const AesGcm&) = delete;

  // Switches to `key`; a no-op when it is the key already loaded.
  void rekey(std::span<const uint8_t> key);

  // Encrypts `plaintext` into `ciphertext` (same size; may be the same
  // buffer) and writes the tag over `aad` and the ciphertext into `tag`
  // (tag_bytes() long). The caller must never seal twice with one nonce.
  void seal(std::span<const uint8_t> nonce, std::span<const uint8_t> aad, std::span<const uint8_t> plaintext,
            std::span<uint8_t> ciphertext, std::span<uint8_t> tag);

  // Verifies `tag` and decrypts `ciphertext` into `plaintext` (same size; may
  // be the same buffer). False if anything was altered: then `plaintext` is
  // all zeros, so unverified data never leaves.
  [[nodiscard]] bool open(std::span<const uint8_t> nonce, std::span<const uint8_t> aad,
                          std::span<const uint8_t> ciphertext, std::span<const uint8_t> tag,
                          std::span<uint8_t> plaintext);

  [[nodiscard]] size_t key_bytes() const { return key_bytes_; }
  [[nodiscard]] size_t tag_bytes() const { return tag_bytes_; }

 private:
  void load_nonce(std::span<const uint8_t> nonce, bool encrypt);
  void absorb_aad(std::span<const uint8_t> aad);

  evp::CipherContext context_;
  std::array<uint8_t, 32> key_{};  // to recognise an unchanged key; wiped on destruction
  size_t key_bytes_ = 0;
  size_t tag_bytes_;
  size_t nonce_length_ = nonce_bytes;  // the context's current IV length
};

}  // namespace ibsec::nic::crypto
