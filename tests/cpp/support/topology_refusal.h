// Topologies that must not build: the message of the ConfigError, checked to
// name the parameter at fault.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "core/errors.h"
#include "network/topology.h"

namespace ibsec::testing {

// What building `params` refuses with, after checking the error names
// `field`; a failure, and "", if it builds.
inline std::string refusal_of(const network::TopologyParams& params, const std::string& field) {
  try {
    (void)network::build_topology(params);
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "built";
  return "";
}

}  // namespace ibsec::testing
