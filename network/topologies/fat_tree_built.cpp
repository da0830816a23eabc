// Fat trees as production InfiniBand fabrics are assembled: fixed-radix
// switches (36, 40, 64 ports), 2 or 3 levels, a taper at the leaves (down
// ports to nodes : up ports to spines), any node count that fits, nodes
// cabled leaf by leaf (the last leaf partly filled), and just enough spines
// (and cores) to take the leaves' up-links with the same number of cables
// between every leaf and spine. Routed up*/down* with D-mod-K up-port
// choice. docs/topology.md, "fat-tree-built".
#include <algorithm>
#include <memory>
#include <regex>
#include <string>

#include "core/errors.h"
#include "network/topology_wiring.h"

namespace ibsec::network {
namespace {

using namespace wiring;

constexpr const char* kRadixKey = "network.fat_tree_built.radix";
constexpr const char* kLevelsKey = "network.fat_tree_built.levels";
constexpr const char* kTaperKey = "network.fat_tree_built.taper";
constexpr const char* kSpinesKey = "network.fat_tree_built.spines";
constexpr uint32_t kMinRadix = 4;  // two ports down and two up: the smallest tree that branches at every level

// Leaf ports split by the taper: `down` to nodes, `up` to spines.
struct LeafPorts {
  uint32_t down = 0;
  uint32_t up = 0;
};

// Every count of the tree. A 2-level tree is one pod holding every leaf
// with spines of `radix` down ports; a 3-level tree has pods of radix/2
// leaves whose spines split their ports half down, half up to the cores.
// Spine j of every pod reaches the same group of cores.
struct BuiltShape {
  uint32_t radix = 0;
  uint32_t levels = 0;
  uint32_t nodes = 0;
  LeafPorts leaf;
  uint32_t leaves = 0;
  uint32_t pods = 1;
  uint32_t leaves_per_pod = 0;   // a full pod's; the last pod may hold fewer
  uint32_t spine_down = 0;       // a spine's ports towards leaves
  uint32_t spines_per_pod = 0;   // a divisor of leaf.up
  uint32_t leaf_cables = 0;      // between a leaf and each spine of its pod: leaf.up / spines_per_pod
  uint32_t cores_per_group = 0;  // 3 levels: a divisor of the spine's up ports; 2 levels: 0
  uint32_t core_cables = 0;      // between a spine and each core of its group
  [[nodiscard]] uint32_t spine_up() const { return levels == 3 ? radix - spine_down : 0; }
  [[nodiscard]] uint32_t spines() const { return pods * spines_per_pod; }
  [[nodiscard]] uint32_t cores() const { return spines_per_pod * cores_per_group; }
  [[nodiscard]] uint32_t first_spine() const { return leaves; }
  [[nodiscard]] uint32_t first_core() const { return leaves + spines(); }
  [[nodiscard]] uint32_t switches() const { return leaves + spines() + cores(); }
};

uint32_t ceil_div(uint64_t a, uint64_t b) { return static_cast<uint32_t>((a + b - 1) / b); }

std::string tree_name(uint32_t radix, uint32_t levels, const LeafPorts& leaf) {
  return "a " + std::to_string(levels) + "-level tree of " + std::to_string(radix) + "-port switches with " +
         std::to_string(leaf.down) + " down / " + std::to_string(leaf.up) + " up ports per leaf";
}

uint32_t read_radix(const TopologyParams& params) {
  const uint64_t radix = params.own.count(kRadixKey);
  if (radix < kMinRadix || radix > kMaxSwitchPorts) {
    throw ConfigError(kRadixKey, "must be from " + std::to_string(kMinRadix) + " to " +
                                     std::to_string(kMaxSwitchPorts) + " ports, got " + std::to_string(radix));
  }
  // The spines of a 3-level tree and the leaves of a 1:1 tree split their
  // ports in halves; InfiniBand switch silicon comes with even port counts.
  if (radix % 2 != 0)
    throw ConfigError(kRadixKey, "must be even (ports split in halves), got " + std::to_string(radix));
  if (params.switch_ports != 0) {
    throw ConfigError("network.switch_ports",
                      "must be 0 for fat-tree-built: the switches have network.fat_tree_built.radix ports");
  }
  return static_cast<uint32_t>(radix);
}

uint32_t read_levels(const TopologyParams& params) {
  const uint64_t levels = params.own.count(kLevelsKey);
  if (levels != 2 && levels != 3) throw ConfigError(kLevelsKey, "must be 2 or 3, got " + std::to_string(levels));
  return static_cast<uint32_t>(levels);
}

// "2:1" -> the leaf's ports split in that ratio, exactly.
LeafPorts read_taper(const TopologyParams& params, uint32_t radix) {
  const std::string text = params.own.text(kTaperKey);
  static const std::regex ratio(R"(^\s*(\d{1,5})\s*:\s*(\d{1,5})\s*$)");
  std::smatch match;
  if (!std::regex_match(text, match, ratio)) {
    throw ConfigError(kTaperKey, "must be down:up ports of a leaf, e.g. \"2:1\" or \"1:1\", got \"" + text + "\"");
  }
  const uint64_t down = std::stoul(match[1].str());
  const uint64_t up = std::stoul(match[2].str());
  if (up == 0 || down < up) {
    throw ConfigError(kTaperKey,
                      "must have down >= up >= 1 (a leaf with more up-links than nodes has up-links "
                      "D-mod-K never uses), got \"" +
                          text + "\"");
  }
  if (radix * down % (down + up) != 0) {
    throw ConfigError(kTaperKey, "cannot split " + std::to_string(radix) + " ports " + std::to_string(down) + ":" +
                                     std::to_string(up) + " (" + std::to_string(radix) + " x " + std::to_string(down) +
                                     "/" + std::to_string(down + up) + " is not a whole number of ports)");
  }
  const auto leaf_down = static_cast<uint32_t>(radix * down / (down + up));
  return {leaf_down, radix - leaf_down};
}

// The smallest divisor s of `links` with groups * (links / s) <= ports: the
// fewest upper switches that take every lower switch's `links` up-links with
// the same number of cables from each lower switch to each upper one.
uint32_t fewest_upper_switches(uint32_t links, uint32_t groups, uint32_t ports) {
  for (uint32_t s = 1; s <= links; ++s) {
    if (links % s == 0 && static_cast<uint64_t>(groups) * (links / s) <= ports) return s;
  }
  return 0;  // callers have checked groups <= ports, so s = links always fits
}

// The largest tree of this shape: every leaf full, as many pods as the cores take.
uint32_t capacity(uint32_t radix, uint32_t levels, const LeafPorts& leaf) {
  const uint64_t leaves = levels == 2 ? radix : uint64_t{radix} * (radix / 2);
  return static_cast<uint32_t>(std::min<uint64_t>(leaves * leaf.down, kMaxNodes));
}

void check_nodes_fit(const TopologyParams& params, uint32_t radix, uint32_t levels, const LeafPorts& leaf) {
  const uint32_t most = capacity(radix, levels, leaf);
  if (params.nodes > most) {
    throw ConfigError("network.nodes", "at most " + std::to_string(most) + " nodes fit " +
                                           tree_name(radix, levels, leaf) + ", got " + std::to_string(params.nodes) +
                                           (levels == 2 ? "; network.fat_tree_built.levels=3 takes more" : ""));
  }
  // Fewer nodes would leave the top level carrying no traffic at all.
  const uint32_t below_top = levels == 2 ? leaf.down : leaf.down * (radix / 2);
  if (params.nodes != 0 && params.nodes <= below_top) {
    throw ConfigError("network.nodes", "must be more than the " + std::to_string(below_top) + " nodes " +
                                           (levels == 2 ? "one leaf holds" : "one pod holds") + " in " +
                                           tree_name(radix, levels, leaf) + ", got " + std::to_string(params.nodes) +
                                           (levels == 2 ? "; use network.topology=single-switch"
                                                        : "; use network.fat_tree_built.levels=2"));
  }
}

// network.fat_tree_built.spines when given (a cluster built with more
// spines than it needs, each leaf's up-links spread over all of them), else
// the fewest that take every leaf's up-links.
uint32_t spines_per_pod(const TopologyParams& params, const BuiltShape& shape) {
  const uint64_t given = params.own.count(kSpinesKey);
  if (given == 0) return fewest_upper_switches(shape.leaf.up, shape.leaves_per_pod, shape.spine_down);
  std::string valid;
  for (uint32_t s = 1; s <= shape.leaf.up; ++s) {
    if (shape.leaf.up % s == 0 && uint64_t{shape.leaves_per_pod} * (shape.leaf.up / s) <= shape.spine_down)
      valid += (valid.empty() ? "" : ", ") + std::to_string(s);
  }
  const bool divides = given <= shape.leaf.up && shape.leaf.up % given == 0;
  if (!divides || uint64_t{shape.leaves_per_pod} * (shape.leaf.up / given) > shape.spine_down) {
    throw ConfigError(kSpinesKey, std::string(divides ? "leaves more cables on a spine than its " +
                                                            std::to_string(shape.spine_down) + " down ports"
                                                      : "must divide each leaf's " + std::to_string(shape.leaf.up) +
                                                            " up-links (the same number of cables to every spine)") +
                                      ", got " + std::to_string(given) + "; " + (shape.levels == 3 ? "per pod " : "") +
                                      "for " + std::to_string(shape.nodes) + " nodes on " +
                                      tree_name(shape.radix, shape.levels, shape.leaf) + ": " + valid);
  }
  return static_cast<uint32_t>(given);
}

BuiltShape size_tree(const TopologyParams& params) {
  BuiltShape shape;
  shape.radix = read_radix(params);
  shape.levels = read_levels(params);
  shape.leaf = read_taper(params, shape.radix);
  check_nodes_fit(params, shape.radix, shape.levels, shape.leaf);
  shape.nodes = params.nodes != 0 ? params.nodes : capacity(shape.radix, shape.levels, shape.leaf);
  shape.leaves = ceil_div(shape.nodes, shape.leaf.down);
  shape.spine_down = shape.levels == 2 ? shape.radix : shape.radix / 2;
  shape.leaves_per_pod = shape.levels == 2 ? shape.leaves : shape.spine_down;
  shape.pods = ceil_div(shape.leaves, shape.leaves_per_pod);
  shape.spines_per_pod = spines_per_pod(params, shape);
  shape.leaf_cables = shape.leaf.up / shape.spines_per_pod;
  if (shape.levels == 3) {
    shape.cores_per_group = fewest_upper_switches(shape.spine_up(), shape.pods, shape.radix);
    shape.core_cables = shape.spine_up() / shape.cores_per_group;
  }
  return shape;
}

// --- where each node, leaf and cable is ------------------------------------

struct Place {
  uint32_t leaf = 0;
  uint32_t port = 0;  // on its leaf
  uint32_t pod = 0;
  uint32_t position = 0;  // of its leaf within the pod
};

// Nodes packed leaf by leaf, leaves pod by pod.
Place place_of(const BuiltShape& shape, uint32_t node) {
  const uint32_t leaf = node / shape.leaf.down;
  return {leaf, node % shape.leaf.down, leaf / shape.leaves_per_pod, leaf % shape.leaves_per_pod};
}

uint32_t spine_index(const BuiltShape& shape, uint32_t pod, uint32_t j) {
  return shape.first_spine() + pod * shape.spines_per_pod + j;
}

uint32_t core_index(const BuiltShape& shape, uint32_t group, uint32_t m) {
  return shape.first_core() + group * shape.cores_per_group + m;
}

// Leaf up-link u goes to spine u mod S of its pod as that pair's cable
// u div S, so consecutive up-links reach different spines; it lands on the
// spine's down port position * cables + cable.
uint32_t spine_down_port(const BuiltShape& shape, uint32_t position, uint32_t cable) {
  return position * shape.leaf_cables + cable;
}

// Spine up-link w goes to core w mod C of its group as cable w div C, on
// the core's port pod * cables + cable.
uint32_t core_port(const BuiltShape& shape, uint32_t pod, uint32_t cable) { return pod * shape.core_cables + cable; }

void wire_leaves(Topology& topology, const BuiltShape& shape) {
  for (uint32_t node = 0; node < shape.nodes; ++node) {
    const Place at = place_of(shape, node);
    connect(topology, node_card(node), switch_port(at.leaf, at.port));
  }
  for (uint32_t leaf = 0; leaf < shape.leaves; ++leaf) {
    const uint32_t pod = leaf / shape.leaves_per_pod;
    const uint32_t position = leaf % shape.leaves_per_pod;
    for (uint32_t u = 0; u < shape.leaf.up; ++u) {
      const uint32_t j = u % shape.spines_per_pod;
      connect(topology, switch_port(leaf, shape.leaf.down + u),
              switch_port(spine_index(shape, pod, j), spine_down_port(shape, position, u / shape.spines_per_pod)));
    }
  }
}

void wire_cores(Topology& topology, const BuiltShape& shape) {
  for (uint32_t pod = 0; pod < shape.pods; ++pod) {
    for (uint32_t j = 0; j < shape.spines_per_pod; ++j) {
      for (uint32_t w = 0; w < shape.spine_up(); ++w) {
        connect(topology, switch_port(spine_index(shape, pod, j), shape.spine_down + w),
                switch_port(core_index(shape, j, w % shape.cores_per_group),
                            core_port(shape, pod, w / shape.cores_per_group)));
      }
    }
  }
}

// --- D-mod-K forwarding ------------------------------------------------------

// Every destination has a lane, its port on its leaf mod the leaf's
// up-links: the leaf up-link a packet to it climbs on, and so the spine it
// crosses and the spine's cable down to its leaf. Destinations of one leaf
// share each up-link evenly (Zahavi's D-mod-K; the k-ary n-tree's digit rule
// is the same with one digit per level).
uint32_t lane(const BuiltShape& shape, const Place& dst) { return dst.port % shape.leaf.up; }

uint32_t leaf_port(const BuiltShape& shape, uint32_t leaf, const Place& dst) {
  return dst.leaf == leaf ? dst.port : shape.leaf.down + lane(shape, dst);
}

// Down within its pod on the lane's cable; out of the pod, up on the
// destination leaf's position, which spreads the destinations of a pod
// across the spine's up-links and the cores' cables down to that pod.
uint32_t spine_port(const BuiltShape& shape, uint32_t pod, const Place& dst) {
  return dst.pod == pod ? spine_down_port(shape, dst.position, lane(shape, dst) / shape.spines_per_pod)
                        : shape.spine_down + dst.position;
}

uint32_t core_port(const BuiltShape& shape, const Place& dst) {
  return core_port(shape, dst.pod, dst.position / shape.cores_per_group);
}

// Switches numbered leaves, spines pod by pod, cores.
class DModKRoutes final : public ForwardingRule {
 public:
  explicit DModKRoutes(const BuiltShape& shape) : shape_(shape) {}
  [[nodiscard]] PortId port(uint32_t switch_index, uint32_t destination) const override {
    const Place dst = place_of(shape_, destination);
    uint32_t port = 0;
    if (switch_index < shape_.first_spine()) {
      port = leaf_port(shape_, switch_index, dst);
    } else if (switch_index < shape_.first_core()) {
      port = spine_port(shape_, (switch_index - shape_.first_spine()) / shape_.spines_per_pod, dst);
    } else {
      port = core_port(shape_, dst);
    }
    return PortId(static_cast<uint16_t>(port));
  }

