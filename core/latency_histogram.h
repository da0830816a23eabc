// Packet latencies for percentiles without keeping every sample: a
// log-linear histogram in the manner of HdrHistogram. Values below 2^7 ticks
// are exact; above, each power of two is split into 64 buckets, so a reported
// percentile is within 1/128 (0.8 %) of the true sample. Mean, min and max
// are exact.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/time.h"

namespace ibsec {

class LatencyHistogram {
 public:
  struct Bucket {
    Tick low;   // inclusive
    Tick high;  // exclusive
    uint64_t count;
  };

  void add(Tick value) {
    const size_t index = index_of(value);
    if (index >= counts_.size()) counts_.resize(index + 1, 0);
    ++counts_[index];
    ++count_;
    sum_ += static_cast<double>(value);
    min_ = std::min(min_, value);
    max_ = std::max(max_, value);
  }

  [[nodiscard]] uint64_t count() const { return count_; }
  [[nodiscard]] double mean() const { return count_ == 0 ? 0.0 : sum_ / static_cast<double>(count_); }
  [[nodiscard]] Tick min() const { return count_ == 0 ? 0 : min_; }
  [[nodiscard]] Tick max() const { return max_; }

  // The q-quantile (0 < q <= 1): the middle of the bucket holding the
  // ceil(q * count)-th smallest sample, clamped to [min, max].
  [[nodiscard]] Tick quantile(double q) const {
    if (count_ == 0) return 0;
    const auto rank = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_))));
    uint64_t seen = 0;
    for (size_t i = 0; i < counts_.size(); ++i) {
      seen += counts_[i];
      if (seen >= rank) {
        const Bucket b = bucket(i);
        const Tick middle = b.low + (b.high - b.low - 1) / 2;
        return std::clamp(middle, min(), max_);
      }
    }
    return max_;
  }

  [[nodiscard]] std::vector<Bucket> buckets() const {
    std::vector<Bucket> out;
    for (size_t i = 0; i < counts_.size(); ++i) {
      if (counts_[i] == 0) continue;
      Bucket b = bucket(i);
      b.count = counts_[i];
      out.push_back(b);
    }
    return out;
  }

 private:
  static constexpr unsigned kSubBits = 7;
  static constexpr uint64_t kHalf = uint64_t{1} << (kSubBits - 1);

  static size_t index_of(Tick value) {
    const auto width = static_cast<unsigned>(std::bit_width(value));
    if (width <= kSubBits) return value;
    const unsigned shift = width - kSubBits;
    return shift * kHalf + (value >> shift);
  }
  static Bucket bucket(size_t index) {
    if (index < 2 * kHalf) return Bucket{index, index + 1, 0};
    const uint64_t shift = index / kHalf - 1;
    const uint64_t sub = index - shift * kHalf;
    return Bucket{sub << shift, (sub + 1) << shift, 0};
  }

  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  double sum_ = 0.0;
  Tick min_ = ~Tick{0};
  Tick max_ = 0;
};

}  // namespace ibsec
