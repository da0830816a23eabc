// k-ary n-trees (Petrini and Vanneschi): k^n nodes, n levels of k^(n-1)
// switches of 2k ports, up*/down* routing with D-mod-K up-port choice
// (docs/topology.md). Parameters: network.fat_tree.k and network.fat_tree.n.
#include <algorithm>
#include <memory>
#include <string>

#include "core/errors.h"
#include "network/topology_wiring.h"

namespace ibsec::network {
namespace {

using namespace wiring;

std::string tree_name(uint64_t k, uint64_t n) {
  return "a " + std::to_string(k) + "-ary " + std::to_string(n) + "-tree";
}

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

FatTreeShape validate_fat_tree(const TopologyParams& params) {
  const uint64_t k = params.own.count("network.fat_tree.k");
  const uint64_t n = params.own.count("network.fat_tree.n");
  if (k < 2) throw ConfigError("network.fat_tree.k", "must be at least 2, got " + std::to_string(k));
  if (n < 1) throw ConfigError("network.fat_tree.n", "must be at least 1, got 0");
  if (2 * k > kMaxSwitchPorts) {
    throw ConfigError("network.fat_tree.k", "a " + std::to_string(k) +
                                                "-ary fat tree needs 2k = " + std::to_string(2 * k) +
                                                " ports per switch, more than " + std::to_string(kMaxSwitchPorts));
  }
  const uint64_t nodes = bounded_power(k, n);
  if (nodes == 0) {
    throw ConfigError("network.fat_tree.n", tree_name(k, n) + " has k^n > " + std::to_string(kMaxNodes) +
                                                " nodes, more than supported; lower k or n");
  }
  if (params.nodes != 0 && params.nodes != nodes) {
    throw ConfigError("network.nodes", "must be 0 or k^n = " + std::to_string(nodes) + " for " + tree_name(k, n) +
                                           ", got " + std::to_string(params.nodes));
  }
  check_switch_ports_limit(params);
  if (params.switch_ports != 0 && params.switch_ports < 2 * k) {
    throw ConfigError("network.switch_ports", "must be at least " + std::to_string(2 * k) + " for a " +
                                                  std::to_string(k) + "-ary fat tree (2k ports), got " +
                                                  std::to_string(params.switch_ports));
  }
  const auto radix = static_cast<uint32_t>(params.switch_ports != 0 ? params.switch_ports : 2 * k);
  check_fabric_ports(n * (nodes / k), radix, "network.fat_tree.n", tree_name(k, n));
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
// k + digit l of dst. Switch (w, l) heads the subtree of the nodes whose
// digits above l are w's digits from l on.
class DigitRoutes final : public ForwardingRule {
 public:
  explicit DigitRoutes(const FatTreeShape& shape) : k_(shape.k) {
    uint32_t weight = 1;  // k^l
    for (uint32_t level = 0; level < shape.n; ++level, weight *= shape.k) {
      for (uint32_t w = 0; w < shape.per_level; ++w) place_.push_back({weight, w / weight});
    }
  }
  [[nodiscard]] PortId port(uint32_t switch_index, uint32_t destination) const override {
    const Place& at = place_[switch_index];
    const uint32_t run = destination / at.weight;  // dst's digits l..
    const uint32_t digit = run % k_;
    return PortId(static_cast<uint16_t>(run / k_ == at.subtree ? digit : k_ + digit));
  }

 private:
  struct Place {
    uint32_t weight;   // k^l, l the switch's level
    uint32_t subtree;  // its digits l.. = digits l+1.. of the nodes below it
  };
  uint32_t k_;
  std::vector<Place> place_;  // by switch index
};

Topology build_fat_tree(const TopologyParams& params) {
  const FatTreeShape shape = validate_fat_tree(params);
  Topology topology = unwired_topology("fat-tree", shape.nodes);
  const auto switches = shape.n * shape.per_level;
  topology.switches.reserve(switches);
  const auto routes = std::make_shared<const DigitRoutes>(shape);
  for (uint32_t s = 0; s < switches; ++s) {
    topology.switches.push_back(make_switch(shape.radix, s / shape.per_level, shape.nodes, routes, s));
  }
  wire_fat_tree(topology, shape);
  return topology;
}

}  // namespace

IBSEC_REGISTER_TOPOLOGY("fat-tree", "k-ary n-tree with up*/down* D-mod-K routing",
                        (std::vector<ParameterInfo>{
                            {"network.fat_tree.k", 4, "", "fat-tree arity k (switches have 2k ports)"},
                            {"network.fat_tree.n", 2, "levels", "fat-tree levels n (k^n nodes)"},
                        }),
                        build_fat_tree)

}  // namespace ibsec::network
