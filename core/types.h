// Strong types for identifiers and time, so that a port cannot be passed where
// a node is expected and cycles of one clock are not mistaken for ticks.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <limits>

namespace ibsec {

// An id of one kind of thing. Every kind has a named "no such thing" value,
// none() (the largest Rep), for a CPU that runs no process or a timer not
// armed; the default is 0, the first id.
template <typename Tag, typename Rep>
class StrongId {
 public:
  using rep_type = Rep;
  constexpr StrongId() = default;
  constexpr explicit StrongId(Rep value) : value_(value) {}
  [[nodiscard]] static constexpr StrongId none() { return StrongId(std::numeric_limits<Rep>::max()); }
  [[nodiscard]] constexpr bool is_none() const { return *this == none(); }
  [[nodiscard]] constexpr Rep value() const { return value_; }
  constexpr auto operator<=>(const StrongId&) const = default;

 private:
  Rep value_{};
};

using NodeId = StrongId<struct NodeIdTag, uint32_t>;
using PortId = StrongId<struct PortIdTag, uint16_t>;
using VirtualLane = StrongId<struct VirtualLaneTag, uint8_t>;
using SessionKeyId = StrongId<struct SessionKeyIdTag, uint64_t>;
// Replayed processes are numbered across the cluster (job j's ranks follow
// job j-1's); CPUs across the cluster too, by the scheduler.
using ProcessId = StrongId<struct ProcessIdTag, uint32_t>;
using CpuId = StrongId<struct CpuIdTag, uint32_t>;
using JobId = StrongId<struct JobIdTag, uint32_t>;
using TimerId = StrongId<struct TimerIdTag, uint32_t>;

// A count of clock cycles of some component's clock; convert to time only
// through that component's clock period.
class Cycles {
 public:
  constexpr Cycles() = default;
  constexpr explicit Cycles(uint64_t count) : count_(count) {}
  [[nodiscard]] constexpr uint64_t count() const { return count_; }
  constexpr auto operator<=>(const Cycles&) const = default;
  constexpr Cycles operator+(Cycles other) const { return Cycles(count_ + other.count_); }

 private:
  uint64_t count_ = 0;
};

}  // namespace ibsec

template <typename Tag, typename Rep>
struct std::hash<ibsec::StrongId<Tag, Rep>> {
  size_t operator()(const ibsec::StrongId<Tag, Rep>& id) const noexcept { return std::hash<Rep>{}(id.value()); }
};
