// The header of a trace: how many processes, where the trace comes from, and
// the communicators its collectives use (docs/trace-format.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ibsec::traces {

inline constexpr uint32_t kTraceFormatVersion = 1;
inline constexpr uint32_t kMaxTraceProcesses = 1u << 20;

enum class TraceOrigin : uint8_t { kCaptured, kSynthetic };

// Members are world ranks in communicator-rank order; `position` maps a world
// rank back to its communicator rank (-1 when not a member).
struct Communicator {
  std::vector<uint32_t> members;
  std::vector<int32_t> position;

  [[nodiscard]] bool contains(uint32_t world_rank) const {
    return world_rank < position.size() && position[world_rank] >= 0;
  }
};

struct TraceHeader {
  uint32_t processes = 0;
  TraceOrigin origin = TraceOrigin::kSynthetic;
  std::string origin_text;          // tool, version, command or program
  std::vector<std::string> notes;
  std::map<uint32_t, std::vector<uint32_t>> comms;  // declared ones; 0 (world) is implicit

  // Every communicator, world included, indexed for membership tests.
  [[nodiscard]] std::map<uint32_t, Communicator> communicators() const;
};

// The canonical text of the header, up to and including "events\n".
std::string format_header(const TraceHeader& header);

}  // namespace ibsec::traces
