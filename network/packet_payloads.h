// The bytes a packet carries on the wire beyond its header fields: payload
// (plaintext, or ciphertext once sealed) and GCM tag. Only runs with
// functional cryptography have them (nic.crypto.mode = functional); timing
// runs never build this, so their packets stay small pooled structs.
//
// One slot per packet-pool slot, indexed by the packet's handle: the bytes
// travel with the handle through links and switches, as the packet's header
// fields do, so anything on a link sees (and could alter) exactly what the
// wire carries. Slots grow with the pool, in steps, and are reused with it,
// so a run allocates only while its pool grows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "network/packet.h"

namespace ibsec::network {

class PacketPayloads {
 public:
  static constexpr size_t kTagBytes = 16;

  explicit PacketPayloads(uint32_t max_payload_bytes) : payload_stride_(max_payload_bytes) {}

  // The first `bytes` of the packet's payload area (bytes <= the maximum).
  std::span<uint8_t> payload(PacketHandle h, uint32_t bytes) { return slot(h).first(bytes); }
  std::span<uint8_t> tag(PacketHandle h) { return slot(h).subspan(payload_stride_, kTagBytes); }

  [[nodiscard]] uint32_t max_payload_bytes() const { return payload_stride_; }

 private:
  std::span<uint8_t> slot(PacketHandle h) {
    const size_t stride = payload_stride_ + kTagBytes;
    const size_t needed = (static_cast<size_t>(h.value()) + 1) * stride;
    if (bytes_.size() < needed) bytes_.resize(std::max(needed, 2 * bytes_.size()));
    return {bytes_.data() + static_cast<size_t>(h.value()) * stride, stride};
  }

  uint32_t payload_stride_;
  std::vector<uint8_t> bytes_;
};

}  // namespace ibsec::network
