#include "network/topology.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/errors.h"

namespace ibsec::network {
namespace {

using Kind = Endpoint::Kind;

// Port numbers are 16-bit (PortId, SwitchSpec::ports).
constexpr uint64_t kMaxSwitchPorts = std::numeric_limits<uint16_t>::max();
// Beyond these, the tables alone (one uint16 per destination per switch)
// would not fit in memory on a workstation; the first also keeps k^n from
// overflowing while it is computed.
constexpr uint64_t kMaxNodes = uint64_t{1} << 20;
constexpr uint64_t kMaxForwardingEntries = uint64_t{1} << 27;  // 256 MiB

std::string tree_name(uint64_t k, uint64_t n) {
  return "a " + std::to_string(k) + "-ary " + std::to_string(n) + "-tree";
}

void check_switch_ports_limit(const TopologyParams& params) {
  if (params.switch_ports > kMaxSwitchPorts) {
    throw ConfigError("network.switch_ports", "must be at most " + std::to_string(kMaxSwitchPorts) +
                                                  " (16-bit port numbers), got " +
                                                  std::to_string(params.switch_ports));
  }
}

Endpoint switch_port(uint32_t index, uint32_t port) {
  return {Kind::kSwitch, index, PortId(static_cast<uint16_t>(port))};
}

Endpoint node_card(uint32_t node) { return {Kind::kNode, node, PortId(0)}; }

// Plugs one cable in at both ends, so the two sides cannot disagree.
void connect(Topology& topology, Endpoint a, Endpoint b) {
  auto end = [&](const Endpoint& at) -> Endpoint& {
    if (at.kind == Kind::kNode) return topology.node_link[at.index];
    return topology.switches[at.index].peer[at.port.value()];
  };
  end(a) = b;
  end(b) = a;
}

SwitchSpec make_switch(uint32_t ports, uint32_t level, uint32_t nodes) {
  SwitchSpec spec;
  spec.ports = static_cast<uint16_t>(ports);
  spec.level = static_cast<uint8_t>(level);
  spec.peer.resize(ports);
  spec.forwarding.resize(nodes);
  return spec;
}

// --- single switch -------------------------------------------------------

void validate_single_switch(const TopologyParams& params) {
  if (params.nodes == 0) throw ConfigError("network.nodes", "must be at least 1, got 0");
  if (params.nodes > kMaxSwitchPorts) {
    throw ConfigError("network.nodes", "a single switch has at most " + std::to_string(kMaxSwitchPorts) +
                                           " ports, so at most as many nodes; got " +
                                           std::to_string(params.nodes));
  }
  check_switch_ports_limit(params);
  if (params.switch_ports != 0 && params.switch_ports < params.nodes) {
    throw ConfigError("network.switch_ports",
                      "must be at least network.nodes = " + std::to_string(params.nodes) +
                          " for a single switch, got " + std::to_string(params.switch_ports));
  }
}

Topology build_single_switch(const TopologyParams& params) {
  validate_single_switch(params);
  Topology topology{.name = "single-switch", .nodes = params.nodes, .switches = {}, .node_link = {}};
  topology.node_link.resize(params.nodes);
  topology.switches.push_back(make_switch(std::max(params.switch_ports, params.nodes), 0, params.nodes));
  for (uint32_t node = 0; node < params.nodes; ++node) {
    connect(topology, node_card(node), switch_port(0, node));
    topology.switches[0].forwarding[node] = PortId(static_cast<uint16_t>(node));
  }
  return topology;
}

// --- k-ary n-tree ----------------------------------------------------------

struct FatTreeShape {
  uint32_t k = 0;
  uint32_t n = 0;
  uint32_t nodes = 0;      // k^n
  uint32_t per_level = 0;  // switches per level, k^(n-1)
  uint32_t radix = 0;
};

// k^n, or 0 once it exceeds kMaxNodes (so it cannot overflow).
uint64_t bounded_power(uint64_t k, uint64_t n) {
  uint64_t result = 1;
  for (uint64_t i = 0; i < n; ++i) {
    result *= k;
    if (result > kMaxNodes) return 0;
  }
  return result;
}

void validate_fat_tree_size(uint64_t k, uint64_t n, uint64_t nodes) {
  if (nodes == 0) {
    throw ConfigError("network.fat_tree.n", tree_name(k, n) + " has k^n > " + std::to_string(kMaxNodes) +
                                                " nodes, more than supported; lower k or n");
  }
  const uint64_t switches = n * (nodes / k);
  if (switches * nodes > kMaxForwardingEntries) {
    throw ConfigError("network.fat_tree.n",
                      tree_name(k, n) + " needs " + std::to_string(switches) + " switches x " +
                          std::to_string(nodes) + " destinations = " + std::to_string(switches * nodes) +
                          " forwarding-table entries, more than the " +
                          std::to_string(kMaxForwardingEntries) + " supported; lower k or n");
  }
}

FatTreeShape validate_fat_tree(const TopologyParams& params) {
  const uint64_t k = params.fat_tree_k;
  const uint64_t n = params.fat_tree_n;
  if (k < 2) throw ConfigError("network.fat_tree.k", "must be at least 2, got " + std::to_string(k));
  if (n < 1) throw ConfigError("network.fat_tree.n", "must be at least 1, got 0");
  if (2 * k > kMaxSwitchPorts) {
    throw ConfigError("network.fat_tree.k", "a " + std::to_string(k) + "-ary fat tree needs 2k = " +
                                                std::to_string(2 * k) + " ports per switch, more than " +
                                                std::to_string(kMaxSwitchPorts));
  }
  const uint64_t nodes = bounded_power(k, n);
  validate_fat_tree_size(k, n, nodes);
  if (params.nodes != 0 && params.nodes != nodes) {
    throw ConfigError("network.nodes", "must be 0 or k^n = " + std::to_string(nodes) + " for " +
                                           tree_name(k, n) + ", got " + std::to_string(params.nodes));
  }
  check_switch_ports_limit(params);
  if (params.switch_ports != 0 && params.switch_ports < 2 * k) {
    throw ConfigError("network.switch_ports",
                      "must be at least " + std::to_string(2 * k) + " for a " + std::to_string(k) +
                          "-ary fat tree (2k ports), got " + std::to_string(params.switch_ports));
  }
  const auto radix = static_cast<uint32_t>(params.switch_ports != 0 ? params.switch_ports : 2 * k);
  return {static_cast<uint32_t>(k), static_cast<uint32_t>(n), static_cast<uint32_t>(nodes),
          static_cast<uint32_t>(nodes / k), radix};
}

// Leaf w's down port c holds node w*k + c. Up port k+u of (w, l) goes to
// (w with digit l set to u, l+1), arriving on down port digit_l(w); so going
// down through level l+1 restores digit l, and a switch's subtree is every
// node whose digits above its level match its own.
void wire_fat_tree(Topology& topology, const FatTreeShape& shape) {
  for (uint32_t node = 0; node < shape.nodes; ++node) {
    connect(topology, node_card(node), switch_port(node / shape.k, node % shape.k));
  }
  uint32_t weight = 1;  // k^l
  for (uint32_t level = 0; level + 1 < shape.n; ++level, weight *= shape.k) {
    for (uint32_t w = 0; w < shape.per_level; ++w) {
      const uint32_t digit = (w / weight) % shape.k;
      const uint32_t lower = level * shape.per_level + w;
      for (uint32_t u = 0; u < shape.k; ++u) {
        const uint32_t upper = (level + 1) * shape.per_level + w - digit * weight + u * weight;
        connect(topology, switch_port(lower, shape.k + u), switch_port(upper, digit));
      }
    }
  }
}

// Down towards dst's digit l if dst is in the subtree, else D-mod-K: up port
// k + digit l of dst. Destinations come in runs of k^l sharing digits >= l,
// so each run gets one port.
void fill_fat_tree_table(SwitchSpec& spec, const FatTreeShape& shape, uint32_t w, uint32_t weight) {
  const uint32_t subtree = w / weight;  // digits l.. of w = digits l+1.. of the nodes below
  for (uint32_t run = 0; run < shape.nodes / weight; ++run) {
    const uint32_t digit = run % shape.k;
    const bool below = run / shape.k == subtree;
    const PortId port(static_cast<uint16_t>(below ? digit : shape.k + digit));
    std::fill_n(spec.forwarding.begin() + static_cast<std::ptrdiff_t>(run) * weight, weight, port);
  }
}

Topology build_fat_tree(const TopologyParams& params) {
  const FatTreeShape shape = validate_fat_tree(params);
  Topology topology{.name = "fat-tree", .nodes = shape.nodes, .switches = {}, .node_link = {}};
  topology.node_link.resize(shape.nodes);
  topology.switches.reserve(static_cast<size_t>(shape.n) * shape.per_level);
  uint32_t weight = 1;
  for (uint32_t level = 0; level < shape.n; ++level, weight *= shape.k) {
    for (uint32_t w = 0; w < shape.per_level; ++w) {
      topology.switches.push_back(make_switch(shape.radix, level, shape.nodes));
      fill_fat_tree_table(topology.switches.back(), shape, w, weight);
    }
  }
  wire_fat_tree(topology, shape);
  return topology;
}

// --- routing -------------------------------------------------------------

void check_node(const Topology& topology, NodeId id, const char* role) {
  if (id.value() >= topology.nodes || id.value() >= topology.node_link.size()) {
    throw std::out_of_range(std::string(role) + " node " + std::to_string(id.value()) + " not in a " +
                            std::to_string(topology.nodes) + "-node topology");
  }
}

[[noreturn]] void broken(const std::string& what, NodeId src, NodeId dst) {
  throw std::logic_error("route " + std::to_string(src.value()) + " -> " + std::to_string(dst.value()) +
                         ": " + what);
}

// Follows the tables from src's card, calling on_hop(switch, out port) per
// switch. Any route longer than the switch count must revisit one: a loop.
template <typename OnHop>
void walk(const Topology& topology, NodeId src, NodeId dst, OnHop on_hop) {
  check_node(topology, src, "source");
  check_node(topology, dst, "destination");
  Endpoint at = topology.node_link[src.value()];
  for (size_t hops = 0; hops <= topology.switches.size(); ++hops) {
    if (at.kind != Kind::kSwitch || at.index >= topology.switches.size()) broken("left the fabric", src, dst);
    const SwitchSpec& spec = topology.switches[at.index];
    const PortId out = dst.value() < spec.forwarding.size() ? spec.forwarding[dst.value()] : PortId(0);
    if (out.value() >= spec.peer.size()) {
      broken("switch " + std::to_string(at.index) + " has no port " + std::to_string(out.value()), src, dst);
    }
    on_hop(at.index, out);
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

uint32_t Topology::switch_hops(NodeId src, NodeId dst) const {
  uint32_t hops = 0;
  walk(*this, src, dst, [&](uint32_t, PortId) { ++hops; });
  return hops;
}

std::vector<std::pair<uint32_t, PortId>> Topology::route(NodeId src, NodeId dst) const {
  std::vector<std::pair<uint32_t, PortId>> hops;
  walk(*this, src, dst, [&](uint32_t index, PortId out) { hops.emplace_back(index, out); });
  return hops;
}

Topology build_topology(const TopologyParams& params) {
  return TopologyRegistry::get(params.name).build(params);
}

IBSEC_REGISTER_TOPOLOGY("single-switch", "every node on one switch; node i on port i", build_single_switch)
IBSEC_REGISTER_TOPOLOGY("fat-tree", "k-ary n-tree with up*/down* D-mod-K routing", build_fat_tree)

}  // namespace ibsec::network
