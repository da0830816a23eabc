#include "nic/key_cache.h"

#include <bit>
#include <stdexcept>
#include <string>

#include "core/errors.h"

namespace ibsec::nic {

KeyCache::Geometry KeyCache::checked_geometry(const KeyCacheConfig& config) {
  if (config.entries == 0) throw ConfigError("entries", "the key cache needs at least one entry");
  if (config.ways == 0) return {1, config.entries};
  if (!std::has_single_bit(config.ways)) {
    throw ConfigError(
        "ways", std::to_string(config.ways) + " is not a power of two (use 1, 2, 4, ... or 0 for fully associative)");
  }
  if (config.ways > config.entries) {
    throw ConfigError("ways", std::to_string(config.ways) + " ways is more than the " + std::to_string(config.entries) +
                                  " entries of the cache");
  }
  if (config.entries % config.ways != 0) {
    throw ConfigError("entries", std::to_string(config.entries) + " entries cannot be split into sets of " +
                                     std::to_string(config.ways) + " ways");
  }
  return {config.entries / config.ways, config.ways};
}

uint32_t entries_for_capacity(uint64_t capacity_bytes, uint32_t entry_bytes) {
  if (entry_bytes == 0) throw ConfigError("entry_bytes", "entry size must be positive");
  if (capacity_bytes == 0) throw ConfigError("size", "cache size must be positive");
  if (capacity_bytes % entry_bytes != 0) {
    throw ConfigError("size", std::to_string(capacity_bytes) + " bytes is not a whole number of " +
                                  std::to_string(entry_bytes) + "-byte entries");
  }
  const uint64_t entries = capacity_bytes / entry_bytes;
  if (entries > (1ULL << 30)) throw ConfigError("size", "more than 2^30 entries is not supported");
  return static_cast<uint32_t>(entries);
}

KeyCache::KeyCache(const KeyCacheConfig& config, std::span<const SessionKeyId> future)
    : KeyCache(checked_geometry(config), config, future) {}

KeyCache::KeyCache(Geometry geometry, const KeyCacheConfig& config, std::span<const SessionKeyId> future)
    : sets_(geometry.sets),
      ways_(geometry.ways),
      sets_is_pow2_(std::has_single_bit(sets_)),
      index_(sets_ * ways_),
      free_slots_(static_cast<size_t>(sets_) * ways_),
      free_count_(sets_, ways_) {
  const auto& entry = PolicyRegistry::get(config.policy);
  if (entry.needs_future && future.empty()) {
    throw ConfigError("policy", "'" + config.policy + "' is offline and needs the whole access sequence");
  }
  policy_ = entry.make(PolicyContext{sets_, ways_, config.seed, future});
  // Each set hands out its lowest free slot first.
  for (uint32_t s = 0; s < sets_; ++s) {
    for (uint32_t i = 0; i < ways_; ++i) free_slots_[s * ways_ + i] = s * ways_ + (ways_ - 1 - i);
  }
}

uint64_t KeyCache::fill_returning_victim(SessionKeyId key) {
  if (key.value() == kNoKey) throw std::invalid_argument("session key id 2^64-1 is reserved");
  const uint32_t set = set_of(key);
  uint64_t evicted = kNoKey;
  Slot slot;
  if (free_count_[set] > 0) {
    slot = free_slots_[set * ways_ + --free_count_[set]];
    ++occupied_;
  } else {
    slot = policy_->victim(set);
    evicted = index_.key_at(slot);
    index_.erase_slot(slot);
    ++stats_.evictions;
  }
  index_.insert(key.value(), slot);
  policy_->on_fill(slot, key);
  ++stats_.fills;
  return evicted;
}

bool KeyCache::erase(SessionKeyId key) {
  const uint32_t slot = index_.find(key.value());
  if (slot == KeyIndex::kNotFound) return false;
  const uint32_t set = slot / ways_;
  index_.erase_slot(slot);
  policy_->on_erase(slot);
  free_slots_[set * ways_ + free_count_[set]++] = slot;
  --occupied_;
  ++stats_.erases;
  return true;
}

}  // namespace ibsec::nic
