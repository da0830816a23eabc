// What a run's reader must not overlook: the run saturated, did not drain,
// measured too few packets for its latency percentiles, had a prefetch
// buffer that never received a key (its numbers are then the SKC's alone), or
// was given parameters that the kind of run it is never reads. The result lists these
// under "warnings" (each a kind and a message) and `ibsec-engine run` prints
// them on standard error; docs/running.md gives the thresholds and why.
#pragma once

#include <cstdint>

#include <set>
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
  std::string kind;  // "saturated", "not_drained", "few_packets", "prefetch_idle", "parameters_ignored"
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
  std::string scheduler_policy = {};     // scheduler.policy, named in the prefetch_idle warning
  bool replay = false;                   // a trace replay: it measures every packet, traffic.messages does not apply
  uint64_t genuine_packets_refused = 0;  // unaltered packets a receiving card's checks dropped
  uint64_t replay_window_packets = 0;    // nic.crypto.replay_window_packets, named in that warning
};

[[nodiscard]] std::vector<RunWarning> run_warnings(const RunHealth& health);

// What decides which parameters a run reads.
struct RunKind {
  bool replay = false;          // a trace replay (else synthetic traffic)
  std::string traffic_pattern;  // traffic.pattern, for synthetic traffic
};

// The keys a configuration gave (SimConfig::given) that a run of this kind
// never reads: traffic.* in a trace replay; replay.*, trace.placement and
// scheduler.* with synthetic traffic; traffic.hotspot.* and traffic.shift
// under another pattern. One parameters_ignored warning per reason, naming
// the keys.
[[nodiscard]] std::vector<RunWarning> ignored_parameter_warnings(const std::set<std::string>& given,
                                                                 const RunKind& run);
[[nodiscard]] nlohmann::ordered_json warnings_json(const std::vector<RunWarning>& warnings);

}  // namespace ibsec::sim
