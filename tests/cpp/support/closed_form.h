// The zero-load latency of one packet in closed form (docs/cic.md), for the
// configuration defaults: key look-up and GCM at both ends on the card clock,
// serialization once, wire and switch delay per hop. Shared by the tests that
// check the model (and the replay on top of it) to the picosecond.
#pragma once

#include <cstdint>

#include "core/time.h"

namespace ibsec::testing {

// The defaults the closed form is written for (sim/config.cpp).
constexpr Tick kPeriod = 3704;          // 270 MHz, rounded to whole ps
constexpr Tick kProbe = kPeriod;        // 3 ns SKC access -> one cycle
constexpr Tick kMemory = 2'500'000;     // 2.5 us external key memory
constexpr Tick kGcm256 = 30 * kPeriod;  // 256-byte payload
constexpr Tick kPsPerByte = 1000;       // 4x SDR: 8 Gb/s of data
constexpr Tick kWire = 10'000;          // cable propagation
constexpr Tick kSwitch = 200'000;       // switch traversal
constexpr uint32_t kHeaders = 26;
constexpr uint32_t kSecurityBytes = 24;

constexpr Tick edge(Tick t) { return (t + kPeriod - 1) / kPeriod * kPeriod; }

enum class Lookup { kNone, kMemoryOnly, kSkcHit, kSkcMiss };

// Key ready time for a look-up starting on a clock edge t.
constexpr Tick key_ready(Lookup lookup, Tick t) {
  switch (lookup) {
    case Lookup::kNone:
      return t;
    case Lookup::kMemoryOnly:
      return t + kMemory;
    case Lookup::kSkcHit:
      return t + kProbe;
    case Lookup::kSkcMiss:
      return t + kProbe + kMemory;
  }
  return 0;
}

// GCM time of one packet's payload: 12 cycles for the first 16-byte block,
// one per further block and for the length block, 2 for the tag (a
// header-only packet still has one block).
constexpr Tick gcm_time(uint32_t payload) {
  const uint32_t blocks = payload == 0 ? 1 : (payload + 15) / 16;
  return (12 + blocks + 2) * kPeriod;
}
static_assert(gcm_time(256) == kGcm256);

// When a packet of `payload` bytes handed over at edge t0 leaves the sending card.
constexpr Tick injected_at(Lookup lookup, Tick t0, uint32_t payload = 256) {
  return edge(key_ready(lookup, t0)) + (lookup != Lookup::kNone ? gcm_time(payload) : 0);
}

// The fabric's part of the closed form (docs/network.md): a byte takes
// ps_numerator / ps_denominator ps and a packet's time is rounded up to a
// whole ps; every cable adds its delay and, on a link generation with
// forward error correction, the FEC's; every switch its traversal. The
// defaults are 4x SDR on InfiniScale III switches.
struct Fabric {
  uint64_t ps_numerator = kPsPerByte;
  uint64_t ps_denominator = 1;
  Tick cable = kWire;
  Tick fec = 0;
  Tick switch_latency = kSwitch;

  [[nodiscard]] constexpr Tick serialization(uint32_t bytes) const {
    return (bytes * ps_numerator + ps_denominator - 1) / ps_denominator;
  }
  [[nodiscard]] constexpr Tick network(uint32_t wire_bytes, uint32_t switches) const {
    return serialization(wire_bytes) + (switches + 1) * (cable + fec) + switches * switch_latency;
  }
};

// Latency of one packet of `payload` bytes (256 unless said) handed over at
// edge t0 and crossing `switches` switches of `fabric` (4x SDR unless said).
inline Tick closed_form(Lookup lookup, uint32_t switches, Tick t0, uint32_t payload = 256,
                        const Fabric& fabric = Fabric{}) {
  const bool secure = lookup != Lookup::kNone;
  const Tick gcm = secure ? gcm_time(payload) : 0;
  const Tick injected = injected_at(lookup, t0, payload);
  const uint32_t wire_bytes = payload + kHeaders + (secure ? kSecurityBytes : 0);
  const Tick tail = injected + fabric.network(wire_bytes, switches);
  const Tick rx_start = edge(tail);
  return edge(key_ready(lookup, rx_start)) + gcm - t0;
}

}  // namespace ibsec::testing
