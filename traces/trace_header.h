// The header of a trace: how many processes, where the trace comes from, and
// the communicators its collectives use (docs/trace-format.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ibsec::traces {

// Readers take every version from the oldest to the newest. Writers write
// the newest unless the trace carries no CPU times (kCpuTimeVersion), which
// they write as version 2, as before: the same bytes for the same content.
inline constexpr uint32_t kTraceFormatVersion = 3;
inline constexpr uint32_t kOldestTraceFormatVersion = 1;
inline constexpr uint32_t kCpuTimeVersion = 3;
inline constexpr uint32_t kMaxTraceProcesses = 1u << 20;

enum class TraceOrigin : uint8_t { kCaptured, kSynthetic };

// Which clock measured the CPU time of compute events (header line
// `cpu_time`, version 3): the calling thread's (CLOCK_THREAD_CPUTIME_ID: at
// most the event's wall time) or the whole process's
// (CLOCK_PROCESS_CPUTIME_ID: all its threads). kNone: no CPU times.
enum class CpuClock : uint8_t { kNone, kThread, kProcess };
inline constexpr std::string_view kCpuClockWords[] = {"none", "thread", "process"};
constexpr std::string_view name(CpuClock clock) { return kCpuClockWords[static_cast<size_t>(clock)]; }

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
  uint32_t version = kTraceFormatVersion;  // as read; a writer writes written_version()
  uint32_t processes = 0;
  TraceOrigin origin = TraceOrigin::kSynthetic;
  std::string origin_text;  // tool, version, command or program
  CpuClock cpu_clock = CpuClock::kNone;
  std::vector<std::string> notes;
  std::map<uint32_t, std::vector<uint32_t>> comms;  // declared ones; 0 (world) is implicit

  // Every communicator, world included, indexed for membership tests.
  [[nodiscard]] std::map<uint32_t, Communicator> communicators() const;
  // The version a writer gives this header: the oldest that carries its content.
  [[nodiscard]] uint32_t written_version() const { return cpu_clock == CpuClock::kNone ? 2 : kCpuTimeVersion; }
  // Hosts the capture notes as oversubscribed (`note host NAME cpus C ranks R oversubscribed`).
  [[nodiscard]] std::vector<std::string> oversubscribed_hosts() const;
};

// The canonical text of the header, up to and including "events\n".
std::string format_header(const TraceHeader& header);

}  // namespace ibsec::traces
