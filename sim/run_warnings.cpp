#include "sim/run_warnings.h"

#include <cstdio>
#include <string_view>
#include <utility>

namespace ibsec::sim {
namespace {

std::string format(const char* pattern, auto... values) {
  char text[256];
  std::snprintf(text, sizeof text, pattern, values...);
  return text;
}

}  // namespace

std::vector<RunWarning> run_warnings(const RunHealth& h) {
  std::vector<RunWarning> warnings;
  const double shortfall = h.offered_throughput > 0.0 ? 1.0 - h.accepted_throughput / h.offered_throughput : 0.0;
  if (shortfall > kSaturationShortfall || h.offers_refused > 0) {
    warnings.push_back(
        {"saturated", format("saturated: accepted throughput %.3g of %.3g offered (%.0f %% short), %llu offers refused "
                             "(a full send queue); latency and hit rate describe an overloaded network",
                             h.accepted_throughput, h.offered_throughput, 100.0 * shortfall,
                             static_cast<unsigned long long>(h.offers_refused))});
  }
  if (!h.drained) {
    warnings.push_back({"not_drained", format("not drained: %llu packets were still inside at the end "
                                              "(deadlock or overload; see sim.drain_timeout_us)",
                                              static_cast<unsigned long long>(h.packets_stuck))});
  }
  if (h.packets_measured < kMinPacketsForPercentiles) {
    // A replay measures every packet its traces make, whatever traffic.messages says.
    const char* remedy = h.replay ? "replay a longer trace: more iterations (ibsec trace gen --scale) or a larger class"
                                  : "raise traffic.messages";
    warnings.push_back(
        {"few_packets", format("few packets: %llu measured, fewer than %llu, so fewer than 10 lie beyond the p99 and "
                               "the percentiles are rough (%s)",
                               static_cast<unsigned long long>(h.packets_measured),
                               static_cast<unsigned long long>(kMinPacketsForPercentiles), remedy)});
  }
  if (h.genuine_packets_refused > 0) {
    // Functional crypto only: a window narrower than the fabric's reordering refuses genuine packets, and
    // their messages never complete, so every figure of the run is short of them.
    warnings.push_back(
        {"genuine_packets_refused",
         format("%llu genuine packets refused by the receiving cards (reordered further behind than the replay "
                "window's %llu packets): their messages were never delivered; widen "
                "nic.crypto.replay_window_packets beyond the run's reordering_extent_max",
                static_cast<unsigned long long>(h.genuine_packets_refused),
                static_cast<unsigned long long>(h.replay_window_packets))});
  }
  if (h.prefetch_buffer && h.prefetches_issued == 0) {
    // A configuration that cannot take effect must say so: otherwise SKC-n+Prefetch-m reads as "prefetching
    // does nothing" when the run never gave it a chance (docs/cic.md#prefetching).
    warnings.push_back(
        {"prefetch_idle",
         format("prefetch buffer idle: no prefetch was issued (%llu triggers), so these numbers are the SKC's alone",
                static_cast<unsigned long long>(h.prefetch_triggers)) +
             ". A prefetch loads the recently evicted keys of a process that a packet arrives for while another "
             "process of its node is taken to hold the CPU (docs/cic.md#prefetching); this run had none "
             "(scheduler.policy = " +
             h.scheduler_policy +
             "). Give a node several processes: traffic.processes_per_node > 1, or a trace with more processes "
             "than CPUs under scheduler.policy = local, sb, dcs-sb, pb or gang"});
  }
  return warnings;
}

namespace {

// Parameters that one kind of run never reads, and why.
struct IgnoredGroup {
  std::string_view prefix;              // a key, or a group's prefix ending in '.'
  bool (*ignored)(const RunKind& run);  // in this run
  std::string_view why;
};

bool replays(const RunKind& run) { return run.replay; }
bool synthetic(const RunKind& run) { return !run.replay; }
bool not_hotspot(const RunKind& run) { return !run.replay && run.traffic_pattern != "hotspot"; }
bool not_shift(const RunKind& run) { return !run.replay && run.traffic_pattern != "shift"; }

constexpr IgnoredGroup kIgnoredGroups[] = {
    {"traffic.", replays,
     "a trace replay sends what its traces say, and measures all of it; traffic.* shapes synthetic traffic only"},
    {"replay.", synthetic,
     "synthetic traffic replays no trace; replay.* and trace.placement act in a trace replay only"},
    {"trace.placement", synthetic,
     "synthetic traffic replays no trace; replay.* and trace.placement act in a trace replay only"},
    {"scheduler.", synthetic,
     "synthetic traffic puts no process on a CPU (its sources inject whenever their load says); the node "
     "scheduler acts in a trace replay only"},
    {"traffic.hotspot.", not_hotspot, "traffic.hotspot.* shapes traffic.pattern = hotspot only"},
    {"traffic.shift", not_shift, "traffic.shift is the distance of traffic.pattern = shift only"},
};

bool in_group(const std::string& key, std::string_view prefix) {
  return prefix.ends_with('.') ? key.starts_with(prefix) : key == prefix;
}

}  // namespace

std::vector<RunWarning> ignored_parameter_warnings(const std::set<std::string>& given, const RunKind& run) {
  // Keys grouped by their reason, in the order of kIgnoredGroups, so each reason is said once.
  std::vector<std::pair<std::string_view, std::string>> by_reason;
  for (const IgnoredGroup& group : kIgnoredGroups) {
    if (!group.ignored(run)) continue;
    for (const std::string& key : given) {
      if (!in_group(key, group.prefix)) continue;
      if (by_reason.empty() || by_reason.back().first != group.why) by_reason.emplace_back(group.why, "");
      by_reason.back().second += (by_reason.back().second.empty() ? "" : ", ") + key;
    }
  }
  std::vector<RunWarning> warnings;
  for (const auto& [why, keys] : by_reason) {
    warnings.push_back({"parameters_ignored", "parameters ignored: " + keys + " had no effect: " + std::string(why)});
  }
  return warnings;
}

nlohmann::ordered_json warnings_json(const std::vector<RunWarning>& warnings) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const RunWarning& w : warnings) list.push_back({{"kind", w.kind}, {"message", w.message}});
  return list;
}

}  // namespace ibsec::sim
