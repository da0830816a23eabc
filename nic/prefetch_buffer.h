// The prefetch buffer (§3.3): a small fully associative store of session
// keys loaded ahead of use, looked up in parallel with the SKC. A hit takes
// the key out (it moves into the SKC); a full buffer drops its oldest entry,
// which then counts as a wasted prefetch. FIFO is the natural order here:
// entries are never re-referenced in place, so recency equals arrival.
#pragma once

#include <cstdint>
#include <vector>

#include "core/statistics.h"
#include "core/types.h"

namespace ibsec::nic {

struct PrefetchBufferStats : StatGroupOf<PrefetchBufferStats> {
  Counter prefetches{*this,
                     {"prefetches_loaded", "keys", "prefetched keys placed in a buffer (not already in the SKC)"}};
  Counter duplicates{
      *this,
      {"prefetch_duplicates", "keys", "prefetch requests for a key already buffered", Merge::kSum, Shown::kInternal}};
  Counter hits{*this, {"prefetches_used", "keys", "prefetched keys a look-up found in the buffer"}};
  Counter wasted{*this, {"prefetches_wasted", "keys", "prefetched keys dropped unused to make room"}};

  static const std::vector<DerivedStatistic>& derived() {
    static const std::vector<DerivedStatistic> list{
        // Every loaded key is used, dropped or still there.
        {"prefetches_unused_at_end", "keys", "prefetched keys still in the buffers, unused, at the end",
         [](const StatTotals& t) {
           return t.sum("prefetches_loaded") - t.sum("prefetches_used") - t.sum("prefetches_wasted");
         }},
    };
    return list;
  }
};

class PrefetchBuffer {
 public:
  // `entries` > 0; throws ConfigError otherwise.
  explicit PrefetchBuffer(uint32_t entries);

  [[nodiscard]] bool contains(SessionKeyId key) const { return find(key) != kNotFound; }
  // Removes `key` if buffered and counts a hit; returns whether it was there.
  bool take(SessionKeyId key);
  // Loads `key`, dropping the oldest entry if full.
  void prefetch(SessionKeyId key);

  [[nodiscard]] uint32_t capacity() const { return static_cast<uint32_t>(keys_.size()); }
  [[nodiscard]] uint32_t size() const { return count_; }
  [[nodiscard]] const PrefetchBufferStats& stats() const { return stats_; }
  void reset_stats() { stats_.reset(); }

 private:
  static constexpr uint32_t kNotFound = UINT32_MAX;
  [[nodiscard]] uint32_t find(SessionKeyId key) const;  // position in FIFO order, 0 = oldest
  [[nodiscard]] uint32_t physical(uint32_t position) const { return (head_ + position) % capacity(); }

  std::vector<SessionKeyId> keys_;  // ring, oldest at head_
  uint32_t head_ = 0;
  uint32_t count_ = 0;
  PrefetchBufferStats stats_;
};

}  // namespace ibsec::nic
