// The card's external key memory (§4.1: 2.5 µs per session-key access). It
// serves requests first come, first served, with up to `requests_in_flight`
// accesses in progress at once, each taking the access time (a pipelined
// memory or several banks; 1 is the paper's single port, where a miss that
// finds the port busy waits for every miss queued before it). docs/cic.md.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/statistics.h"
#include "core/time.h"

namespace ibsec::nic {

struct KeyMemoryStats : StatGroupOf<KeyMemoryStats> {
  Counter accesses{*this, {"key_memory_accesses", "accesses", "external key memory accesses"}};
  Counter queued{*this,
                 {"queued", "accesses", "accesses that found every request slot busy", Merge::kSum, Shown::kInternal}};
  Counter total_wait{*this, {"total_wait", "ps", "time accesses spent queued, summed", Merge::kSum, Shown::kInternal}};
  Counter max_wait{*this, {"max_wait", "ps", "longest time an access spent queued", Merge::kMax, Shown::kInternal}};
  Counter busy{*this, {"busy", "ps", "time request slots were busy, summed", Merge::kSum, Shown::kInternal}};
  Gauge slots{*this, {"slots", "requests", "accesses the memory can have in progress", Merge::kSum, Shown::kInternal}};

  static const std::vector<DerivedStatistic>& derived() {
    static const std::vector<DerivedStatistic> list{
        {"key_memory_queued_fraction", "fraction", "accesses that found every memory request slot busy",
         [](const StatTotals& t) { return ratio(t.sum("queued"), t.sum("key_memory_accesses")); }},
        {"key_memory_wait_mean_ns", "ns", "queueing before an access starts, mean over accesses",
         [](const StatTotals& t) { return ratio(ns_from_ticks(t.sum("total_wait")), t.sum("key_memory_accesses")); }},
        {"key_memory_wait_max_ns", "ns", "longest queueing before an access",
         [](const StatTotals& t) { return ns_from_ticks(t.max("max_wait")); }},
        {"key_memory_utilization", "fraction",
         "memory busy time / (request slots x cards x simulated time); with one slot, the port's busy share",
         [](const StatTotals& t) { return t.busy_fraction("busy", "slots"); }},
    };
    return list;
  }
};

class KeyMemory {
 public:
  KeyMemory(Tick access_time, uint32_t requests_in_flight)
      : access_time_(access_time), slot_free_at_(requests_in_flight, 0) {
    stats_.slots.read_from<&KeyMemory::slots>(*this);
  }

  // Requests it serves at once.
  [[nodiscard]] size_t slots() const { return slot_free_at_.size(); }

  // A request issued at `now` (never earlier than the previous request's
  // `now`: requests are served in order); returns when its key is on the card.
  Tick access(Tick now) {
    Tick& slot = *std::ranges::min_element(slot_free_at_);
    const Tick start = std::max(now, slot);
    const Tick wait = start - now;
    slot = start + access_time_;
    ++stats_.accesses;
    if (wait > 0) ++stats_.queued;
    stats_.total_wait += wait;
    stats_.max_wait.raise_to(wait);
    stats_.busy += access_time_;
    return slot;
  }
  // When a request slot is next free (now or earlier: one is idle).
  [[nodiscard]] Tick free_at() const { return *std::ranges::min_element(slot_free_at_); }
  [[nodiscard]] const KeyMemoryStats& stats() const { return stats_; }

 private:
  Tick access_time_;
  std::vector<Tick> slot_free_at_;
  KeyMemoryStats stats_;
};

}  // namespace ibsec::nic
