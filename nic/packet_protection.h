// What binds a packet's header to its sealed payload: the AES-GCM nonce and
// the additional authenticated data (AAD) the sending card seals under and
// the receiving card checks. docs/crypto.md, "In the card".
//
// AAD, big-endian, 41 bytes: every header field the receiving card acts on,
// so that altering any of them on a link fails the tag.
//
//   source node 4 | destination node 4 | source process 4 | destination process 4 |
//   session key id 8 | sequence number 8 | payload length 4 | message id 4 | last of message 1
//
// The nonce (nonce.h) is (session, direction, lane, sequence): the direction
// comes from which process of the pair sends, so a packet whose source and
// destination are swapped is opened under another nonce and fails. The lane
// is the one the sending card chose (Packet::service_level), which both ends
// know, not the one the packet arrives on, which switches may change.
#pragma once

#include <array>
#include <cstdint>

#include "network/packet.h"
#include "nic/crypto/nonce.h"

namespace ibsec::nic {

using PacketAad = std::array<uint8_t, 41>;

inline PacketAad packet_aad(const network::Packet& p) {
  PacketAad aad{};
  size_t at = 0;
  const auto put = [&aad, &at](uint64_t value, size_t bytes) {
    for (size_t i = 0; i < bytes; ++i) aad[at++] = static_cast<uint8_t>(value >> (8 * (bytes - 1 - i)));
  };
  put(p.source.value(), 4);
  put(p.destination.value(), 4);
  put(p.source_process, 4);
  put(p.destination_process, 4);
  put(p.key.value(), 8);
  put(p.sequence, 8);
  put(p.payload_bytes, 4);
  put(p.message, 4);
  put(p.last_of_message ? 1 : 0, 1);
  return aad;
}

inline crypto::GcmNonce packet_nonce(const network::Packet& p) {
  const auto direction = p.source_process < p.destination_process ? crypto::NonceDirection::lower_to_higher
                                                                  : crypto::NonceDirection::higher_to_lower;
  return crypto::make_nonce(p.key, direction, p.service_level, p.sequence);
}

}  // namespace ibsec::nic
