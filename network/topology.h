// Network topologies and their deterministic routing, as plain data: which
// switch port every cable plugs into and each switch's linear forwarding
// table. No SystemC, so the cycle-level fabric, closed-form latency checks and
// tests all read the same description. See docs/topology.md.
//
// A topology is chosen by name (network.topology). Adding one means writing
// a builder function and registering it with IBSEC_REGISTER_TOPOLOGY.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/registry.h"
#include "core/types.h"

namespace ibsec::network {

// What one end of a cable plugs into.
struct Endpoint {
  enum class Kind : uint8_t { kNone, kNode, kSwitch };
  Kind kind = Kind::kNone;
  uint32_t index = 0;  // node id or switch index
  PortId port{0};      // port on that node (always 0 for a node's card) or switch
  bool operator==(const Endpoint&) const = default;
};

struct SwitchSpec {
  uint16_t ports = 0;              // radix
  uint8_t level = 0;               // 0 = leaf (attached to nodes)
  std::vector<Endpoint> peer;      // size ports; kNone for unused ports
  std::vector<PortId> forwarding;  // linear forwarding table: output port by destination node id (size nodes)
};

struct TopologyParams {
  std::string name = "single-switch";  // config key network.topology
  uint32_t nodes = 16;                 // network.nodes (for fat-tree: 0 means k^n; otherwise must equal k^n)
  uint32_t switch_ports = 0;           // network.switch_ports; 0 = smallest that fits
  uint32_t fat_tree_k = 4;             // network.fat_tree.k
  uint32_t fat_tree_n = 2;             // network.fat_tree.n
};

struct Topology {
  std::string name;
  uint32_t nodes = 0;
  std::vector<SwitchSpec> switches;
  std::vector<Endpoint> node_link;  // node i's card port 0 connects to this switch port

  // Switches a packet traverses from src to dst, following the forwarding
  // tables (for closed-form latency checks). src == dst counts the leaf
  // switch that turns the packet around, as the tables do.
  // Throws std::out_of_range for a node id >= nodes and std::logic_error if
  // the tables loop, hit an unconnected port or deliver to the wrong node.
  [[nodiscard]] uint32_t switch_hops(NodeId src, NodeId dst) const;
  // The (switch index, output port) sequence from src to dst; same checks.
  [[nodiscard]] std::vector<std::pair<uint32_t, PortId>> route(NodeId src, NodeId dst) const;
};

// Looks params.name up in TopologyRegistry. Throws ConfigError naming the
// network.* key at fault.
Topology build_topology(const TopologyParams& params);

struct TopologyEntry {
  using Builder = std::function<Topology(const TopologyParams&)>;
  std::string name;
  std::string description;
  Builder build;
};

class TopologyRegistry : public Registry<TopologyEntry> {
 public:
  // Throws ConfigError (field "network.topology") for an unknown name.
  static const Entry& get(const std::string& name) { return Registry::get(name, "network.topology", "topology"); }
};

#define IBSEC_REGISTER_TOPOLOGY(NAME, DESCRIPTION, BUILDER_FN)                               \
  namespace {                                                                                \
  [[maybe_unused]] const bool registered_##BUILDER_FN =                                      \
      ::ibsec::network::TopologyRegistry::add({NAME, DESCRIPTION, BUILDER_FN});              \
  }

}  // namespace ibsec::network
