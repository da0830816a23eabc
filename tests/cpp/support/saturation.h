// Running the cluster with every source saturated, for the saturation and
// soak tests.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/model_support.h"

namespace ibsec::testing {

struct Saturated {
  sim::RunOutcome outcome;
  nlohmann::ordered_json statistics;
  nlohmann::ordered_json warnings;
  nlohmann::ordered_json topology;  // the result's topology section (its uniform_bound among it)
};

inline double payload_share(double payload, double overhead) { return payload / (payload + overhead); }

// A saturated run's accepted throughput in payload, as a share of the link
// rate: 256-byte packets carry 26 bytes of headers without security.
inline double accepted_payload(const Saturated& s) {
  return s.statistics["accepted_throughput"].get<double>() / payload_share(256, 26);
}

// docs/network.md, "Tori": under uniform traffic with dimension-order
// routing and the half-way tie-break that alternates with the coordinate,
// every channel of a dimension with rings of k carries c * lambda * N/(N-1)
// * k/8 (k a multiple of 4) for c nodes per switch and N nodes, so lambda <=
// 8/(c k) * (N-1)/N of the link rate, the bisection bound; the injection
// link's 1 bounds it too.
inline double torus_bound(double nodes, double per_switch, double k) {
  return std::min(1.0, 8.0 / (per_switch * k) * (nodes - 1) / nodes);
}

inline Saturated saturate(std::vector<std::string> overrides) {
  // Defaults first, so that the caller's overrides win.
  overrides.insert(overrides.begin(),
                   {"traffic.load=1.0", "nic.security=NoSecurity", "traffic.max_backlog_packets=32"});
  sim::Cluster cluster(config_with(overrides));
  Saturated s;
  s.outcome = cluster.run();
  const nlohmann::ordered_json result = cluster.result(s.outcome);
  s.statistics = result["statistics"];
  s.warnings = result["warnings"];
  s.topology = result["topology"];
  EXPECT_EQ(cluster.credits_missing(), 0U);
  return s;
}

// No deadlock and no loss: everything handed over was delivered, in order
// (unless adaptive routing may reorder it), with every credit back, and the
// sources really were saturated.
enum class Order { kKept, kMayChange };

inline void expect_soak_survived(const Saturated& s, Order order = Order::kKept) {
  EXPECT_TRUE(s.outcome.drained);
  EXPECT_EQ(s.statistics["packets_delivered"], s.statistics["packets_handed_over"]);
  if (order == Order::kKept) {
    EXPECT_EQ(s.statistics["out_of_order_packets"], 0);
  }
  EXPECT_EQ(s.statistics["credits_missing_at_end"], 0);
  EXPECT_GT(s.statistics["offers_refused"].get<uint64_t>(), 0U) << "the sources were not saturated";
}

}  // namespace ibsec::testing
