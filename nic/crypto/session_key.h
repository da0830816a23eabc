// A session key's bytes: 16 (AES-128) or 32 (AES-256). A value type that
// wipes its bytes when it goes, so keys do not linger in freed memory.
#pragma once

#include <openssl/crypto.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

namespace ibsec::nic::crypto {

class SessionKey {
 public:
  static constexpr size_t max_bytes = 32;

  explicit SessionKey(std::span<const uint8_t> bytes) : size_(bytes.size()) {
    if (size_ != 16 && size_ != 32) {
      throw std::invalid_argument("a session key is 16 or 32 bytes, not " + std::to_string(size_));
    }
    std::copy(bytes.begin(), bytes.end(), bytes_.begin());
  }
  ~SessionKey() { OPENSSL_cleanse(bytes_.data(), bytes_.size()); }
  SessionKey(const SessionKey&) = default;
  SessionKey& operator=(const SessionKey&) = default;
  SessionKey(SessionKey&&) noexcept = default;
  SessionKey& operator=(SessionKey&&) noexcept = default;

  [[nodiscard]] std::span<const uint8_t> bytes() const { return {bytes_.data(), size_}; }
  [[nodiscard]] size_t size() const { return size_; }

  friend bool operator==(const SessionKey& a, const SessionKey& b) {
    return a.size_ == b.size_ && CRYPTO_memcmp(a.bytes_.data(), b.bytes_.data(), a.size_) == 0;
  }

 private:
  std::array<uint8_t, max_bytes> bytes_{};
  size_t size_;
};

}  // namespace ibsec::nic::crypto
