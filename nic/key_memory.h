// The card's external key memory (§4.1: 2.5 µs per session-key access). It
// has one port and serves requests first come, first served, one at a time:
// a miss that finds the port busy waits for every miss queued before it.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/time.h"

namespace ibsec::nic {

struct KeyMemoryStats {
  uint64_t accesses = 0;
  uint64_t queued = 0;     // accesses that found the port busy
  Tick total_wait = 0;     // time spent queued, summed
  Tick max_wait = 0;
  Tick busy = 0;
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
    stats_.max_wait = std::max(stats_.max_wait, wait);
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
