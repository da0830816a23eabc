// What a run's reader must not overlook: the run saturated, did not drain,
// measured too few packets for its latency percentiles, or had a prefetch
// buffer that never received a key (its numbers are then the SKC's alone). The result lists these
// under "warnings" (each a kind and a message) and `ibsec-engine run` prints
// them on standard error; docs/running.md gives the thresholds and why.
#pragma once

#include <cstdint>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ibsec::sim {

// Accepted throughput more than this fraction below the offered one means the
// network (or a card) did not keep up with the offered load.
inline constexpr double kSaturationShortfall = 0.05;
// The p99 of fewer measured packets rests on fewer than 10 packets beyond it:
// 1 000 measured packets leave 10 above the 99th percentile.
inline constexpr uint64_t kMinPacketsForPercentiles = 1000;

struct RunWarning {
  std::string kind;  // "saturated", "not_drained", "few_packets", "prefetch_idle"
  std::string message;
};

// The figures the warnings are decided on, as the result reports them.
struct RunHealth {
  double offered_throughput = 0.0;   // fraction of the link data rate
  double accepted_throughput = 0.0;  // fraction of the link data rate
  uint64_t offers_refused = 0;
  bool drained = true;
  uint64_t packets_stuck = 0;
  uint64_t packets_measured = 0;
  bool prefetch_buffer = false;  // the cards have one (nic.security = SKC-<n>+Prefetch-<m>)
  uint64_t prefetch_triggers = 0;
  uint64_t prefetches_issued = 0;
  std::string scheduler_policy = {};  // scheduler.policy, named in the prefetch_idle warning
};

[[nodiscard]] std::vector<RunWarning> run_warnings(const RunHealth& health);
[[nodiscard]] nlohmann::ordered_json warnings_json(const std::vector<RunWarning>& warnings);

}  // namespace ibsec::sim
