// What every topology builder uses to lay out switches and cables
// (network/topologies/*.cpp): limits, endpoints and the one way to plug a
// cable in at both ends.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "network/topology.h"

namespace ibsec::network::wiring {

// Port numbers are 16-bit (PortId, SwitchSpec::ports).
inline constexpr uint64_t kMaxSwitchPorts = std::numeric_limits<uint16_t>::max();
// Beyond these, the tables alone (one uint16 per destination per switch)
// would not fit in memory on a workstation; the first also keeps k^n from
// overflowing while it is computed.
inline constexpr uint64_t kMaxNodes = uint64_t{1} << 20;
inline constexpr uint64_t kMaxForwardingEntries = uint64_t{1} << 27;  // 256 MiB
// Switch ports in all: a fabric of more is refused before it is laid out
// (its description alone would take seconds and gigabytes; its cluster
// about 1.5 KiB a port, sim/memory_estimate.cpp).
inline constexpr uint64_t kMaxFabricPorts = uint64_t{1} << 24;

// ConfigError naming `field` if `parts` alike parts of the fabric (its
// switches, or a dragonfly+'s groups) of `ports_each` switch ports exceed
// kMaxFabricPorts in all.
void check_fabric_ports(uint64_t parts, uint64_t ports_each, const std::string& field, const std::string& what);

// Throws ConfigError unless network.switch_ports fits a 16-bit port number.
void check_switch_ports_limit(const TopologyParams& params);

// The topology's own count `key`, which must be from 1 to `max`; ConfigError naming it otherwise.
uint32_t count_from_one(const TopologyParams& params, const std::string& key, uint64_t max);

inline Endpoint switch_port(uint32_t index, uint32_t port) {
  return {Endpoint::Kind::kSwitch, index, PortId(static_cast<uint16_t>(port))};
}
inline Endpoint node_card(uint32_t node) { return {Endpoint::Kind::kNode, node, PortId(0)}; }

// A topology named `name` of `nodes` nodes, none cabled yet and no switch,
// needing one lane; its shape counts as its builder reports them.
inline Topology unwired_topology(std::string name, uint32_t nodes, std::vector<ShapeCount> shape = {}) {
  Topology topology{.name = std::move(name),
                    .nodes = nodes,
                    .switches = {},
                    .node_link = {},
                    .subnet = {},
                    .shape = std::move(shape),
                    .lanes_needed = 1,
                    .lanes_needed_by = {},
                    .node_rate = {}};
  topology.node_link.resize(nodes);
  return topology;
}

// Plugs one cable in at both ends, so the two sides cannot disagree.
void connect(Topology& topology, Endpoint a, Endpoint b);
// Gives the cable between a and b (connected) its own rate, at both ends.
void set_cable_rate(Topology& topology, Endpoint a, Endpoint b, const CableRate& rate);
// A switch of `ports` ports at `level` with a forwarding table for `nodes` destinations.
SwitchSpec make_switch(uint32_t ports, uint32_t level, uint32_t nodes);
// The same routed by `routes` as the topology's switch `index`.
SwitchSpec make_switch(uint32_t ports, uint32_t level, uint32_t nodes, std::shared_ptr<const ForwardingRule> routes,
                       uint32_t index);

}  // namespace ibsec::network::wiring
