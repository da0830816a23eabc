// Timing of the card's AES-GCM unit (§4.1, after Zhang et al. [43]): 12
// cycles for the first 128-bit block, one per further block and 2 for the
// tag. GHASH also absorbs the length block len(A) || len(C), which we count
// as one further block; that is what makes a 256-byte payload take the
// 30 cycles the paper states (12 + 15 + 1 + 2). See docs/cic.md.
//
// Each card has one unit per direction (encrypt on send, decrypt and verify
// on receive), since a full-duplex link needs both at once. A pipelined unit
// accepts a new packet once the previous one's blocks have entered it; an
// unpipelined one only when the previous packet is done.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/statistics.h"
#include "core/time.h"

namespace ibsec::nic {

struct GcmTiming {
  uint32_t first_block_cycles = 12;
  uint32_t further_block_cycles = 1;
  uint32_t tag_cycles = 2;

  [[nodiscard]] static constexpr uint32_t blocks(uint32_t payload_bytes) {
    return std::max<uint32_t>(1, (payload_bytes + 15) / 16);
  }
  // Cycles from the first block in to the tag out.
  [[nodiscard]] constexpr Cycles latency(uint32_t payload_bytes) const {
    const uint32_t further = blocks(payload_bytes) - 1 + 1;  // + the length block
    return Cycles(first_block_cycles + further * further_block_cycles + tag_cycles);
  }
  // Cycles the unit's input is occupied by one packet (data + length blocks).
  [[nodiscard]] constexpr Cycles occupancy(uint32_t payload_bytes, bool pipelined) const {
    return pipelined ? Cycles(blocks(payload_bytes) + 1) : latency(payload_bytes);
  }
};

struct GcmUnitStats : StatGroupOf<GcmUnitStats> {
  Counter packets{*this, {"gcm_packets", "packets", "packets through a GCM unit", Merge::kSum, Shown::kInternal}};
  Counter busy{*this, {"gcm_busy", "ps", "time a unit's input was occupied", Merge::kSum, Shown::kInternal}};

  static const std::vector<DerivedStatistic>& derived() {
    static const std::vector<DerivedStatistic> list{
        {"gcm_busy_fraction", "fraction", "GCM units' input busy time / (2 units x cards x simulated time)",
         [](const StatTotals& t) { return t.busy_fraction("gcm_busy"); }},
    };
    return list;
  }
};

// One direction's unit: when it can take the next packet, and how busy it was.
class GcmUnit {
 public:
  GcmUnit(const GcmTiming& timing, const Clock& clock, bool pipelined)
      : timing_(timing), clock_(clock), pipelined_(pipelined) {}

  [[nodiscard]] Tick accepts_from() const { return accepts_from_; }
  // Starts a packet at `now` (>= accepts_from()); returns when its tag is out.
  Tick start(uint32_t payload_bytes, Tick now) {
    const Tick occupied = clock_.ticks(timing_.occupancy(payload_bytes, pipelined_));
    accepts_from_ = now + occupied;
    stats_.busy += occupied;
    ++stats_.packets;
    return now + clock_.ticks(timing_.latency(payload_bytes));
  }
  [[nodiscard]] const GcmUnitStats& stats() const { return stats_; }

 private:
  GcmTiming timing_;
  Clock clock_;
  bool pipelined_;
  Tick accepts_from_ = 0;
  GcmUnitStats stats_;
};

}  // namespace ibsec::nic
