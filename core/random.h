// The run's random numbers. std::mt19937_64 is fully specified by the C++
// standard, and the conversions below are ours rather than the library's
// distributions (whose algorithms differ between standard libraries), so a
// seed gives the same sequence on every platform.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>

namespace ibsec {

__extension__ using uint128 = unsigned __int128;  // GCC and Clang; for Lemire's method

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}

  uint64_t next_u64() { return engine_(); }

  // Uniform in [0, 1) with 53 random bits.
  double uniform01() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

  // Uniform integer in [0, bound), bound > 0, without modulo bias (Lemire 2019).
  uint64_t below(uint64_t bound) {
    uint128 product = static_cast<uint128>(engine_()) * bound;
    auto low = static_cast<uint64_t>(product);
    if (low < bound) {
      const uint64_t threshold = -bound % bound;
      while (low < threshold) {
        product = static_cast<uint128>(engine_()) * bound;
        low = static_cast<uint64_t>(product);
      }
    }
    return static_cast<uint64_t>(product >> 64);
  }

  // Exponentially distributed with the given mean.
  double exponential(double mean) { return -mean * std::log1p(-uniform01()); }

 private:
  std::mt19937_64 engine_;
};

}  // namespace ibsec
