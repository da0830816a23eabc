// What `trace info` reports: size, traffic and shape of a trace, per process
// and in all, gathered in one streaming pass: the distribution of
// point-to-point message sizes and of collective bytes per call, and the
// collective calls and bytes of each op.
#pragma once

#include <array>
#include <cstdint>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "traces/size_distribution.h"
#include "traces/trace_event.h"
#include "traces/trace_header.h"

namespace ibsec::traces {

struct ProcessSummary {
  uint64_t events = 0;
  uint64_t messages_sent = 0;  // application messages: point-to-point sends, blocking or not
  uint64_t self_messages = 0;  // of those, to the process itself (no network)
  uint64_t bytes_sent = 0;
  uint64_t messages_received = 0;
  uint64_t bytes_received = 0;
  uint64_t collectives = 0;  // collective calls, blocking or not
  uint64_t compute_ns = 0;
  uint64_t compute_cpu_ns = 0;  // their CPU time (version 3)
  uint64_t first_start_ns = UINT64_MAX;
  uint64_t last_end_ns = 0;
  std::unordered_set<uint32_t> peers;  // ranks it sends to or receives from
};

class TraceSummary {
 public:
  explicit TraceSummary(const TraceHeader& header);
  void add(const TraceEvent& event);

  [[nodiscard]] uint64_t events() const { return events_; }
  [[nodiscard]] const std::vector<ProcessSummary>& processes() const { return processes_; }
  // Bytes of each point-to-point message (its send or isend).
  [[nodiscard]] const SizeDistribution& message_sizes() const { return message_sizes_; }
  // Bytes of each collective call of a process, as the event gives them
  // (for an op with counts, their sum; for a barrier, 0).
  [[nodiscard]] const SizeDistribution& collective_sizes() const { return collective_sizes_; }
  // Latest END minus earliest START: the original execution time.
  [[nodiscard]] uint64_t duration_ns() const;
  [[nodiscard]] nlohmann::ordered_json to_json() const;

 private:
  TraceHeader header_;
  uint64_t events_ = 0;
  std::array<uint64_t, kTraceOpCount> by_op_{};
  std::array<uint64_t, kTraceOpCount> bytes_by_op_{};
  std::vector<ProcessSummary> processes_;
  SizeDistribution message_sizes_;
  SizeDistribution collective_sizes_;

  [[nodiscard]] nlohmann::ordered_json collectives_by_op() const;
};

}  // namespace ibsec::traces
