// Simulated time. Tick is the global time unit (one picosecond, the SystemC
// time resolution the engine sets); Cycles count edges of one component's
// clock and become time only through that component's Clock.
#pragma once

#include <cstdint>

#include "core/types.h"

namespace ibsec {

using Tick = uint64_t;  // picoseconds

inline constexpr Tick kTicksPerNs = 1000;
inline constexpr Tick kTicksPerUs = 1000 * kTicksPerNs;

// Converts a duration in nanoseconds to ticks, rounding to the nearest tick.
constexpr Tick ticks_from_ns(double ns) { return static_cast<Tick>(ns * static_cast<double>(kTicksPerNs) + 0.5); }
constexpr double ns_from_ticks(Tick t) { return static_cast<double>(t) / static_cast<double>(kTicksPerNs); }

// A component clock. Work starts on a rising edge (cycle-quantised model), so
// a request arriving between edges waits for the next one.
class Clock {
 public:
  constexpr Clock() = default;
  constexpr explicit Clock(Tick period) : period_(period), mhz_(1.0e6 / static_cast<double>(period)) {}
  // The clock whose period is the given frequency rounded to whole ticks; it
  // remembers the frequency as given, for echoing a configuration.
  static constexpr Clock from_mhz(double mhz) {
    Clock clock(static_cast<Tick>(1.0e6 / mhz + 0.5));
    clock.mhz_ = mhz;
    return clock;
  }

  [[nodiscard]] constexpr Tick period() const { return period_; }
  [[nodiscard]] constexpr double mhz() const { return mhz_; }
  [[nodiscard]] constexpr Tick ticks(Cycles c) const { return c.count() * period_; }
  // The first edge at or after t.
  [[nodiscard]] constexpr Tick next_edge(Tick t) const { return (t + period_ - 1) / period_ * period_; }
  // Whole cycles needed to cover a duration (a 3 ns SRAM access takes one
  // 3.7 ns cycle).
  [[nodiscard]] constexpr Cycles cycles_covering(Tick duration) const {
    return Cycles((duration + period_ - 1) / period_);
  }

 private:
  Tick period_ = 1;
  double mhz_ = 1.0e6;
};

}  // namespace ibsec
