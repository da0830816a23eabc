#include "nic/crypto/key_wrap.h"

#include <openssl/crypto.h>

#include <algorithm>
#include <limits>

#include "core/errors.h"

namespace ibsec::nic::crypto {
namespace {

constexpr size_t aad_bytes = 16;

void put_u64(uint64_t value, std::span<uint8_t> out) {
  for (size_t i = 0; i < 8; ++i) out[i] = static_cast<uint8_t>(value >> (8 * (7 - i)));
}

uint64_t get_u64(std::span<const uint8_t> in) {
  uint64_t value = 0;
  for (size_t i = 0; i < 8; ++i) value = (value << 8) | in[i];
  return value;
}

std::array<uint8_t, aad_bytes> wrap_aad(SessionKeyId slot, uint64_t version) {
  std::array<uint8_t, aad_bytes> aad{};
  put_u64(slot.value(), aad);
  put_u64(version, std::span(aad).subspan(8));
  return aad;
}

}  // namespace

std::optional<WrappedKey> WrappedKey::parse(std::span<const uint8_t> bytes) {
  if (bytes.size() != overhead_bytes + 16 && bytes.size() != overhead_bytes + 32) return std::nullopt;
  WrappedKey record;
  std::copy(bytes.begin(), bytes.end(), record.bytes_.begin());
  record.size_ = bytes.size();
  return record;
}

uint64_t WrappedKey::version() const { return get_u64(bytes()); }

KeyWrap::KeyWrap(std::span<const uint8_t> card_key, uint64_t records_sealed)
    : card_cipher_(card_key), records_sealed_(records_sealed) {}

WrappedKey KeyWrap::wrap(SessionKeyId slot, uint64_t version, const SessionKey& key) {
  if (records_sealed_ == std::numeric_limits<uint64_t>::max()) {
    throw CryptoError("key wrap: nonces of this card key exhausted; the card needs a new key");
  }
  WrappedKey record;
  record.size_ = WrappedKey::overhead_bytes + key.size();
  const std::span<uint8_t> out(record.bytes_.data(), record.size_);
  put_u64(version, out);
  const auto nonce = out.subspan(WrappedKey::version_bytes, AesGcm::nonce_bytes);
  std::fill_n(nonce.begin(), 4, uint8_t{0});
  put_u64(records_sealed_++, nonce.subspan(4));
  const auto aad = wrap_aad(slot, version);
  card_cipher_.seal(nonce, aad, key.bytes(), out.subspan(WrappedKey::version_bytes + AesGcm::nonce_bytes, key.size()),
                    out.last(AesGcm::max_tag_bytes));
  return record;
}

UnwrapResult KeyWrap::unwrap(SessionKeyId slot, const WrappedKey& record, std::optional<uint64_t> expected_version) {
  const uint64_t version = record.version();
  if (expected_version && *expected_version != version) return {UnwrapStatus::version_mismatch, std::nullopt};
  std::array<uint8_t, SessionKey::max_bytes> plain{};
  const std::span<uint8_t> key_bytes(plain.data(), record.ciphertext().size());
  const auto aad = wrap_aad(slot, version);
  UnwrapResult result;
  if (card_cipher_.open(record.nonce(), aad, record.ciphertext(), record.tag(), key_bytes)) {
    result = {UnwrapStatus::ok, SessionKey(key_bytes)};
  }
  OPENSSL_cleanse(plain.data(), plain.size());
  return result;
}

}  // namespace ibsec::nic::crypto
