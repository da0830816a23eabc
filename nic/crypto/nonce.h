// Packet nonces: the 96-bit GCM nonce of each packet, built so that no two
// packets sealed under one session key ever share one. GCM with a repeated
// nonce leaks the XOR of the two plaintexts and lets an attacker forge tags,
// so this is the one property the packet format must guarantee.
//
// Layout, big-endian, 12 bytes:
//
//   bytes 0-3   session id (32 bit)
//   byte  4     bit 7: direction (0: the lower process of the pair sends,
//               1: the higher one); bits 0-6: lane
//   bytes 5-11  sequence number (56 bit)
//
// - Direction: one key serves both directions of a pair (host_interface.h)
//   and each end counts its own packets, so without this bit both ends'
//   first packets would share a nonce.
// - Lane: each virtual lane keeps its own sequence counter (packets on
//   different lanes may overtake each other), so lanes get disjoint nonces.
// - Session id: with a key per session it is redundant, but it keeps nonces
//   distinct should several sessions ever share a key (coarse-grained keys).
// - Sequence number: per (session, direction, lane), starts at 0 and only
//   goes up (NonceSequence), so each nonce is used once. 2^56 packets is over
//   two years of one stream at 10^9 packets/s. It never wraps: counting past
//   2^56 - 1 would either repeat sequence 0's nonce or spill into the lane
//   byte, so make_nonce() and NonceSequence throw CryptoError instead; the
//   session then needs a new key.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/errors.h"
#include "core/types.h"

namespace ibsec::nic::crypto {

using GcmNonce = std::array<uint8_t, 12>;

enum class NonceDirection : uint8_t { lower_to_higher = 0, higher_to_lower = 1 };

inline constexpr uint64_t max_session_id = 0xFFFF'FFFFull;
inline constexpr uint8_t max_nonce_lane = 0x7F;
inline constexpr uint64_t max_nonce_sequence = (1ull << 56) - 1;

inline GcmNonce make_nonce(SessionKeyId session, NonceDirection direction, VirtualLane lane, uint64_t sequence) {
  if (session.value() > max_session_id) {
    throw std::invalid_argument("nonce: session id " + std::to_string(session.value()) + " does not fit 32 bits");
  }
  if (lane.value() > max_nonce_lane)
    throw std::invalid_argument("nonce: lane " + std::to_string(lane.value()) + " > 127");
  if (sequence > max_nonce_sequence) {
    throw CryptoError("nonce: sequence numbers of session " + std::to_string(session.value()) +
                      " exhausted (2^56); the session needs a new key");
  }
  GcmNonce nonce{};
  for (int i = 0; i < 4; ++i) nonce[i] = static_cast<uint8_t>(session.value() >> (8 * (3 - i)));
  nonce[4] = static_cast<uint8_t>((static_cast<uint8_t>(direction) << 7) | lane.value());
  for (int i = 0; i < 7; ++i) nonce[5 + i] = static_cast<uint8_t>(sequence >> (8 * (6 - i)));
  return nonce;
}

// The sender's counter for one (session, direction, lane): hands out each
// nonce once, in increasing sequence order, and refuses to wrap.
class NonceSequence {
 public:
  NonceSequence(SessionKeyId session, NonceDirection direction, VirtualLane lane, uint64_t next_sequence = 0)
      : session_(session), direction_(direction), lane_(lane), next_(next_sequence) {
    make_nonce(session_, direction_, lane_, 0);  // validates the session id and lane now
  }

  GcmNonce next() {
    const GcmNonce nonce = make_nonce(session_, direction_, lane_, next_);  // throws once exhausted
    ++next_;
    return nonce;
  }
  [[nodiscard]] uint64_t next_sequence() const { return next_; }

 private:
  SessionKeyId session_;
  NonceDirection direction_;
  VirtualLane lane_;
  uint64_t next_;
};

}  // namespace ibsec::nic::crypto
