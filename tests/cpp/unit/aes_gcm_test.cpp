// AesGcm beyond the published vectors: round trips of packet-like sizes, and
// every kind of tampering (ciphertext, tag, AAD, nonce, key) rejected with
// the output wiped.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "core/random.h"
#include "nic/crypto/aes_gcm.h"

namespace ibsec::nic::crypto {
namespace {

std::vector<uint8_t> random_bytes(size_t n, uint64_t seed) {
  Rng rng(seed);
  std::vector<uint8_t> bytes(n);
  for (auto& b : bytes) b = static_cast<uint8_t>(rng.next_u64());
  return bytes;
}

// One sealed packet, to be opened as is or after tampering.
struct Sealed {
  std::vector<uint8_t> key = random_bytes(16, 1);
  std::vector<uint8_t> nonce = random_bytes(AesGcm::nonce_bytes, 2);
  std::vector<uint8_t> aad = random_bytes(32, 3);
  std::vector<uint8_t> plaintext;
  std::vector<uint8_t> ciphertext;
  std::vector<uint8_t> tag = std::vector<uint8_t>(AesGcm::max_tag_bytes);

  explicit Sealed(size_t bytes) : plaintext(random_bytes(bytes, 4)), ciphertext(bytes) {
    AesGcm(key).seal(nonce, aad, plaintext, ciphertext, tag);
  }
  // Opens with a fresh object; the output must be all zeros when it fails.
  [[nodiscard]] bool opens() const {
    std::vector<uint8_t> out(ciphertext.size(), 0xAA);
    const bool ok = AesGcm(key).open(nonce, aad, ciphertext, tag, out);
    if (ok) {
      EXPECT_EQ(out, plaintext);
    } else {
      EXPECT_EQ(out, std::vector<uint8_t>(out.size(), 0));
    }
    return ok;
  }
};

TEST(AesGcm, RoundTripsPacketSizes) {
  for (size_t bytes : {0, 1, 15, 16, 17, 256, 4096}) {
    SCOPED_TRACE(bytes);
    Sealed packet(bytes);
    if (bytes > 0) {
      EXPECT_NE(packet.ciphertext, packet.plaintext);
    }
    EXPECT_TRUE(packet.opens());
  }
}

TEST(AesGcm, RoundTripsWithAes256AndShortTags) {
  const auto key = random_bytes(32, 9);
  const auto nonce = random_bytes(12, 10);
  const auto plaintext = random_bytes(100, 11);
  for (size_t tag_bytes : {12, 13, 16}) {
    AesGcm gcm(key, tag_bytes);
    std::vector<uint8_t> ciphertext(plaintext.size()), tag(tag_bytes), out(plaintext.size());
    gcm.seal(nonce, {}, plaintext, ciphertext, tag);
    ASSERT_TRUE(gcm.open(nonce, {}, ciphertext, tag, out));
    EXPECT_EQ(out, plaintext);
  }
  EXPECT_THROW(AesGcm(key, 11), std::invalid_argument);
  EXPECT_THROW(AesGcm(key, 17), std::invalid_argument);
}

TEST(AesGcm, SealsAndOpensInPlace) {
  const Sealed reference(256);
  AesGcm gcm(reference.key);
  std::vector<uint8_t> buffer = reference.plaintext;
  std::vector<uint8_t> tag(16);
  gcm.seal(reference.nonce, reference.aad, buffer, buffer, tag);
  EXPECT_EQ(buffer, reference.ciphertext);
  EXPECT_EQ(tag, reference.tag);
  ASSERT_TRUE(gcm.open(reference.nonce, reference.aad, buffer, tag, buffer));
  EXPECT_EQ(buffer, reference.plaintext);
}

TEST(AesGcm, RejectsEveryFlippedCiphertextBit) {
  for (size_t bit = 0; bit < 17 * 8; ++bit) {
    Sealed packet(17);
    packet.ciphertext[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    EXPECT_FALSE(packet.opens()) << "bit " << bit;
  }
}

TEST(AesGcm, RejectsATamperedTag) {
  for (size_t byte = 0; byte < AesGcm::max_tag_bytes; ++byte) {
    Sealed packet(64);
    packet.tag[byte] ^= 0x01;
    EXPECT_FALSE(packet.opens()) << "tag byte " << byte;
  }
  Sealed truncated(64);
  truncated.tag.pop_back();
  EXPECT_FALSE(truncated.opens());
}

TEST(AesGcm, RejectsTamperedAad) {
  Sealed flipped(64);
  flipped.aad[5] ^= 0x80;
  EXPECT_FALSE(flipped.opens());
  Sealed dropped(64);
  dropped.aad.clear();
  EXPECT_FALSE(dropped.opens());
  Sealed extended(64);
  extended.aad.push_back(0);
  EXPECT_FALSE(extended.opens());
}

TEST(AesGcm, RejectsAnotherNonceOrKey) {
  Sealed nonce(64);
  nonce.nonce[11] ^= 0x01;
  EXPECT_FALSE(nonce.opens());
  Sealed longer_nonce(64);
  longer_nonce.nonce.push_back(0);
  EXPECT_FALSE(longer_nonce.opens());
  Sealed key(64);
  key.key[0] ^= 0x01;
  EXPECT_FALSE(key.opens());
}

// An object keeps working after a failed open, and a nonce of another length
// in between does not disturb the 96-bit ones.
TEST(AesGcm, RecoversAfterFailureAndNonceLengthChanges) {
  const Sealed packet(40);
  AesGcm gcm(packet.key);
  std::vector<uint8_t> out(40);
  auto bad_tag = packet.tag;
  bad_tag[0] ^= 1;
  EXPECT_FALSE(gcm.open(packet.nonce, packet.aad, packet.ciphertext, bad_tag, out));
  std::vector<uint8_t> scratch(40), scratch_tag(16);
  gcm.seal(random_bytes(60, 7), packet.aad, packet.plaintext, scratch, scratch_tag);
  ASSERT_TRUE(gcm.open(packet.nonce, packet.aad, packet.ciphertext, packet.tag, out));
  EXPECT_EQ(out, packet.plaintext);
}

// A key of the same length is loaded into the existing context, which keeps
// its last nonce length; the next 96-bit nonce must still be taken as such.
TEST(AesGcm, SameLengthRekeyAfterAnOddNonceLength) {
  const Sealed packet(48);
  AesGcm gcm(random_bytes(16, 50));
  std::vector<uint8_t> scratch(48), scratch_tag(16);
  gcm.seal(random_bytes(8, 51), {}, packet.plaintext, scratch, scratch_tag);
  gcm.rekey(packet.key);
  std::vector<uint8_t> ciphertext(48), tag(16);
  gcm.seal(packet.nonce, packet.aad, packet.plaintext, ciphertext, tag);
  EXPECT_EQ(ciphertext, packet.ciphertext);
  EXPECT_EQ(tag, packet.tag);
}

TEST(AesGcm, RekeyToTheSameKeyKeepsWorkingAndAnotherKeyChangesOutput) {
  const Sealed packet(32);
  AesGcm gcm(packet.key);
  gcm.rekey(packet.key);
  std::vector<uint8_t> ciphertext(32), tag(16);
  gcm.seal(packet.nonce, packet.aad, packet.plaintext, ciphertext, tag);
  EXPECT_EQ(ciphertext, packet.ciphertext);
  gcm.rekey(random_bytes(32, 99));
  EXPECT_EQ(gcm.key_bytes(), 32u);
  gcm.seal(packet.nonce, packet.aad, packet.plaintext, ciphertext, tag);
  EXPECT_NE(ciphertext, packet.ciphertext);
  gcm.rekey(packet.key);
  gcm.seal(packet.nonce, packet.aad, packet.plaintext, ciphertext, tag);
  EXPECT_EQ(ciphertext, packet.ciphertext);
  EXPECT_EQ(tag, packet.tag);
}

TEST(AesGcm, RefusesMisSizedArguments) {
  const auto key = random_bytes(16, 1);
  EXPECT_THROW(AesGcm(random_bytes(24, 1)), std::invalid_argument);  // AES-192 is not offered
  EXPECT_THROW(AesGcm(std::vector<uint8_t>{}), std::invalid_argument);
  AesGcm gcm(key);
  std::vector<uint8_t> in(10), out(9), tag(16), short_tag(15);
  const auto nonce = random_bytes(12, 2);
  EXPECT_THROW(gcm.seal(nonce, {}, in, out, tag), std::invalid_argument);
  EXPECT_THROW(gcm.seal(nonce, {}, in, in, short_tag), std::invalid_argument);
  EXPECT_THROW(gcm.seal({}, {}, in, in, tag), std::invalid_argument);
  EXPECT_THROW((void)gcm.open(nonce, {}, in, tag, out), std::invalid_argument);
}

}  // namespace
}  // namespace ibsec::nic::crypto
