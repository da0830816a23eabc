// Which clock a replay takes a trace's compute events from (docs/replay.md,
// "Compute time"): their wall time (END - START) or the CPU time the capture
// measured beside it (trace format version 3). On a host with more processes
// than CPUs the wall time of a compute event includes the time slices of the
// other processes, which a replay with one CPU per process must not count as
// computation; the CPU time does not.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "traces/trace_header.h"

namespace ibsec::hosts {

// replay.compute: wall, cpu, or auto (cpu where the trace has CPU times and
// its capture notes an oversubscribed host, wall otherwise).
enum class ComputeClock : uint8_t { kWall, kCpu, kAuto };
inline constexpr std::string_view kComputeClockWords[] = {"wall", "cpu", "auto"};
constexpr std::string_view name(ComputeClock clock) { return kComputeClockWords[static_cast<size_t>(clock)]; }

// What one trace's compute events are replayed with, and why.
struct ComputeChoice {
  bool from_cpu = false;
  std::string why;
  // Non-empty when the choice leaves other processes' time in the compute
  // events (wall time of an oversubscribed capture): the run's warning.
  std::string warning;
};

// `replay.compute=cpu` on a trace without CPU times is a ConfigError naming the trace.
ComputeChoice choose_compute_clock(ComputeClock asked, const traces::TraceHeader& header, const std::string& trace);

}  // namespace ibsec::hosts
