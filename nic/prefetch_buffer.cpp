#include "nic/prefetch_buffer.h"

#include "core/errors.h"

namespace ibsec::nic {

PrefetchBuffer::PrefetchBuffer(uint32_t entries) {
  if (entries == 0) throw ConfigError("prefetch_entries", "the prefetch buffer needs at least one entry");
  keys_.resize(entries);
}

uint32_t PrefetchBuffer::find(SessionKeyId key) const {
  for (uint32_t pos = 0; pos < count_; ++pos) {
    if (keys_[physical(pos)] == key) return pos;
  }
  return kNotFound;
}

bool PrefetchBuffer::take(SessionKeyId key) {
  const uint32_t pos = find(key);
  if (pos == kNotFound) return false;
  // Close the gap, keeping FIFO order of the rest.
  for (uint32_t p = pos; p + 1 < count_; ++p) keys_[physical(p)] = keys_[physical(p + 1)];
  --count_;
  ++stats_.hits;
  return true;
}

void PrefetchBuffer::prefetch(SessionKeyId key) {
  if (contains(key)) {
    ++stats_.duplicates;
    return;
  }
  if (count_ == capacity()) {
    head_ = physical(1);
    --count_;
    ++stats_.wasted;
  }
  keys_[physical(count_)] = key;
  ++count_;
  ++stats_.prefetches;
}

}  // namespace ibsec::nic
