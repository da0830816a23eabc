// Payload bytes for runs with functional cryptography. Traces and synthetic
// traffic say how many bytes a message has, never what they are, so each
// packet gets a pattern that is a function of its session, sending process
// and sequence number alone: the receiving card can recompute what was sent
// and check what it delivers, with no copy kept on the side.
//
// The pattern is SplitMix64 (Steele et al. 2014) from a seed mixing the three
// numbers, 8 bytes per step in memory order: cheap next to AES-GCM, and every
// packet's bytes differ from every other's.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>

#include "core/types.h"

namespace ibsec::nic {

class SyntheticPayload {
 public:
  SyntheticPayload(SessionKeyId session, uint32_t source_process, uint64_t sequence)
      : state_(session.value() * 0x9E3779B97F4A7C15ULL ^ (uint64_t{source_process} << 32) ^ sequence ^
               0xD1B54A32D192ED03ULL) {}

  static void fill(SessionKeyId session, uint32_t source_process, uint64_t sequence, std::span<uint8_t> out) {
    SyntheticPayload pattern(session, source_process, sequence);
    size_t at = 0;
    for (; at + 8 <= out.size(); at += 8) {
      const uint64_t word = pattern.next();
      std::memcpy(out.data() + at, &word, 8);  // a fixed size: one store, no call
    }
    if (at < out.size()) {
      const uint64_t word = pattern.next();
      std::memcpy(out.data() + at, &word, out.size() - at);
    }
  }

  [[nodiscard]] static bool matches(SessionKeyId session, uint32_t source_process, uint64_t sequence,
                                    std::span<const uint8_t> bytes) {
    SyntheticPayload pattern(session, source_process, sequence);
    uint64_t differ = 0;
    size_t at = 0;
    for (; at + 8 <= bytes.size(); at += 8) {
      uint64_t word = 0;
      std::memcpy(&word, bytes.data() + at, 8);
      differ |= word ^ pattern.next();
    }
    if (at < bytes.size()) {
      uint64_t word = 0;
      uint64_t expected = pattern.next();
      std::memcpy(&word, bytes.data() + at, bytes.size() - at);
      std::memset(reinterpret_cast<uint8_t*>(&expected) + (bytes.size() - at), 0, 8 - (bytes.size() - at));
      differ |= word ^ expected;
    }
    return differ == 0;
  }

 private:
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  uint64_t state_;
};

}  // namespace ibsec::nic
