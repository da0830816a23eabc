// What `trace info` reports: size, traffic and shape of a trace, per process
// and in all, gathered in one streaming pass.
#pragma once

#include <array>
#include <cstdint>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "traces/trace_event.h"
#include "traces/trace_header.h"

namespace ibsec::traces {

struct ProcessSummary {
  uint64_t events = 0;
  uint64_t messages_sent = 0;  // point-to-point, blocking or not
  uint64_t bytes_sent = 0;
  uint64_t messages_received = 0;
  uint64_t bytes_received = 0;
  uint64_t collectives = 0;
  uint64_t compute_ns = 0;
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
  // Latest END minus earliest START: the original execution time.
  [[nodiscard]] uint64_t duration_ns() const;
  [[nodiscard]] nlohmann::ordered_json to_json() const;

 private:
  TraceHeader header_;
  uint64_t events_ = 0;
  std::array<uint64_t, kTraceOpCount> by_op_{};
  std::vector<ProcessSummary> processes_;
};

}  // namespace ibsec::traces
