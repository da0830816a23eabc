// The session key cache (SKC): a set-associative or fully associative cache
// of session keys with a replacement policy chosen by name. Plain C++ with no
// SystemC, so the cycle-level card and the synthetic ON/OFF cache simulator
// share it.
//
// Capacity is counted in entries of `entry_bytes` each (default 16 B, one
// 128-bit key). The key identifier is the tag and lives in the tag array,
// which the nominal capacity does not count, just as a "32 KB" CPU cache
// counts data bytes only. So a 2 KB SKC has 128 entries, the paper's figure
// for Fig. 3. See docs/key-cache.md.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/types.h"
#include "nic/key_index.h"
#include "nic/replacement_policy.h"

namespace ibsec::nic {

struct KeyCacheConfig {
  uint32_t entries = 0;        // total number of entries
  uint32_t ways = 0;           // associativity; 0 means fully associative
  std::string policy = "lru";  // a name known to PolicyRegistry
  uint64_t seed = 1;           // for randomised policies
};

// Entries in a cache of `capacity_bytes` with entries of `entry_bytes`.
// Throws ConfigError if either is zero or the division is not exact.
uint32_t entries_for_capacity(uint64_t capacity_bytes, uint32_t entry_bytes);

struct KeyCacheStats {
  uint64_t lookups = 0;  // demand look-ups (access())
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t fills = 0;      // keys placed, by a miss or by fill()
  uint64_t evictions = 0;  // valid keys displaced to make room
  uint64_t erases = 0;     // keys removed by erase()
  [[nodiscard]] double hit_rate() const {
    return lookups == 0 ? 0.0 : static_cast<double>(hits) / static_cast<double>(lookups);
  }
};

class KeyCache {
 public:
  struct AccessResult {
    bool hit;
    std::optional<SessionKeyId> evicted;  // set when a miss displaced a key
  };

  // Validates the geometry and policy name (ConfigError naming the field).
  // `future` is the whole access sequence, required by offline policies.
  explicit KeyCache(const KeyCacheConfig& config, std::span<const SessionKeyId> future = {});

  // A demand look-up. On a miss the key is fetched and filled.
  AccessResult access(SessionKeyId key) {
    if (access_if_present(key)) return {true, std::nullopt};
    ++stats_.lookups;
    ++stats_.misses;
    return {false, as_evicted(fill_returning_victim(key))};
  }

  // The hit half of access(): if the key is cached, counts a hit look-up and
  // returns true; otherwise changes nothing. For callers that must try
  // another store (the prefetch buffer) before a miss is declared.
  bool access_if_present(SessionKeyId key) {
    const uint32_t slot = index_.find(key.value());
    if (slot == KeyIndex::kNotFound) return false;
    ++stats_.lookups;
    ++stats_.hits;
    policy_->on_hit(slot, key);
    return true;
  }

  // Places an absent key (e.g. promoted from the prefetch buffer), evicting
  // one from its set if the set is full. Returns the evicted key.
  std::optional<SessionKeyId> fill(SessionKeyId key) { return as_evicted(fill_returning_victim(key)); }

  // Removes a key if present; returns whether it was.
  bool erase(SessionKeyId key);

  [[nodiscard]] bool contains(SessionKeyId key) const { return index_.find(key.value()) != KeyIndex::kNotFound; }
  [[nodiscard]] uint32_t set_of(SessionKeyId key) const {
    const uint64_t v = key.value();
    return static_cast<uint32_t>(sets_is_pow2_ ? (v & (sets_ - 1)) : (v % sets_));
  }
  [[nodiscard]] uint32_t entries() const { return sets_ * ways_; }
  [[nodiscard]] uint32_t sets() const { return sets_; }
  [[nodiscard]] uint32_t ways() const { return ways_; }
  [[nodiscard]] uint32_t size() const { return occupied_; }
  [[nodiscard]] const KeyCacheStats& stats() const { return stats_; }
  void reset_stats() { stats_ = {}; }

 private:
  static constexpr uint64_t kNoKey = UINT64_MAX;
  struct Geometry {
    uint32_t sets;
    uint32_t ways;
  };
  static Geometry checked_geometry(const KeyCacheConfig& config);
  KeyCache(Geometry geometry, const KeyCacheConfig& config, std::span<const SessionKeyId> future);
  // The evicted key, or kNoKey when the set had room. A plain integer comes
  // back in a register; a std::optional returned from out of line went
  // through the stack with a store-forwarding stall on every miss.
  uint64_t fill_returning_victim(SessionKeyId key);
  static std::optional<SessionKeyId> as_evicted(uint64_t key) {
    if (key == kNoKey) return std::nullopt;
    return SessionKeyId(key);
  }

  uint32_t sets_;
  uint32_t ways_;
  bool sets_is_pow2_;
  KeyIndex index_;
  std::vector<Slot> free_slots_;  // set s keeps its free slots at [s*ways, s*ways+free_count_[s])
  std::vector<uint32_t> free_count_;
  uint32_t occupied_ = 0;
  std::unique_ptr<ReplacementPolicy> policy_;
  KeyCacheStats stats_;
};

}  // namespace ibsec::nic
