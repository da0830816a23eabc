#include "traces/size_distribution.h"

#include <algorithm>
#include <bit>

namespace ibsec::traces {
namespace {

// Nearest rank of the q-th quartile (q = 1, 2, 3) among n values: ceil(q n / 4), at least 1.
uint64_t quartile_rank(uint64_t n, uint64_t q) { return std::max<uint64_t>(1, (q * n + 3) / 4); }

}  // namespace

size_t SizeDistribution::log2_bucket(uint64_t bytes) { return static_cast<size_t>(std::bit_width(bytes)); }

SizeDistribution::Bucket SizeDistribution::log2_bounds(size_t bucket) {
  if (bucket == 0) return {0, 0, 0};
  const uint64_t from = uint64_t{1} << (bucket - 1);
  return {from, from + (from - 1), 0};  // 2^k - 1 without overflowing at k = 64
}

void SizeDistribution::add(uint64_t bytes) {
  ++count_;
  sum_ += bytes;
  ++log2_[log2_bucket(bytes)];
  approximate_.add(bytes);
  if (overflowed_) return;
  ++exact_[bytes];
  if (exact_.size() > kMaxExactValues) {
    overflowed_ = true;
    exact_ = {};  // release the memory: the approximate histogram answers from now on
  }
}

uint64_t SizeDistribution::exact_rank(uint64_t rank) const {
  std::vector<std::pair<uint64_t, uint64_t>> sorted(exact_.begin(), exact_.end());
  std::sort(sorted.begin(), sorted.end());
  uint64_t seen = 0;
  for (const auto& [value, times] : sorted) {
    seen += times;
    if (seen >= rank) return value;
  }
  return sorted.back().first;
}

std::optional<SizeDistribution::Quartiles> SizeDistribution::quartiles() const {
  if (count_ == 0) return std::nullopt;
  Quartiles q;
  q.min = approximate_.min();  // min and max are exact there
  q.max = approximate_.max();
  uint64_t* places[] = {&q.q1, &q.median, &q.q3};
  for (uint64_t i = 1; i <= 3; ++i) {
    const uint64_t rank = quartile_rank(count_, i);
    *places[i - 1] =
        overflowed_ ? approximate_.quantile(static_cast<double>(rank) / static_cast<double>(count_)) : exact_rank(rank);
  }
  return q;
}

std::vector<SizeDistribution::Bucket> SizeDistribution::log2_histogram() const {
  std::vector<Bucket> out;
  const auto first = std::find_if(log2_.begin(), log2_.end(), [](uint64_t n) { return n != 0; });
  if (first == log2_.end()) return out;
  const auto last = std::find_if(log2_.rbegin(), log2_.rend(), [](uint64_t n) { return n != 0; });
  for (auto it = first; it != last.base(); ++it) {
    Bucket b = log2_bounds(static_cast<size_t>(it - log2_.begin()));
    b.count = *it;
    out.push_back(b);
  }
  return out;
}

nlohmann::ordered_json SizeDistribution::to_json(const char* count_name) const {
  nlohmann::ordered_json doc;
  doc[count_name] = count_;
  doc["bytes"] = sum_;
  const auto q = quartiles();
  // null for no values: 0 would claim a size nothing had.
  auto value = [&](uint64_t Quartiles::*field) {
    return q ? nlohmann::ordered_json((*q).*field) : nlohmann::ordered_json(nullptr);
  };
  doc["min"] = value(&Quartiles::min);
  doc["q1"] = value(&Quartiles::q1);
  doc["median"] = value(&Quartiles::median);
  doc["q3"] = value(&Quartiles::q3);
  doc["max"] = value(&Quartiles::max);
  doc["quartiles_exact"] = exact();
  nlohmann::ordered_json buckets = nlohmann::ordered_json::array();
  for (const Bucket& b : log2_histogram()) buckets.push_back({{"from", b.from}, {"to", b.to}, {"count", b.count}});
  doc["log2_histogram"] = buckets;
  return doc;
}

std::string bucket_label(const SizeDistribution::Bucket& bucket) {
  if (bucket.from == bucket.to) return std::to_string(bucket.from);
  return std::to_string(bucket.from) + "-" + std::to_string(bucket.to);
}

}  // namespace ibsec::traces
