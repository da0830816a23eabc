// Running the cluster with every source saturated, for the saturation and
// soak tests.
#pragma once

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
