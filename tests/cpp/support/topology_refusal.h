// Topologies that must not build: the message of the ConfigError, checked to
// name the parameter at fault.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "network/topology.h"
#include "support/config_refusal.h"

namespace ibsec::testing {

// What building `params` refuses with, after checking the error names
// `field`; a failure, and "", if it builds.
inline std::string refusal_of(const network::TopologyParams& params, const std::string& field) {
  return config_refusal([&] { (void)network::build_topology(params); }, field);
}

}  // namespace ibsec::testing
