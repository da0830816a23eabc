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
  return warnings;
}

nlohmann::ordered_json warnings_json(const std::vector<RunWarning>& warnings) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const RunWarning& w : warnings) list.push_back({{"kind", w.kind}, {"message", w.message}});
  return list;
}

}  // namespace ibsec::sim