 private:
  BuiltShape shape_;
};

void add_switches(Topology& topology, const BuiltShape& shape) {
  topology.switches.reserve(shape.switches());
  const auto routes = std::make_shared<const DModKRoutes>(shape);
  for (uint32_t s = 0; s < shape.switches(); ++s) {
    const uint32_t level = s < shape.first_spine() ? 0 : s < shape.first_core() ? 1 : 2;
    topology.switches.push_back(make_switch(shape.radix, level, shape.nodes, routes, s));
  }
}

std::vector<ShapeCount> shape_counts(const BuiltShape& shape) {
  return {
      {"levels", "levels", "switch levels of the fat tree (2: leaves and spines; 3: and cores)", shape.levels},
      {"leaves", "switches", "leaf switches, cabled to the nodes", shape.leaves},
      {"spines", "switches", "spine switches (level 1), cabled to the leaves' up-links", shape.spines()},
      {"cores", "switches", "core switches (level 2) of a 3-level tree, cabled to the spines' up-links", shape.cores()},
      {"leaf_down_ports", "ports", "ports of each leaf towards nodes (the taper's down side)", shape.leaf.down},
      {"leaf_up_ports", "ports", "ports of each leaf towards spines, all cabled (the taper's up side)", shape.leaf.up},
  };
}

Topology build_fat_tree_built(const TopologyParams& params) {
  const BuiltShape shape = size_tree(params);
  Topology topology = unwired_topology("fat-tree-built", shape.nodes, shape_counts(shape));
  add_switches(topology, shape);
  wire_leaves(topology, shape);
  wire_cores(topology, shape);
  return topology;
}

}  // namespace

IBSEC_REGISTER_TOPOLOGY(
    "fat-tree-built",
    "a 2- or 3-level fat tree of fixed-radix switches with a taper at the leaves, any node count that fits (nodes "
    "packed leaf by leaf), up*/down* D-mod-K routing",
    (std::vector<ParameterInfo>{
        {kRadixKey, 36, "ports", "ports of every switch (even, >= 4; e.g. 36 SB7800, 40 QM8700, 64 QM9700)"},
        {kLevelsKey, 2, "levels", "switch levels: 2 (leaves, spines) or 3 (leaves, spines, cores)"},
        {kTaperKey, "1:1", "down:up", "ratio of a leaf's ports to nodes and to spines, e.g. 2:1 (24/12 of 36)"},
        {kSpinesKey, 0, "switches",
         "spines (per pod with 3 levels), each leaf's up-links spread evenly over them; 0 = the fewest that take them"},
    }),
    build_fat_tree_built)

}  // namespace ibsec::network
