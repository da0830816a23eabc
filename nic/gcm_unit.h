// Timing of the card's AES-GCM units (§4.1, after Zhang et al. [43]): 12
// cycles for the first 128-bit block, one per further block and 2 for the
// tag. GHASH also absorbs the length block len(A) || len(C), which we count
// as one further block; that is what makes a 256-byte payload take the
// 30 cycles the paper states (12 + 15 + 1 + 2). See docs/cic.md.
//
// A wider datapath takes `bytes_per_cycle` bytes a cycle (16 = one AES block,
// the paper's unit), so a payload of p bytes is ceil(p / bytes_per_cycle)
// beats: the rule becomes first + (beats - 1) + 1 + tag cycles.
//
// Each direction of a card (encrypt on send, decrypt and verify on receive)
// has `engines` identical engines, since a full-duplex link needs both
// directions at once and one engine may not keep up with a fast link. A
// packet goes to the engine that is free first; packets still leave the
// direction in the order they entered it (cic.cpp). A pipelined engine
// accepts a new packet once the previous one's beats have entered it; an
// unpipelined one only when the previous packet is done.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/statistics.h"
#include "core/time.h"

namespace ibsec::nic {

struct GcmTiming {
  uint32_t first_block_cycles = 12;
  uint32_t further_block_cycles = 1;
  uint32_t tag_cycles = 2;
  uint32_t bytes_per_cycle = 16;

  // Datapath beats for a payload (a header-only packet still has one).
  [[nodiscard]] constexpr uint32_t beats(uint32_t payload_bytes) const {
    return std::max<uint32_t>(1, (payload_bytes + bytes_per_cycle - 1) / bytes_per_cycle);
  }
  // Cycles from the first beat in to the tag out.
  [[nodiscard]] constexpr Cycles latency(uint32_t payload_bytes) const {
    const uint32_t further = beats(payload_bytes) - 1 + 1;  // + the length block
    return Cycles(first_block_cycles + further * further_block_cycles + tag_cycles);
  }
  // Cycles an engine's input is occupied by one packet (data + length block).
  [[nodiscard]] constexpr Cycles occupancy(uint32_t payload_bytes, bool pipelined) const {
    return pipelined ? Cycles(beats(payload_bytes) + 1) : latency(payload_bytes);
  }
};

struct GcmUnitStats : StatGroupOf<GcmUnitStats> {
  Counter packets{*this, {"gcm_packets", "packets", "packets through a GCM unit", Merge::kSum, Shown::kInternal}};
  Counter busy{*this, {"gcm_busy", "ps", "time engines' inputs were occupied, summed", Merge::kSum, Shown::kInternal}};
  Gauge engines{*this, {"gcm_engines", "engines", "GCM engines of the direction", Merge::kSum, Shown::kInternal}};

  static const std::vector<DerivedStatistic>& derived() {
    static const std::vector<DerivedStatistic> list{
        {"gcm_busy_fraction", "fraction",
         "GCM engines' input busy time / (engines x 2 directions x cards x simulated time)",
         [](const StatTotals& t) { return t.busy_fraction("gcm_busy", "gcm_engines"); }},
    };
    return list;
  }
};

// One direction's engines: when one can take the next packet, and how busy they were.
class GcmUnit {
 public:
  GcmUnit(const GcmTiming& timing, const Clock& clock, bool pipelined, uint32_t engines)
      : timing_(timing), clock_(clock), pipelined_(pipelined), accepts_from_(engines, 0) {
    stats_.engines.read_from<&GcmUnit::engines>(*this);
  }

  [[nodiscard]] size_t engines() const { return accepts_from_.size(); }

  [[nodiscard]] const Clock& clock() const { return clock_; }
  // When the first engine can take a packet.
  [[nodiscard]] Tick accepts_from() const { return *std::ranges::min_element(accepts_from_); }
  // Starts a packet at `now` (>= accepts_from()) on the engine free first;
  // returns when its tag is out.
  Tick start(uint32_t payload_bytes, Tick now) {
    Tick& engine = *std::ranges::min_element(accepts_from_);
    const Tick occupied = clock_.ticks(timing_.occupancy(payload_bytes, pipelined_));
    engine = now + occupied;
    stats_.busy += occupied;
    ++stats_.packets;
    return now + clock_.ticks(timing_.latency(payload_bytes));
  }
  [[nodiscard]] const GcmUnitStats& stats() const { return stats_; }

 private:
  GcmTiming timing_;
  Clock clock_;
  bool pipelined_;
  std::vector<Tick> accepts_from_;  // per engine
  GcmUnitStats stats_;
};

}  // namespace ibsec::nic
