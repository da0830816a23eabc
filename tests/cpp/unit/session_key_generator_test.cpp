#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <vector>

#include "nic/crypto/session_key_generator.h"
#include "nic/host_interface.h"

namespace ibsec::nic::crypto {
namespace {

std::vector<uint8_t> bytes_of(const SessionKey& key) { return {key.bytes().begin(), key.bytes().end()}; }

TEST(SessionKeyGenerator, SameSeedGivesTheSameKeysInAnyOrder) {
  SessionKeyGenerator forwards(7), backwards(7);
  std::vector<SessionKey> first;
  for (uint64_t id = 0; id < 50; ++id) first.push_back(forwards.session_key(SessionKeyId(id)));
  for (uint64_t id = 50; id-- > 0;) EXPECT_EQ(backwards.session_key(SessionKeyId(id)), first[id]) << id;
  EXPECT_EQ(forwards.session_key(SessionKeyId(3)), first[3]);  // asking again changes nothing
}

TEST(SessionKeyGenerator, DifferentSeedsGiveDifferentKeys) {
  SessionKeyGenerator a(7), b(8);
  for (uint64_t id = 0; id < 50; ++id) EXPECT_FALSE(a.session_key(SessionKeyId(id)) == b.session_key(SessionKeyId(id)));
}

TEST(SessionKeyGenerator, EveryPairOfProcessesGetsItsOwnKey) {
  constexpr uint32_t processes = 64;
  SessionKeyGenerator generator(1);
  std::set<std::vector<uint8_t>> keys;
  for (uint32_t a = 0; a < processes; ++a) {
    for (uint32_t b = a + 1; b < processes; ++b) {
      const SessionKey key = generator.session_key(session_key(a, b, processes));
      EXPECT_EQ(key.size(), 16u);
      keys.insert(bytes_of(key));
    }
  }
  EXPECT_EQ(keys.size(), size_t{processes * (processes - 1) / 2});
}

TEST(SessionKeyGenerator, CardKeysAreSeparateFromSessionKeys) {
  SessionKeyGenerator generator(1);
  EXPECT_FALSE(generator.card_key(NodeId(5)) == generator.session_key(SessionKeyId(5)));
  EXPECT_FALSE(generator.card_key(NodeId(5)) == generator.card_key(NodeId(6)));
}

TEST(SessionKeyGenerator, LongKeysExtendTheShortOnes) {
  // Block 0 of the derivation is the same, so a 32-byte key starts with the
  // 16-byte key of the same id; block 1 must differ from block 0.
  SessionKeyGenerator short_keys(3), long_keys(3, 32);
  const auto short_key = bytes_of(short_keys.session_key(SessionKeyId(9)));
  const auto long_key = bytes_of(long_keys.session_key(SessionKeyId(9)));
  ASSERT_EQ(long_key.size(), 32u);
  EXPECT_TRUE(std::equal(short_key.begin(), short_key.end(), long_key.begin()));
  EXPECT_FALSE(std::equal(long_key.begin(), long_key.begin() + 16, long_key.begin() + 16));
  EXPECT_THROW(SessionKeyGenerator(3, 24), std::invalid_argument);
}

// Pinned output: a change to the derivation (or to Rng) would silently change
// every run's keys, so it must show up here. Computed independently of this
// code: master key from std::mt19937_64(2024), little-endian words, then
// `openssl enc -aes-256-ecb -nopad` of the block 00..00 01 00..00 (id 0,
// purpose 1, block 0).
TEST(SessionKeyGenerator, DerivationIsPinned) {
  SessionKeyGenerator generator(2024);
  const auto key = bytes_of(generator.session_key(SessionKeyId(0)));
  EXPECT_EQ(key, std::vector<uint8_t>(
                     {0x3d, 0x40, 0x18, 0xab, 0x9e, 0xf1, 0x0b, 0xa8, 0x80, 0x45, 0xf3, 0x77, 0x8c, 0xae, 0x95, 0x08}));
}

}  // namespace
}  // namespace ibsec::nic::crypto
