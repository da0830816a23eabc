// The reference fabrics under tests/fabrics/ (README.md there): a fabric's
// topology as ibnetdiscover described it, routed by our minhop or by the
// tables OpenSM programmed.
#pragma once

#include <string>
#include <vector>

#include "network/topology.h"

namespace ibsec::testing {

inline const std::vector<std::string>& reference_fabrics() {
  static const std::vector<std::string> names{"tapered-2to1", "missing-link"};
  return names;
}

inline std::string fabric_file(const std::string& name, const std::string& extension) {
  return std::string(IBSEC_FABRICS_DIR) + "/" + name + extension;
}

// network.routing = `routing` ("topology" = the fabric's own: minhop).
inline network::TopologyParams fabric_params(const std::string& name, const std::string& routing = "topology") {
  network::TopologyParams params =
      network::TopologyParams::of("ibnetdiscover", 0, {{"network.ibnetdiscover.file", fabric_file(name, ".ibnd")}});
  params.routing = routing;
  if (routing == "lft") params.routing_own = ParameterValues({{"network.lft.file", fabric_file(name, ".lft")}});
  return params;
}

}  // namespace ibsec::testing
