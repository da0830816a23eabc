// A distribution of byte counts gathered one value at a time, for `trace
// info`: how many, their sum, quartiles and a log2 histogram. A real trace
// has few distinct message sizes, so the quartiles are exact (nearest rank)
// while at most kMaxExactValues distinct values have been seen; past that,
// so that no trace can make `info` hold more than a fixed amount of memory,
// they come from a log-linear histogram (exact below 128, else within
// 1/128) and say so.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/latency_histogram.h"

namespace ibsec::traces {

class SizeDistribution {
 public:
  static constexpr size_t kMaxExactValues = size_t{1} << 16;
  // Bucket 0 holds the value 0; bucket k >= 1 the values 2^(k-1) .. 2^k - 1.
  static constexpr size_t kLog2Buckets = 65;

  struct Quartiles {
    uint64_t min = 0;
    uint64_t q1 = 0;
    uint64_t median = 0;
    uint64_t q3 = 0;
    uint64_t max = 0;
  };
  struct Bucket {
    uint64_t from = 0;  // inclusive
    uint64_t to = 0;    // inclusive
    uint64_t count = 0;
  };

  void add(uint64_t bytes);

  [[nodiscard]] uint64_t count() const { return count_; }
  [[nodiscard]] uint64_t sum() const { return sum_; }
  // False once more than kMaxExactValues distinct values were seen.
  [[nodiscard]] bool exact() const { return !overflowed_; }
  // The values of nearest rank ceil(n/4), ceil(n/2), ceil(3n/4), with min and max; none for no values.
  [[nodiscard]] std::optional<Quartiles> quartiles() const;
  // The log2 buckets from the first to the last non-empty one, empty ones between included.
  [[nodiscard]] std::vector<Bucket> log2_histogram() const;
  [[nodiscard]] nlohmann::ordered_json to_json(const char* count_name) const;

  static size_t log2_bucket(uint64_t bytes);
  static Bucket log2_bounds(size_t bucket);

 private:
  [[nodiscard]] uint64_t exact_rank(uint64_t rank) const;

  uint64_t count_ = 0;
  uint64_t sum_ = 0;
  std::array<uint64_t, kLog2Buckets> log2_{};
  std::unordered_map<uint64_t, uint64_t> exact_;  // value -> how many times; dropped on overflow
  bool overflowed_ = false;
  LatencyHistogram approximate_;  // any unit: it only bins integers
};

// "0", "1", "2-3", "4-7", ...: a log2 bucket as `trace info` prints it.
std::string bucket_label(const SizeDistribution::Bucket& bucket);

}  // namespace ibsec::traces
