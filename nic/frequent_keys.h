// Per-process lists of frequently used session keys, kept by the card for the
// coscheduling-aware prefetcher (§3.3). Every SKC eviction records the
// evicted key in its owner's list, off the critical path. A list is ordered by
// recency of eviction and bounded: the keys a process lost most recently are
// the ones it was using when other processes took its CPU, and so the ones it
// will want first when it is scheduled again (docs/cic.md).
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "core/types.h"

namespace ibsec::nic {

class FrequentKeyLists {
 public:
  // `entries` > 0: keys kept per process.
  explicit FrequentKeyLists(uint32_t entries) : entries_(entries) {}

  // `key`, owned by `process`, was evicted from the SKC.
  void record(uint32_t process, SessionKeyId key);
  // Most recently evicted first.
  [[nodiscard]] std::span<const SessionKeyId> keys(uint32_t process) const;

 private:
  uint32_t entries_;
  std::unordered_map<uint32_t, std::vector<SessionKeyId>> lists_;
};

}  // namespace ibsec::nic
