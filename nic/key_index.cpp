#include "nic/key_index.h"

#include <algorithm>
#include <bit>

namespace ibsec::nic {

KeyIndex::KeyIndex(uint32_t max_entries) : end_(max_entries) {
  // The cap keeps every link_ index below 2^32 at the 2^30-entry maximum.
  const size_t wanted = std::bit_ceil(4 * static_cast<size_t>(max_entries));
  const size_t buckets = std::clamp<size_t>(wanted, 16, size_t{1} << 31);
  shift_ = 64 - std::countr_zero(buckets);
  keys_.assign(max_entries, 0);
  link_.assign(max_entries + 1 + buckets, end_);
  pointed_from_.assign(max_entries + 1, end_);
}

}  // namespace ibsec::nic
