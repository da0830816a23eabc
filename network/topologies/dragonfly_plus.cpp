// Dragonfly+ (Shpiner, Haramaty, Eliad, Zdornov, Gafni and Zahavi, "Dragonfly+:
// Low Cost Topology for Scaling Datacenters", HOTI 2017): groups of leaf and
// spine switches, every leaf of a group cabled to every spine of it (a
// 2-level fat tree), and the spines of different groups cabled all-to-all by
// global links, the same number between every two groups. Nodes on the
// leaves. Minimal routing: leaf, spine, then for another group its global
// link and the spine at its far end, then the destination's leaf. Every route
// goes up, across, down in that order, so one virtual lane is deadlock-free.
// docs/topology.md, "dragonfly-plus".
#include <algorithm>
#include <memory>
#include <string>

#include "core/errors.h"
#include "network/adaptive_routing.h"
#include "network/topology_wiring.h"

namespace ibsec::network {
namespace {

using namespace wiring;

constexpr const char* kGroupsKey = "network.dragonfly_plus.groups";
constexpr const char* kLeavesKey = "network.dragonfly_plus.leaves";
constexpr const char* kSpinesKey = "network.dragonfly_plus.spines";
constexpr const char* kNodesPerLeafKey = "network.dragonfly_plus.nodes_per_leaf";
constexpr const char* kGlobalLinksKey = "network.dragonfly_plus.global_links";

struct DragonflyShape {
  uint32_t groups = 0;          // G
  uint32_t leaves = 0;          // L, per group
  uint32_t spines = 0;          // S, per group
  uint32_t nodes_per_leaf = 0;  // P
  uint32_t global_links = 0;    // H, per spine
  uint32_t links_per_pair = 0;  // S*H / (G-1): global links between every two groups
  uint32_t nodes = 0;
  uint32_t leaf_ports = 0;   // P node ports, then S up ports (port P + s to spine s)
  uint32_t spine_ports = 0;  // L down ports (port l to leaf l), then H global ports (port L + h)

  [[nodiscard]] uint32_t switches_per_group() const { return leaves + spines; }
  [[nodiscard]] uint32_t leaf(uint32_t group, uint32_t l) const { return group * switches_per_group() + l; }
  [[nodiscard]] uint32_t spine(uint32_t group, uint32_t s) const { return group * switches_per_group() + leaves + s; }
  [[nodiscard]] uint32_t group_of_node(uint32_t n) const { return n / nodes_per_leaf / leaves; }
  [[nodiscard]] uint32_t leaf_of_node(uint32_t n) const { return n / nodes_per_leaf % leaves; }

