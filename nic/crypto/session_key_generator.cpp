#include "nic/crypto/session_key_generator.h"

#include <openssl/crypto.h>

#include <array>
#include <stdexcept>
#include <string>

#include "core/random.h"

namespace ibsec::nic::crypto {
namespace {

constexpr size_t block_bytes = 16;
constexpr uint8_t session_key_purpose = 1;
constexpr uint8_t card_key_purpose = 2;

// Explicit byte order so that the master key is the same on every platform.
std::array<uint8_t, 32> master_key(uint64_t seed) {
  Rng rng(seed);
  std::array<uint8_t, 32> key{};
  for (size_t word = 0; word < 4; ++word) {
    const uint64_t bits = rng.next_u64();
    for (size_t i = 0; i < 8; ++i) key[8 * word + i] = static_cast<uint8_t>(bits >> (8 * i));
  }
  return key;
}

void put_counter_block(uint64_t id, uint8_t purpose, uint64_t index, uint8_t* block) {
  for (size_t i = 0; i < 8; ++i) block[i] = static_cast<uint8_t>(id >> (8 * (7 - i)));
  block[8] = purpose;
  for (size_t i = 0; i < 7; ++i) block[9 + i] = static_cast<uint8_t>(index >> (8 * (6 - i)));
}

}  // namespace

SessionKeyGenerator::SessionKeyGenerator(uint64_t seed, size_t key_bytes)
    : prf_(evp::new_cipher_context()), key_bytes_(key_bytes) {
  if (key_bytes != 16 && key_bytes != 32) {
    throw std::invalid_argument("session keys are 16 or 32 bytes, not " + std::to_string(key_bytes));
  }
  auto master = master_key(seed);
  evp::check(EVP_EncryptInit_ex(prf_.get(), evp::aes_256_ecb(), nullptr, master.data(), nullptr),
             "EVP_EncryptInit_ex(prf)");
  OPENSSL_cleanse(master.data(), master.size());
  evp::check(EVP_CIPHER_CTX_set_padding(prf_.get(), 0), "EVP_CIPHER_CTX_set_padding");
}

SessionKey SessionKeyGenerator::session_key(SessionKeyId session) {
  return derive(session.value(), session_key_purpose);
}

SessionKey SessionKeyGenerator::card_key(NodeId card) { return derive(card.value(), card_key_purpose); }

SessionKey SessionKeyGenerator::derive(uint64_t id, uint8_t purpose) {
  std::array<uint8_t, 2 * block_bytes> counter{};
  std::array<uint8_t, 2 * block_bytes> stream{};
  const size_t blocks = key_bytes_ / block_bytes;
  for (size_t b = 0; b < blocks; ++b) put_counter_block(id, purpose, b, counter.data() + b * block_bytes);
  int written = 0;
  // ECB without padding: each counter block is enciphered on its own.
  evp::check(EVP_EncryptUpdate(prf_.get(), stream.data(), &written, counter.data(), evp::length(key_bytes_)),
             "EVP_EncryptUpdate(prf)");
  SessionKey key(std::span<const uint8_t>(stream.data(), key_bytes_));
  OPENSSL_cleanse(stream.data(), stream.size());
  return key;
}

}  // namespace ibsec::nic::crypto
