// The header of a trace: how many processes, where the trace comes from, and
// the communicators its collectives use (docs/trace-format.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace ibsec::traces {

// Written traces are of the current version; readers also take the oldest.
inline constexpr uint32_t kTraceFormatVersion = 2;
inline constexpr uint32_t kOldestTraceFormatVersion = 1;
inline constexpr uint32_t kMaxTraceProcesses = 1u << 20;

enum class TraceOrigin : uint8_t { kCaptured, kSynthetic };

// Members are world ranks in communicator-rank order. Membership is a hash
// map, so that many communicators of a large job cost memory by their
// members, not by the size of the job.
struct Communicator {
  std::vector<uint32_t> members;
  std::unordered_map<uint32_t, uint32_t> rank_of;  // world rank -> communicator rank

  [[nodiscard]] bool contains(uint32_t world_rank) const { return rank_of.contains(world_rank); }
  [[nodiscard]] uint32_t position(uint32_t world_rank) const { return rank_of.at(world_rank); }
};

struct TraceHeader {
  uint32_t version = kTraceFormatVersion;  // as read; a writer writes the current one
  uint32_t processes = 0;
  TraceOrigin origin = TraceOrigin::kSynthetic;
  std::string origin_text;  // tool, version, command or program
  std::vector<std::string> notes;
  std::map<uint32_t, std::vector<uint32_t>> comms;  // declared ones; 0 (world) is implicit

  // Every communicator, world included, indexed for membership tests.
  [[nodiscard]] std::map<uint32_t, Communicator> communicators() const;
};

// The canonical text of the header, up to and including "events\n".
std::string format_header(const TraceHeader& header);

}  // namespace ibsec::traces
