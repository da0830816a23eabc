// One switch with every node on it, node i on port i: the paper's 16-node
// cluster (§4.1). network.nodes = 0 means those 16.
#include <algorithm>
#include <string>

#include "core/errors.h"
#include "network/topology_wiring.h"

namespace ibsec::network {
namespace {

using namespace wiring;

constexpr uint32_t kPaperNodes = 16;  // §4.1

// The node count asked for, 0 meaning the paper's.
uint32_t single_switch_nodes(const TopologyParams& params) { return params.nodes == 0 ? kPaperNodes : params.nodes; }

void validate_single_switch(const TopologyParams& params) {
  if (params.nodes > kMaxSwitchPorts) {
    throw ConfigError("network.nodes", "a single switch has at most " + std::to_string(kMaxSwitchPorts) +
                                           " ports, so at most as many nodes; got " + std::to_string(params.nodes));
  }
  check_switch_ports_limit(params);
  if (params.switch_ports != 0 && params.switch_ports < single_switch_nodes(params)) {
    throw ConfigError("network.switch_ports",
                      "must be at least network.nodes = " + std::to_string(single_switch_nodes(params)) +
                          " for a single switch, got " + std::to_string(params.switch_ports));
  }
}

Topology build_single_switch(const TopologyParams& params) {
  validate_single_switch(params);
  const uint32_t nodes = single_switch_nodes(params);
  Topology topology = unwired_topology("single-switch", nodes);
  topology.switches.push_back(make_switch(std::max(params.switch_ports, nodes), 0, nodes));
  for (uint32_t node = 0; node < nodes; ++node) {
    connect(topology, node_card(node), switch_port(0, node));
    topology.switches[0].forwarding.set(node, PortId(static_cast<uint16_t>(node)));
  }
  return topology;
}

}  // namespace

IBSEC_REGISTER_TOPOLOGY("single-switch",
                        "every node on one switch; node i on port i (network.nodes = 0: the paper's 16)", {},
                        build_single_switch)

}  // namespace ibsec::network
