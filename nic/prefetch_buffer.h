// The prefetch buffer (§3.3): a small fully associative store of session
// keys loaded ahead of use, looked up in parallel with the SKC. A hit takes
// the key out (it moves into the SKC); a full buffer drops its oldest entry,
// which then counts as a wasted prefetch. FIFO is the natural order here:
// entries are never re-referenced in place, so recency equals arrival.
#pragma once

#include <cstdint>
#include <vector>

#include "core/types.h"

namespace ibsec::nic {

struct PrefetchBufferStats {
  uint64_t prefetches = 0;  // keys loaded into the buffer
  uint64_t duplicates = 0;  // prefetch requests for a key already buffered
  uint64_t hits = 0;        // look-ups served by the buffer (prefetches used)
  uint64_t wasted = 0;      // keys dropped, unused, to make room
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
  void reset_stats() { stats_ = {}; }

 private:
  static constexpr uint32_t kNotFound = UINT32_MAX;
  [[nodiscard]] uint32_t find(SessionKeyId key) const;  // position in FIFO order, 0 = oldest
  [[nodiscard]] uint32_t physical(uint32_t position) const {
    return (head_ + position) % capacity();
  }

  std::vector<SessionKeyId> keys_;  // ring, oldest at head_
  uint32_t head_ = 0;
  uint32_t count_ = 0;
  PrefetchBufferStats stats_;
};

}  // namespace ibsec::nic
