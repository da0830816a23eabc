// The reference fabrics under tests/fabrics/ (README.md there): a fabric's
// topology as ibnetdiscover described it, routed by our engines or by the
// tables OpenSM programmed with one of its engines.
#pragma once

#include <fstream>
#include <string>
#include <vector>

#include "network/topology.h"

namespace ibsec::testing {

// The fabrics every engine routes without a channel-dependency cycle.
inline const std::vector<std::string>& reference_fabrics() {
  static const std::vector<std::string> names{"tapered-2to1", "missing-link",  "three-level",
                                              "partial-leaf", "sibling-links", "degraded-links"};
  return names;
}

// The fabrics with OpenSM's updn tables: the above and the ring, on which
// minhop's tables can deadlock.
inline const std::vector<std::string>& updn_fabrics() {
  static const std::vector<std::string> names{"tapered-2to1", "missing-link",  "three-level",   "ring",
                                              "partial-leaf", "sibling-links", "degraded-links"};
  return names;
}

// The fat trees OpenSM's ftree routes, with its tables (NAME.ftree.lft);
// it refuses missing-link (uneven spines) and routes that minhop instead.
// partial-leaf's first leaf lacks 2 nodes, which ftree routes as dummies;
// sibling-links has cables between switches of one rank (sibling groups).
inline const std::vector<std::string>& ftree_fabrics() {
  static const std::vector<std::string> names{"tapered-2to1", "three-level", "partial-leaf", "sibling-links"};
  return names;
}

inline std::string fabric_file(const std::string& name, const std::string& extension) {
  return std::string(IBSEC_FABRICS_DIR) + "/" + name + extension;
}

// What dump_fts printed after `opensm -R engine`: NAME.lft for minhop,
// NAME.ENGINE.lft for the others.
inline std::string opensm_tables(const std::string& name, const std::string& engine) {
  return fabric_file(name, engine == "minhop" ? ".lft" : "." + engine + ".lft");
}

// The root GUIDs regenerate.sh gave OpenSM (NAME.roots, `#` comments), none
// if the fabric has no such file (OpenSM detected them).
inline std::vector<std::string> given_roots(const std::string& name) {
  std::ifstream file(fabric_file(name, ".roots"));
  std::vector<std::string> guids;
  for (std::string line; std::getline(file, line);) {
    if (!line.empty() && line.front() != '#') guids.push_back(line);
  }
  return guids;
}

// network.routing = `routing` ("topology" = the fabric's own: minhop);
// lft loads the tables OpenSM's `opensm_engine` made, updn takes the roots
// OpenSM was given.
inline network::TopologyParams fabric_params(const std::string& name, const std::string& routing = "topology",
                                             const std::string& opensm_engine = "minhop") {
  network::TopologyParams params =
      network::TopologyParams::of("ibnetdiscover", 0, {{"network.ibnetdiscover.file", fabric_file(name, ".ibnd")}});
  params.routing = routing;
  if (routing == "lft")
    params.routing_own = ParameterValues({{"network.lft.file", opensm_tables(name, opensm_engine)}});
  if (routing == "updn") params.routing_own = ParameterValues({{"network.updn.root_guids", given_roots(name)}});
  return params;
}

}  // namespace ibsec::testing
