// The card's external key memory (§4.1: 2.5 µs per session-key access). It
// has one port and serves requests first come, first served, one at a time:
// a miss that finds the port busy waits for every miss queued before it.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/statistics.h"
#include "core/time.h"

namespace ibsec::nic {

struct KeyMemoryStats : StatGroupOf<KeyMemoryStats> {
  Counter accesses{*this, {"key_memory_accesses", "accesses", "external key memory accesses"}};
  Counter queued{*this, {"queued", "accesses", "accesses that found the port busy", Merge::kSum, Shown::kInternal}};
  Counter total_wait{*this, {"total_wait", "ps", "time accesses spent queued, summed", Merge::kSum, Shown::kInternal}};
  Counter max_wait{*this, {"max_wait", "ps", "longest time an access spent queued", Merge::kMax, Shown::kInternal}};
  Counter busy{*this, {"busy", "ps", "time the port was busy", Merge::kSum, Shown::kInternal}};

  static const std::vector<DerivedStatistic>& derived() {
    static const std::vector<DerivedStatistic> list{
        {"key_memory_queued_fraction", "fraction", "accesses that found the memory port busy",
         [](const StatTotals& t) { return ratio(t.sum("queued"), t.sum("key_memory_accesses")); }},
        {"key_memory_wait_mean_ns", "ns", "queueing before an access starts, mean over accesses",
         [](const StatTotals& t) { return ratio(ns_from_ticks(t.sum("total_wait")), t.sum("key_memory_accesses")); }},
        {"key_memory_wait_max_ns", "ns", "longest queueing before an access",
         [](const StatTotals& t) { return ns_from_ticks(t.max("max_wait")); }},
        {"key_memory_utilization", "fraction", "memory port busy time / (cards x simulated time)",
         [](const StatTotals& t) { return t.busy_fraction("busy"); }},
    };
    return list;
  }
};

class KeyMemory {
 public:
  explicit KeyMemory(Tick access_time) : access_time_(access_time) {}

  // A request issued at `now`; returns when its key is on the card.
  Tick access(Tick now) {
    const Tick start = std::max(now, free_at_);
    const Tick wait = start - now;
    free_at_ = start + access_time_;
    ++stats_.accesses;
    if (wait > 0) ++stats_.queued;
    stats_.total_wait += wait;
    stats_.max_wait.raise_to(wait);
    stats_.busy += access_time_;
    return free_at_;
  }
  // When the port is next free (now or earlier: idle).
  [[nodiscard]] Tick free_at() const { return free_at_; }
  [[nodiscard]] const KeyMemoryStats& stats() const { return stats_; }

 private:
  Tick access_time_;
  Tick free_at_ = 0;
  KeyMemoryStats stats_;
};

}  // namespace ibsec::nic
