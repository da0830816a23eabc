#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "core/errors.h"
#include "nic/crypto/nonce.h"

namespace ibsec::nic::crypto {
namespace {

TEST(Nonce, LaysOutSessionDirectionLaneAndSequenceBigEndian) {
  const GcmNonce nonce =
      make_nonce(SessionKeyId(0x01020304), NonceDirection::higher_to_lower, VirtualLane(5), 0x0A0B0C0D0E0F10);
  const GcmNonce expected{0x01, 0x02, 0x03, 0x04, 0x85, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x10};
  EXPECT_EQ(nonce, expected);
}

// Every (session, direction, lane, sequence) gets its own nonce.
TEST(Nonce, UniqueAcrossSessionsDirectionsLanesAndSequences) {
  std::set<GcmNonce> seen;
  size_t made = 0;
  for (uint64_t session : {0ull, 1ull, 255ull, 256ull, 65'537ull, 0xFFFF'FFFFull}) {
    for (auto direction : {NonceDirection::lower_to_higher, NonceDirection::higher_to_lower}) {
      for (uint8_t lane : {0, 1, 15, 127}) {
        NonceSequence sequence(SessionKeyId(session), direction, VirtualLane(lane));
        for (int packet = 0; packet < 1000; ++packet) {
          seen.insert(sequence.next());
          ++made;
        }
      }
    }
  }
  EXPECT_EQ(seen.size(), made);
}

TEST(Nonce, SequenceNumbersOnlyGoUp) {
  NonceSequence sequence(SessionKeyId(7), NonceDirection::lower_to_higher, VirtualLane(0));
  GcmNonce previous = sequence.next();
  for (int i = 0; i < 70'000; ++i) {  // across several byte carries
    const GcmNonce nonce = sequence.next();
    EXPECT_LT(previous, nonce);
    previous = nonce;
  }
  EXPECT_EQ(sequence.next_sequence(), 70'001u);
}

TEST(Nonce, RefusesToWrapTheSequenceNumber) {
  NonceSequence sequence(SessionKeyId(7), NonceDirection::lower_to_higher, VirtualLane(3), max_nonce_sequence);
  const GcmNonce last = sequence.next();
  EXPECT_EQ(last[4], 3);  // the lane byte is untouched by the largest sequence number
  EXPECT_THROW(sequence.next(), CryptoError);
  EXPECT_THROW(sequence.next(), CryptoError);  // and stays refused
  EXPECT_THROW(make_nonce(SessionKeyId(7), NonceDirection::lower_to_higher, VirtualLane(3), max_nonce_sequence + 1),
               CryptoError);
}

TEST(Nonce, RefusesFieldsThatDoNotFit) {
  EXPECT_THROW(make_nonce(SessionKeyId(1ull << 32), NonceDirection::lower_to_higher, VirtualLane(0), 0),
               std::invalid_argument);
  EXPECT_THROW(NonceSequence(SessionKeyId(1), NonceDirection::lower_to_higher, VirtualLane(128)),
               std::invalid_argument);
}

}  // namespace
}  // namespace ibsec::nic::crypto
