#include "network/topology.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/errors.h"
#include "network/adaptive_routing.h"
#include "network/routing.h"
#include "network/topology_wiring.h"

namespace ibsec::network {

namespace wiring {

void check_switch_ports_limit(const TopologyParams& params) {
  if (params.switch_ports > kMaxSwitchPorts) {
    throw ConfigError("network.switch_ports", "must be at most " + std::to_string(kMaxSwitchPorts) +
                                                  " (16-bit port numbers), got " + std::to_string(params.switch_ports));
  }
}

uint32_t count_from_one(const TopologyParams& params, const std::string& key, uint64_t max) {
  const uint64_t value = params.own.count(key);
  if (value < 1 || value > max) {
    throw ConfigError(key, "must be from 1 to " + std::to_string(max) + ", got " + std::to_string(value));
  }
  return static_cast<uint32_t>(value);
}

void check_fabric_ports(uint64_t parts, uint64_t ports_each, const std::string& field, const std::string& what) {
  const uint64_t ports = parts * ports_each;  // parts < 2^24, ports_each < 2^36: no overflow
  if (ports <= kMaxFabricPorts) return;
  throw ConfigError(field, what + " has " + std::to_string(ports) + " switch ports in all, more than the " +
                               std::to_string(kMaxFabricPorts) + " supported");
}

void connect(Topology& topology, Endpoint a, Endpoint b) {
  auto end = [&](const Endpoint& at) -> Endpoint& {
    if (at.kind == Endpoint::Kind::kNode) return topology.node_link[at.index];
    return topology.switches[at.index].peer[at.port.value()];
  };
  end(a) = b;
  end(b) = a;
}

void set_cable_rate(Topology& topology, Endpoint a, Endpoint b, const CableRate& rate) {
  for (const Endpoint& at : {a, b}) {
    if (at.kind == Endpoint::Kind::kNode) {
      topology.node_rate.resize(topology.nodes);
      topology.node_rate[at.index] = rate;
    } else {
      SwitchSpec& spec = topology.switches[at.index];
      spec.port_rate.resize(spec.ports);
      spec.port_rate[at.port.value()] = rate;
    }
  }
}

SwitchSpec make_switch(uint32_t ports, uint32_t level, uint32_t nodes) {
  SwitchSpec spec;
  spec.ports = static_cast<uint16_t>(ports);
  spec.level = static_cast<uint8_t>(level);
  spec.peer.resize(ports);
  spec.forwarding = Forwarding(nodes);
  return spec;
}

SwitchSpec make_switch(uint32_t ports, uint32_t level, uint32_t nodes, std::shared_ptr<const ForwardingRule> routes,
                       uint32_t index) {
  SwitchSpec spec = make_switch(ports, level, 0);
  spec.forwarding = Forwarding(std::move(routes), index, nodes);
  return spec;
}

}  // namespace wiring

namespace {

using Kind = Endpoint::Kind;

// --- routing -------------------------------------------------------------

void check_node(const Topology& topology, NodeId id, const char* role) {
  if (id.value() >= topology.nodes || id.value() >= topology.node_link.size()) {
    throw std::out_of_range(std::string(role) + " node " + std::to_string(id.value()) + " not in a " +
                            std::to_string(topology.nodes) + "-node topology");
  }
}

[[noreturn]] void broken(const std::string& what, NodeId src, NodeId dst) {
  throw std::logic_error("route " + std::to_string(src.value()) + " -> " + std::to_string(dst.value()) + ": " + what);
}

// Follows the tables from src's card, calling on_hop(switch, out port, out
// lane) per switch, the packet leaving the card on `lane`. Any route longer
// than the switch count must revisit one: a loop.
template <typename OnHop>
void walk(const Topology& topology, NodeId src, NodeId dst, uint8_t lane, OnHop on_hop) {
  check_node(topology, src, "source");
  check_node(topology, dst, "destination");
  if (lane >= kLaneMapLanes) throw std::out_of_range("lane " + std::to_string(lane) + " is no virtual lane");
  Endpoint at = topology.node_link[src.value()];
  for (size_t hops = 0; hops <= topology.switches.size(); ++hops) {
    if (at.kind != Kind::kSwitch || at.index >= topology.switches.size()) broken("left the fabric", src, dst);
    const SwitchSpec& spec = topology.switches[at.index];
    const PortId out = dst.value() < spec.forwarding.size() ? spec.forwarding[dst.value()] : PortId(0);
    if (out.value() >= spec.peer.size()) {
      broken("switch " + std::to_string(at.index) + " has no port " + std::to_string(out.value()), src, dst);
    }
    lane = spec.out_lane(at.port.value(), out.value(), lane);
    on_hop(at.index, out, lane);
    const Endpoint& next = spec.peer[out.value()];
    if (next.kind == Kind::kNode) {
      if (next.index != dst.value()) broken("delivered to node " + std::to_string(next.index), src, dst);
      return;
    }
    at = next;
  }
  broken("forwarding loop", src, dst);
}

}  // namespace

std::optional<CableRate> Topology::rate_at(const Endpoint& end) const {
  if (end.kind == Kind::kNode) return end.index < node_rate.size() ? node_rate[end.index] : std::nullopt;
  if (end.kind != Kind::kSwitch) return std::nullopt;
  const auto& rates = switches[end.index].port_rate;
  return end.port.value() < rates.size() ? rates[end.port.value()] : std::nullopt;
}

bool Topology::has_cable_rates() const {
  return !node_rate.empty() ||
         std::ranges::any_of(switches, [](const SwitchSpec& spec) { return !spec.port_rate.empty(); });
}

bool Topology::maps_lanes() const {
  return std::ranges::any_of(switches, [](const SwitchSpec& spec) { return !spec.lane_map.empty(); });
}

bool Topology::adaptive() const {
  return std::ranges::any_of(switches, [](const SwitchSpec& spec) { return !spec.choices.empty(); });
}

uint32_t Topology::switch_hops(NodeId src, NodeId dst) const {
  uint32_t hops = 0;
  walk(*this, src, dst, 0, [&](uint32_t, PortId, uint8_t) { ++hops; });
  return hops;
}

std::vector<std::pair<uint32_t, PortId>> Topology::route(NodeId src, NodeId dst) const {
  std::vector<std::pair<uint32_t, PortId>> hops;
  walk(*this, src, dst, 0, [&](uint32_t index, PortId out, uint8_t) { hops.emplace_back(index, out); });
  return hops;
}

std::vector<Hop> Topology::hops(NodeId src, NodeId dst, uint8_t lane) const {
  std::vector<Hop> hops;
  walk(*this, src, dst, lane, [&](uint32_t index, PortId out, uint8_t on) { hops.push_back({index, out, on}); });
  return hops;
}

TopologyParams TopologyParams::of(std::string name, uint32_t nodes, const ParameterTable& own) {
  const TopologyEntry& entry = TopologyRegistry::get(name);
  ParameterTable values;
  for (const ParameterInfo& info : entry.parameters) values[info.key] = info.default_value;
  for (const auto& [key, value] : own) values[key] = value;
  return {std::move(name), nodes, 0, ParameterValues(std::move(values)), kTopologyOwnRouting, {}, "off", 1};
}

std::vector<ParameterInfo> topology_parameters() {
  std::vector<ParameterInfo> all;
  for (const TopologyEntry* entry : TopologyRegistry::sorted()) {
    all.insert(all.end(), entry->parameters.begin(), entry->parameters.end());
  }
  return all;
}

namespace {

// The parameter a routing problem is reported against: the routing's file
// when it loads one, else network.routing.
std::string routing_field(const TopologyParams& params) {
  if (params.routing == kTopologyOwnRouting) return "network.routing";
  const RoutingEntry& routing = RoutingRegistry::get(params.routing);
  return routing.parameters.empty() ? "network.routing" : routing.parameters.front().key;
}

// A routing engine's tables and adaptive routing's choice sets hold an entry
// per destination on every switch; a generated topology's own routes are a
// rule (network/forwarding.h) and hold none.
void check_table_entries(const Topology& topology, const TopologyParams& params) {
  const uint64_t entries = uint64_t{topology.switches.size()} * topology.nodes;
  if (entries <= wiring::kMaxForwardingEntries) return;
  const bool by_engine = params.routing != kTopologyOwnRouting;
  throw ConfigError(by_engine ? "network.routing" : "network.adaptive_routing",
                    std::to_string(topology.nodes) + " nodes on " + std::to_string(topology.switches.size()) +
                        " switches need " + std::to_string(entries) +
                        (by_engine ? " forwarding-table" : " choice-set") + " entries, more than the " +
                        std::to_string(wiring::kMaxForwardingEntries) +
                        " supported; the topology's own routing (network.routing=topology" +
                        (by_engine ? "" : ", network.adaptive_routing=off") + ") needs no tables");
}

}  // namespace

// Generated topologies' own tables are proven in docs/topology.md and
// tested; tables from a routing engine or a file, and any real fabric's,
// are checked here before a run starts.
Topology build_topology(const TopologyParams& params) {
  Topology topology = TopologyRegistry::get(params.name).build(params);
  if (params.routing != kTopologyOwnRouting || params.adaptive != "off") check_table_entries(topology, params);
  if (params.routing != kTopologyOwnRouting) {
    // The builder's lanes and detours belong to its own tables (a torus's
    // datelines to dimension-order routes, a dragonfly+'s detours to its
    // minimal ones); another routing's tables keep every lane.
    for (SwitchSpec& spec : topology.switches) {
      spec.lane_map.clear();
      spec.choices = {};
    }
    topology.lanes_needed = 1;
    topology.lanes_needed_by.clear();
    const RoutingEntry& routing = RoutingRegistry::get(params.routing);
    routing.route(topology, params.routing_own.subset(routing.parameters));
  }
  const bool adaptive = add_choices(topology, params.adaptive);
  if (params.routing != kTopologyOwnRouting || topology.subnet || adaptive) {
    check_routes(topology, adaptive ? "network.adaptive_routing" : routing_field(params));
  }
  return topology;
}

}  // namespace ibsec::network
