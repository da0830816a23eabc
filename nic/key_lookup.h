// Session-key look-up as the card does it: the SKC and the prefetch buffer
// are searched in parallel (§3.3). A buffer hit moves the key into the SKC,
// which evicts one; a miss in both fetches the key from external memory into
// the SKC. Whoever keeps per-process frequent-key lists learns of every SKC
// eviction through the result.
#pragma once

#include <optional>

#include "nic/key_cache.h"
#include "nic/prefetch_buffer.h"

namespace ibsec::nic {

enum class LookupOutcome { kSkcHit, kBufferHit, kMiss };

struct KeyLookupStats {
  uint64_t lookups = 0;
  uint64_t skc_hits = 0;
  uint64_t buffer_hits = 0;
  uint64_t misses = 0;
  // DESIGN.md: the SKC hit rate counts hits in the SKC and in the buffer.
  [[nodiscard]] double hit_rate() const {
    return lookups == 0 ? 0.0 : static_cast<double>(skc_hits + buffer_hits) / static_cast<double>(lookups);
  }
};

class KeyLookup {
 public:
  struct Result {
    LookupOutcome outcome;
    std::optional<SessionKeyId> evicted;  // key the SKC displaced, if any
  };

  // prefetch_entries == 0 means no prefetch buffer.
  KeyLookup(const KeyCacheConfig& skc, uint32_t prefetch_entries);

  Result lookup(SessionKeyId key);
  // Loads a key into the buffer unless the SKC already holds it.
  void prefetch(SessionKeyId key);

  [[nodiscard]] const KeyCache& skc() const { return skc_; }
  [[nodiscard]] const PrefetchBuffer* buffer() const { return buffer_ ? &*buffer_ : nullptr; }
  [[nodiscard]] const KeyLookupStats& stats() const { return stats_; }

 private:
  KeyCache skc_;
  std::optional<PrefetchBuffer> buffer_;
  KeyLookupStats stats_;
};

}  // namespace ibsec::nic
