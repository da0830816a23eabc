// The packet rate one direction of a card can sustain, in closed form
// (docs/cic.md, "What limits a card"): the least of what its link, its GCM
// engines, its look-up stage and its share of the key memory allow. Tested
// against saturated runs (tests/cpp/model/card_design_test.cpp).
#pragma once

#include <algorithm>
#include <cstdint>

#include "nic/cic.h"

namespace ibsec::nic {

// Packets per second each part of one direction allows.
struct CardRateBounds {
  double link;        // the link serializes one packet after another
  double gcm;         // engines, each occupied for a packet's beats (or its latency, unpipelined)
  double lookup;      // the look-up stage: a hit holds it one SKC access, a miss the key memory's access time
  double key_memory;  // request slots over access time, shared by both directions' misses

  [[nodiscard]] double sustainable() const { return std::min({link, gcm, lookup, key_memory}); }
};

struct CardLoad {
  uint32_t payload_bytes = 256;   // every packet's payload
  double link_ps_per_packet = 0;  // serialization of one packet on the link, in ps
  double miss_rate = 0;           // look-ups that go to the key memory (1 without an SKC)
  double directions_sharing = 2;  // directions whose misses share the key memory at the same rate
};

CardRateBounds card_rate_bounds(const CicParams& card, const CardLoad& load);

}  // namespace ibsec::nic