  // A group's global links are numbered j = s*H + h (spine s, its h-th global
  // port). Link j leads `1 + j mod (G-1)` groups on (mod G), copy j div (G-1)
  // of the links between the two groups; its far end is the link of the same
  // copy leading back.
  [[nodiscard]] uint32_t far_group(uint32_t group, uint32_t j) const { return (group + 1 + j % (groups - 1)) % groups; }
  [[nodiscard]] uint32_t far_link(uint32_t j) const {
    const uint32_t ahead = 1 + j % (groups - 1);
    return j / (groups - 1) * (groups - 1) + (groups - 1 - ahead);
  }
  // The global link from `group` that routes to destination node n: of the
  // links to n's group, the copy n mod (links per pair), so that the
  // destinations spread over them (D-mod-K's rule, across groups).
  [[nodiscard]] uint32_t link_towards(uint32_t group, uint32_t n) const {
    const uint32_t ahead = (group_of_node(n) + groups - group) % groups;  // 1 .. G-1
    return n % links_per_pair * (groups - 1) + (ahead - 1);
  }
};

void read_counts(const TopologyParams& params, DragonflyShape& shape) {
  shape.groups = count_from_one(params, kGroupsKey, kMaxNodes);
  if (shape.groups < 2)
    throw ConfigError(kGroupsKey, "must be at least 2 (one group is a 2-level fat tree: fat-tree-built)");
  shape.leaves = count_from_one(params, kLeavesKey, kMaxSwitchPorts);
  shape.spines = count_from_one(params, kSpinesKey, kMaxSwitchPorts);
  shape.nodes_per_leaf = count_from_one(params, kNodesPerLeafKey, kMaxSwitchPorts);
  shape.global_links = count_from_one(params, kGlobalLinksKey, kMaxSwitchPorts);
  // Every two groups get the same number of global links: S*H a multiple of G-1.
  const uint64_t per_group = uint64_t{shape.spines} * shape.global_links;
  if (per_group % (shape.groups - 1) != 0) {
    std::string fitting;
    for (uint64_t h = 1; h <= shape.groups - 1 && fitting.size() < 60; ++h) {
      if (shape.spines * h % (shape.groups - 1) == 0) fitting += (fitting.empty() ? "" : ", ") + std::to_string(h);
    }
    throw ConfigError(
        kGlobalLinksKey,
        std::to_string(shape.spines) + " spines with " + std::to_string(shape.global_links) +
            " global links each give a group " + std::to_string(per_group) +
            " global links, which do not divide evenly among the other " + std::to_string(shape.groups - 1) +
            " groups" +
            (fitting.empty() ? ""
                             : "; with " + std::to_string(shape.groups) + " groups, " + std::to_string(shape.spines) +
                                   " spines can take " + fitting + " global links each"));
  }
  shape.links_per_pair = static_cast<uint32_t>(per_group / (shape.groups - 1));
}

void size_switches(const TopologyParams& params, DragonflyShape& shape) {
  const uint64_t leaf_ports = uint64_t{shape.nodes_per_leaf} + shape.spines;
  const uint64_t spine_ports = uint64_t{shape.leaves} + shape.global_links;
  const uint64_t needed = std::max(leaf_ports, spine_ports);
  if (needed > kMaxSwitchPorts) {
    throw ConfigError(kSpinesKey, "a switch would need " + std::to_string(needed) + " ports, more than the " +
                                      std::to_string(kMaxSwitchPorts) + " of a 16-bit port number");
  }
  check_switch_ports_limit(params);
  if (params.switch_ports != 0 && params.switch_ports < needed) {
    throw ConfigError("network.switch_ports",
                      "must be 0 or at least the " + std::to_string(needed) +
                          " ports the busiest switch uses (a leaf: " + std::to_string(leaf_ports) +
                          " = nodes + spines; a spine: " + std::to_string(spine_ports) +
                          " = leaves + global links), got " + std::to_string(params.switch_ports));
  }
  shape.leaf_ports = static_cast<uint32_t>(std::max<uint64_t>(leaf_ports, params.switch_ports));
  shape.spine_ports = static_cast<uint32_t>(std::max<uint64_t>(spine_ports, params.switch_ports));
}

void count_nodes(const TopologyParams& params, DragonflyShape& shape) {
  const uint64_t capacity = uint64_t{shape.groups} * shape.leaves * shape.nodes_per_leaf;
  if (capacity > kMaxNodes) {
    throw ConfigError(kGroupsKey,
                      std::to_string(capacity) + " nodes, more than the " + std::to_string(kMaxNodes) + " supported");
  }
  if (params.nodes > capacity) {
    throw ConfigError("network.nodes", "at most " + std::to_string(capacity) + " nodes fit " +
                                           std::to_string(shape.groups) + " groups of " + std::to_string(shape.leaves) +
                                           " leaves with " + std::to_string(shape.nodes_per_leaf) +
                                           " nodes each, got " + std::to_string(params.nodes));
  }
  shape.nodes = params.nodes != 0 ? params.nodes : static_cast<uint32_t>(capacity);
}

DragonflyShape size_dragonfly(const TopologyParams& params) {
  DragonflyShape shape;
  read_counts(params, shape);
  size_switches(params, shape);
  check_fabric_ports(shape.groups,
                     uint64_t{shape.leaves} * shape.leaf_ports + uint64_t{shape.spines} * shape.spine_ports, kGroupsKey,
                     "the dragonfly+");
  count_nodes(params, shape);
  return shape;
}

// --- wiring ------------------------------------------------------------------

// Nodes packed leaf by leaf, group by group; every leaf to every spine of its
// group; each global link once, from the end with the lower (group, link).
void wire(Topology& topology, const DragonflyShape& shape) {
  const uint32_t p = shape.nodes_per_leaf;
  for (uint32_t n = 0; n < shape.nodes; ++n) {
    connect(topology, node_card(n), switch_port(shape.leaf(shape.group_of_node(n), shape.leaf_of_node(n)), n % p));
  }
  for (uint32_t g = 0; g < shape.groups; ++g) {
    for (uint32_t l = 0; l < shape.leaves; ++l) {
      for (uint32_t s = 0; s < shape.spines; ++s) {
        connect(topology, switch_port(shape.leaf(g, l), p + s), switch_port(shape.spine(g, s), l));
      }
    }
    for (uint32_t j = 0; j < shape.spines * shape.global_links; ++j) {
      const uint32_t g2 = shape.far_group(g, j);
      const uint32_t j2 = shape.far_link(j);
      if (g2 < g || (g2 == g && j2 < j)) continue;
      const uint32_t h = shape.global_links;
      connect(topology, switch_port(shape.spine(g, j / h), shape.leaves + j % h),
              switch_port(shape.spine(g2, j2 / h), shape.leaves + j2 % h));
    }
  }
}

// --- minimal routing -------------------------------------------------------------

// A leaf: its own nodes on their ports; a node of its group up to spine
// n mod S; a node of another group up to the spine holding the global link
// towards it.
uint32_t leaf_port(const DragonflyShape& shape, uint32_t group, uint32_t l, uint32_t n) {
  const uint32_t p = shape.nodes_per_leaf;
  if (shape.group_of_node(n) != group) return p + shape.link_towards(group, n) / shape.global_links;
  if (shape.leaf_of_node(n) != l) return p + n % shape.spines;
  return n % p;
}

// A spine: a node of its group down to its leaf; a node of another group
// across the global link towards it. A spine that does not hold that link
// never sees such a packet under minimal routing; its entry sends it down to
// a leaf, which sends it up to the spine that does.
uint32_t spine_port(const DragonflyShape& shape, uint32_t group, uint32_t s, uint32_t n) {
  if (shape.group_of_node(n) == group) return shape.leaf_of_node(n);
  if (const uint32_t j = shape.link_towards(group, n); j / shape.global_links == s) {
    return shape.leaves + j % shape.global_links;
  }
  return n % shape.leaves;
}

// Switches in group order, each group's leaves before its spines.
class MinimalRoutes final : public ForwardingRule {
 public:
  explicit MinimalRoutes(const DragonflyShape& shape) : shape_(shape) {}
  [[nodiscard]] PortId port(uint32_t switch_index, uint32_t n) const override {
    const uint32_t group = switch_index / shape_.switches_per_group();
    const uint32_t at = switch_index % shape_.switches_per_group();
    const uint32_t port =
        at < shape_.leaves ? leaf_port(shape_, group, at, n) : spine_port(shape_, group, at - shape_.leaves, n);
    return PortId(static_cast<uint16_t>(port));
  }

