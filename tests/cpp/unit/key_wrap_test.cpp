// Session keys at rest in untrusted key memory: a wrapped key comes back only
// from its own slot, unaltered, and (when the caller checks) at its version.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "nic/crypto/key_wrap.h"
#include "nic/crypto/session_key_generator.h"

namespace ibsec::nic::crypto {
namespace {

class KeyWrapTest : public testing::Test {
 protected:
  SessionKeyGenerator keys{42};
  KeyWrap card{keys.card_key(NodeId(0)).bytes()};
  SessionKey key = keys.session_key(SessionKeyId(17));
  SessionKeyId slot{17};

  // The record as the attacker sees it in external memory, changed by `edit`.
  template <typename Edit>
  WrappedKey altered(const WrappedKey& record, Edit edit) {
    std::vector<uint8_t> raw(record.bytes().begin(), record.bytes().end());
    edit(raw);
    return WrappedKey::parse(raw).value();
  }
};

TEST_F(KeyWrapTest, RoundTripsKeysOfBothLengths) {
  const WrappedKey record = card.wrap(slot, 1, key);
  EXPECT_EQ(record.bytes().size(), 52u);
  const UnwrapResult result = card.unwrap(slot, record, 1);
  ASSERT_EQ(result.status, UnwrapStatus::ok);
  EXPECT_EQ(*result.key, key);

  SessionKeyGenerator long_keys(42, 32);
  const SessionKey long_key = long_keys.session_key(slot);
  const WrappedKey long_record = card.wrap(slot, 2, long_key);
  EXPECT_EQ(long_record.bytes().size(), 68u);
  EXPECT_EQ(*card.unwrap(slot, long_record).key, long_key);
}

TEST_F(KeyWrapTest, RecordDoesNotContainTheKey) {
  const WrappedKey record = card.wrap(slot, 1, key);
  const auto raw = record.bytes();
  const auto secret = key.bytes();
  EXPECT_EQ(std::search(raw.begin(), raw.end(), secret.begin(), secret.end()), raw.end());
}

TEST_F(KeyWrapTest, DetectsTamperingWithAnyByte) {
  const WrappedKey record = card.wrap(slot, 1, key);
  for (size_t byte = 0; byte < record.bytes().size(); ++byte) {
    const WrappedKey tampered = altered(record, [&](auto& raw) { raw[byte] ^= 0x01; });
    const UnwrapResult result = card.unwrap(slot, tampered);
    EXPECT_EQ(result.status, UnwrapStatus::authentication_failed) << "byte " << byte;
    EXPECT_FALSE(result.key.has_value());
  }
}

TEST_F(KeyWrapTest, DetectsARecordMovedToAnotherSlot) {
  const WrappedKey record = card.wrap(slot, 1, key);
  const UnwrapResult moved = card.unwrap(SessionKeyId(18), record, 1);
  EXPECT_EQ(moved.status, UnwrapStatus::authentication_failed);
  EXPECT_FALSE(moved.key.has_value());
}

TEST_F(KeyWrapTest, DetectsRollbackToAnOlderVersion) {
  const WrappedKey old_record = card.wrap(slot, 1, key);
  const SessionKey new_key = keys.session_key(SessionKeyId(99));
  const WrappedKey new_record = card.wrap(slot, 2, new_key);
  EXPECT_EQ(*card.unwrap(slot, new_record, 2).key, new_key);
  // The attacker writes the old, validly sealed record back.
  const UnwrapResult rolled_back = card.unwrap(slot, old_record, 2);
  EXPECT_EQ(rolled_back.status, UnwrapStatus::version_mismatch);
  EXPECT_FALSE(rolled_back.key.has_value());
  // Rewriting the clear version field to the expected one breaks the tag.
  const WrappedKey relabelled = altered(old_record, [](auto& raw) { raw[7] = 2; });
  EXPECT_EQ(card.unwrap(slot, relabelled, 2).status, UnwrapStatus::authentication_failed);
}

TEST_F(KeyWrapTest, AnotherCardKeyCannotUnwrap) {
  const WrappedKey record = card.wrap(slot, 1, key);
  KeyWrap other_card(keys.card_key(NodeId(1)).bytes());
  EXPECT_EQ(other_card.unwrap(slot, record).status, UnwrapStatus::authentication_failed);
}

TEST_F(KeyWrapTest, EveryWriteGetsItsOwnNonce) {
  std::set<std::vector<uint8_t>> nonces;
  for (int write = 0; write < 100; ++write) {
    const WrappedKey record = card.wrap(slot, 1, key);  // even the same key, slot and version
    nonces.emplace(record.nonce().begin(), record.nonce().end());
  }
  EXPECT_EQ(nonces.size(), 100u);
  EXPECT_EQ(card.records_sealed(), 100u);
  // A card resumed with its write count carries on where it stopped.
  KeyWrap resumed(keys.card_key(NodeId(0)).bytes(), card.records_sealed());
  const WrappedKey next = resumed.wrap(slot, 1, key);
  EXPECT_FALSE(nonces.contains(std::vector<uint8_t>(next.nonce().begin(), next.nonce().end())));
}

TEST_F(KeyWrapTest, ParseRefusesRecordsOfTheWrongLength) {
  const WrappedKey record = card.wrap(slot, 1, key);
  std::vector<uint8_t> raw(record.bytes().begin(), record.bytes().end());
  raw.pop_back();
  EXPECT_FALSE(WrappedKey::parse(raw).has_value());
  EXPECT_FALSE(WrappedKey::parse({}).has_value());
}

}  // namespace
}  // namespace ibsec::nic::crypto
