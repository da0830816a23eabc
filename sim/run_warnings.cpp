#include "sim/run_warnings.h"

#include <cstdio>

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
    warnings.push_back(
        {"few_packets", format("few packets: %llu measured, fewer than %llu, so fewer than 10 lie beyond the p99 and "
                               "the percentiles are rough (raise traffic.messages)",
                               static_cast<unsigned long long>(h.packets_measured),
                               static_cast<unsigned long long>(kMinPacketsForPercentiles))});
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

nlohmann::ordered_json warnings_json(const std::vector<RunWarning>& warnings) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const RunWarning& w : warnings) list.push_back({{"kind", w.kind}, {"message", w.message}});
  return list;
}

}  // namespace ibsec::sim