 private:
  DragonflyShape shape_;
};

// --- UGAL detours (network.adaptive_routing=ugal) ------------------------------

// A card's packet enters lane 0 at its leaf. A packet that turns from a
// spine back up at a leaf, or from one global link onto another at a spine,
// is on the second leg of a detour and goes on lane 1. Lane 1 then carries
// only up, across, down routes, and lane 0 the same with a last turn onto
// lane 1: no cycle on either, and none from lane 1 back to lane 0.
void map_detour_lanes(Topology& topology, const DragonflyShape& shape) {
  for (size_t index = 0; index < topology.switches.size(); ++index) {
    SwitchSpec& spec = topology.switches[index];
    const bool leaf = index % shape.switches_per_group() < shape.leaves;
    // A leaf's ports above its nodes go up; a spine's above its leaves go across.
    const uint32_t first_upper = leaf ? shape.nodes_per_leaf : shape.leaves;
    spec.lane_map.assign(static_cast<size_t>(spec.ports) * spec.ports * kLaneMapLanes, 0);
    for (uint32_t in = 0; in < spec.ports; ++in) {
      for (uint32_t out = 0; out < spec.ports; ++out) {
        for (uint32_t lane = 0; lane < kLaneMapLanes; ++lane) {
          uint32_t mapped = lane;
          if (leaf && in < first_upper) mapped = 0;
          if (in >= first_upper && out >= first_upper) mapped = 1;
          spec.lane_map[(static_cast<size_t>(in) * spec.ports + out) * kLaneMapLanes + lane] =
              static_cast<uint8_t>(mapped);
        }
      }
    }
  }
  topology.lanes_needed = 2;
  topology.lanes_needed_by = "dragonfly+ UGAL routing (a detour's second leg on lane 1)";
}

// The detour set of switch s towards the leaf of nodes first..end: a leaf's every spine, a spine's
// every global link and its shortest ports; each port with the switches the
// shortest path from the switch it leads to crosses, plus this one.
void add_detour_set(SwitchSpec& spec, bool leaf, const DragonflyShape& shape, const std::vector<uint32_t>& hops,
                    uint32_t s, uint32_t first_node, uint32_t end_node) {
  std::vector<PortId> ports;
  std::vector<uint8_t> lengths;
  const uint32_t first = leaf ? shape.nodes_per_leaf : shape.leaves;
  for (uint32_t p = 0; p < spec.ports; ++p) {
    const Endpoint& peer = spec.peer[p];
    if (peer.kind != Endpoint::Kind::kSwitch) continue;
    const bool shortest = hops[peer.index] + 1 == hops[s];
    if (p < first && !shortest) continue;
    ports.emplace_back(static_cast<uint16_t>(p));
    lengths.push_back(static_cast<uint8_t>(std::min<uint32_t>(hops[peer.index] + 1, UINT8_MAX)));
  }
  const auto index = static_cast<uint16_t>(spec.choices.sets.size());
  spec.choices.sets.push_back(std::move(ports));
  spec.choices.hops.push_back(std::move(lengths));
  for (uint32_t n = first_node; n < end_node; ++n) spec.choices.detour_of[n] = index;
}

// A detour's second leg may reach a spine of the intermediate group that
// holds no global link into the destination's group. With 2 or more global
// links a spine, the fewest hops from there can run across a third group
// (global, global, down: 3 switches against down, up, across, down's 4),
// and lane 1 would then chain global links round the groups, a cycle the
// two lanes do not break. So such a spine's choices for that destination
// are its leaves only, as its forwarding table's port is: the second leg
// crosses exactly one global link, as a minimal route does (Shpiner et al.,
// HOTI 2017). Set here, before adaptive routing adds the fewest-hop sets,
// which keep a builder's (network/adaptive_routing.cpp).
// `down_set`: the spine's set of its leaves, made the first time it is
// needed (0 until then) and shared by every destination that needs it.
void add_second_leg_choices(SwitchSpec& spec, const DragonflyShape& shape, uint32_t first_node, uint32_t end_node,
                            uint16_t& down_set) {
  const uint32_t group = shape.group_of_node(first_node);
  for (uint32_t p = shape.leaves; p < spec.ports; ++p) {
    const Endpoint& peer = spec.peer[p];
    if (peer.kind == Endpoint::Kind::kSwitch && peer.index / shape.switches_per_group() == group) return;
  }
  if (down_set == 0) {
    std::vector<PortId> down;
    for (uint32_t p = 0; p < shape.leaves; ++p) {
      if (spec.peer[p].kind == Endpoint::Kind::kSwitch) down.emplace_back(static_cast<uint16_t>(p));
    }
    down_set = static_cast<uint16_t>(spec.choices.sets.size());
    spec.choices.sets.push_back(std::move(down));
    spec.choices.hops.emplace_back();  // every leaf is as far
  }
  for (uint32_t n = first_node; n < end_node; ++n) spec.choices.of[n] = down_set;
}

// Packets from a node may detour at their leaf, and packets on lane 0 from a
// leaf at its spine (lane 1 ones are already on a detour's second leg), to
// nodes of other groups only.
void add_detours(Topology& topology, const DragonflyShape& shape) {
  map_detour_lanes(topology, shape);
  for (size_t index = 0; index < topology.switches.size(); ++index) {
    SwitchSpec& spec = topology.switches[index];
    const bool leaf = index % shape.switches_per_group() < shape.leaves;
    PortChoices& choices = spec.choices;
    choices.sets.assign(1, {});
    choices.hops.assign(1, {});
    choices.of.assign(shape.nodes, 0);
    choices.detour_of.assign(shape.nodes, 0);
    choices.detour_from.assign(spec.ports, PortChoices::kNoDetour);
    const uint32_t lower = leaf ? shape.nodes_per_leaf : shape.leaves;
    for (uint32_t p = 0; p < lower; ++p) {
      choices.detour_from[p] = leaf ? PortChoices::kDetourOnAnyLane : PortChoices::kDetourOnLaneZero;
    }
  }
  std::vector<uint16_t> down_set(topology.switches.size(), 0);  // by switch: add_second_leg_choices's
  const uint32_t per_leaf = shape.nodes_per_leaf;
  for (uint32_t first_node = 0; first_node < shape.nodes; first_node += per_leaf) {
    const uint32_t end_node = std::min(first_node + per_leaf, shape.nodes);
    const uint32_t group = shape.group_of_node(first_node);
    const uint32_t t = shape.leaf(group, shape.leaf_of_node(first_node));
    const std::vector<uint32_t> hops = hops_to_switch(topology, t);
    for (uint32_t s = 0; s < topology.switches.size(); ++s) {
      if (s / shape.switches_per_group() == group) continue;
      const bool leaf = s % shape.switches_per_group() < shape.leaves;
      add_detour_set(topology.switches[s], leaf, shape, hops, s, first_node, end_node);
      if (!leaf) add_second_leg_choices(topology.switches[s], shape, first_node, end_node, down_set[s]);
    }
  }
}

std::vector<ShapeCount> shape_counts(const DragonflyShape& shape) {
  return {
      {"groups", "groups", "groups of leaf and spine switches", shape.groups},
      {"leaves_per_group", "switches", "leaf switches per group (nodes on them)", shape.leaves},
      {"spines_per_group", "switches", "spine switches per group (global links on them)", shape.spines},
      {"nodes_per_leaf", "nodes", "nodes cabled to each leaf (the last leaves may hold fewer, or none)",
       shape.nodes_per_leaf},
      {"global_links_per_spine", "links", "global links on each spine", shape.global_links},
      {"global_links_per_group_pair", "links", "global links between every two groups", shape.links_per_pair},
      {"diameter", "switches", "switches the longest minimal route crosses: leaf, spine, spine, leaf", 4},
  };
}

Topology build_dragonfly_plus(const TopologyParams& params) {
  const DragonflyShape shape = size_dragonfly(params);
  Topology topology = unwired_topology("dragonfly-plus", shape.nodes, shape_counts(shape));
  topology.switches.reserve(static_cast<size_t>(shape.groups) * shape.switches_per_group());
  const auto routes = std::make_shared<const MinimalRoutes>(shape);
  for (uint32_t g = 0; g < shape.groups; ++g) {
    for (uint32_t l = 0; l < shape.leaves + shape.spines; ++l) {
      const bool leaf = l < shape.leaves;
      const auto index = static_cast<uint32_t>(topology.switches.size());
      topology.switches.push_back(
          make_switch(leaf ? shape.leaf_ports : shape.spine_ports, leaf ? 0 : 1, shape.nodes, routes, index));
    }
  }
  wire(topology, shape);
  if (params.adaptive == "ugal") add_detours(topology, shape);
  return topology;
}

}  // namespace

IBSEC_REGISTER_TOPOLOGY(
    "dragonfly-plus",
    "Dragonfly+ (HOTI 2017): groups of leaves and spines, each group a 2-level fat tree, spines of different groups "
    "cabled all-to-all by global links; minimal routing (leaf, spine, global link, spine, leaf) on one lane",
    (std::vector<ParameterInfo>{
        {kGroupsKey, 5, "groups", "groups of leaf and spine switches (at least 2)"},
        {kLeavesKey, 4, "switches", "leaf switches per group, each cabled to every spine of its group"},
        {kSpinesKey, 4, "switches", "spine switches per group"},
        {kNodesPerLeafKey, 4, "nodes", "nodes cabled to each leaf; nodes fill leaves in order, group by group"},
        {kGlobalLinksKey, 1, "links",
         "global links on each spine; spines x global links must be a multiple of groups - 1, so that every two "
         "groups are cabled by the same number of links"},
    }),
    build_dragonfly_plus)

}  // namespace ibsec::network
