// Anti-replay at the receiving card, per session and direction, after
// IPsec's (RFC 4303 §3.4.3): the highest sequence number accepted so far and
// a bitmap of which of the kWidth numbers at and below it have been accepted.
// A number above the highest is fresh; one inside the window is fresh unless
// its bit is set; one below the window is too old to tell, so it is refused.
//
// check() comes before the tag is verified and accept() only after, so a
// forged packet can neither advance the window nor mark a number as seen.
#pragma once

#include <cstdint>

namespace ibsec::nic {

enum class ReplayVerdict { kFresh, kDuplicate, kTooOld };

class ReplayWindow {
 public:
  static constexpr uint64_t kWidth = 64;

  [[nodiscard]] ReplayVerdict check(uint64_t sequence) const {
    if (!any_ || sequence > highest_) return ReplayVerdict::kFresh;
    const uint64_t behind = highest_ - sequence;
    if (behind >= kWidth) return ReplayVerdict::kTooOld;
    return (seen_ >> behind) & 1U ? ReplayVerdict::kDuplicate : ReplayVerdict::kFresh;
  }

  // Marks `sequence` accepted; check() must have called it fresh.
  void accept(uint64_t sequence) {
    if (!any_ || sequence > highest_) {
      const uint64_t shift = any_ ? sequence - highest_ : kWidth;
      seen_ = shift >= kWidth ? 0 : seen_ << shift;
      seen_ |= 1U;
      highest_ = sequence;
      any_ = true;
      return;
    }
    seen_ |= uint64_t{1} << (highest_ - sequence);
  }

  [[nodiscard]] uint64_t highest() const { return highest_; }

 private:
  uint64_t highest_ = 0;
  uint64_t seen_ = 0;  // bit i: highest_ - i was accepted
  bool any_ = false;
};

}  // namespace ibsec::nic
