#include "nic/key_lookup.h"

namespace ibsec::nic {

KeyLookup::KeyLookup(const KeyCacheConfig& skc, uint32_t prefetch_entries) : skc_(skc) {
  if (prefetch_entries > 0) buffer_.emplace(prefetch_entries);
}

KeyLookup::Result KeyLookup::lookup(SessionKeyId key) {
  ++stats_.lookups;
  if (skc_.access_if_present(key)) {
    ++stats_.skc_hits;
    return {LookupOutcome::kSkcHit, std::nullopt};
  }
  if (buffer_ && buffer_->take(key)) {
    ++stats_.buffer_hits;
    return {LookupOutcome::kBufferHit, skc_.fill(key)};
  }
  ++stats_.misses;
  return {LookupOutcome::kMiss, skc_.access(key).evicted};
}

void KeyLookup::prefetch(SessionKeyId key) {
  if (buffer_ && !skc_.contains(key)) buffer_->prefetch(key);
}

}  // namespace ibsec::nic
