// Anti-replay at the receiving card, per session and direction, after
// IPsec's (RFC 4303 §3.4.3): the highest sequence number accepted so far and
// which of the `width` numbers at and below it have been accepted.
// A number above the highest is fresh; one inside the window is fresh unless
// it was accepted; one below the window is too old to tell, so it is refused.
//
// The bits are kept as RFC 6479 keeps them, in a ring of 64-bit blocks with
// one block to spare, so that sliding the window clears whole blocks and a
// wide window (for a fabric that reorders deeply) costs no shifting.
//
// check() comes before the tag is verified and accept() only after, so a
// forged packet can neither advance the window nor mark a number as seen.
#pragma once

#include <cstdint>
#include <vector>

namespace ibsec::nic {

enum class ReplayVerdict { kFresh, kDuplicate, kTooOld };

class ReplayWindow {
 public:
  static constexpr uint64_t kDefaultWidth = 64;  // RFC 4303's default

  // The numbers of a window lie in at most ceil(width / 64) + 1 blocks.
  explicit ReplayWindow(uint64_t width = kDefaultWidth)
      : width_(width), blocks_((width + kBlockBits - 1) / kBlockBits + 1, 0) {}

  [[nodiscard]] ReplayVerdict check(uint64_t sequence) const {
    if (!any_ || sequence > highest_) return ReplayVerdict::kFresh;
    if (highest_ - sequence >= width_) return ReplayVerdict::kTooOld;
    return (block_of(sequence) >> (sequence % kBlockBits)) & 1U ? ReplayVerdict::kDuplicate : ReplayVerdict::kFresh;
  }

  // Marks `sequence` accepted; check() must have called it fresh.
  void accept(uint64_t sequence) {
    if (!any_ || sequence > highest_) slide_to(sequence);
    block_of(sequence) |= uint64_t{1} << (sequence % kBlockBits);
  }

  [[nodiscard]] uint64_t highest() const { return highest_; }

 private:
  static constexpr uint64_t kBlockBits = 64;

  [[nodiscard]] uint64_t block_index(uint64_t sequence) const { return sequence / kBlockBits % blocks_.size(); }
  [[nodiscard]] uint64_t block_of(uint64_t sequence) const { return blocks_[block_index(sequence)]; }
  uint64_t& block_of(uint64_t sequence) { return blocks_[block_index(sequence)]; }

  // The blocks the new highest number passes into start empty.
  void slide_to(uint64_t sequence) {
    const uint64_t new_blocks = any_ ? sequence / kBlockBits - highest_ / kBlockBits : blocks_.size();
    if (new_blocks >= blocks_.size()) {
      blocks_.assign(blocks_.size(), 0);
    } else {
      for (uint64_t b = 1; b <= new_blocks; ++b) block_of(highest_ + b * kBlockBits) = 0;
    }
    highest_ = sequence;
    any_ = true;
  }

  uint64_t width_;
  std::vector<uint64_t> blocks_;  // bit s % 64 of block s / 64 (mod the ring): s was accepted
  uint64_t highest_ = 0;
  bool any_ = false;
};

}  // namespace ibsec::nic
