// Network topologies and their deterministic routing, as plain data: which
// switch port every cable plugs into and each switch's linear forwarding
// table. No SystemC, so the cycle-level fabric, closed-form latency checks and
// tests all read the same description. See docs/topology.md.
//
// A topology is chosen by name (network.topology). Adding one means writing
// one file under network/topologies/ with a builder function, registered with
// IBSEC_REGISTER_TOPOLOGY together with the topology's own parameters
// (network.<topology>.*), and adding it to network/CMakeLists.txt.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/parameters.h"
#include "core/registry.h"
#include "core/types.h"
#include "network/forwarding.h"

namespace ibsec::network {

// What one end of a cable plugs into.
struct Endpoint {
  enum class Kind : uint8_t { kNone, kNode, kSwitch };
  Kind kind = Kind::kNone;
  uint32_t index = 0;  // node id or switch index
  PortId port{0};      // port on that node (always 0 for a node's card) or switch
  bool operator==(const Endpoint&) const = default;
};

// A cable's own generation and width, as a fabric read from a subnet gives
// them ("QDR", "4x"; names of network/link_rate.h). Both directions of a
// cable share it. A link without one runs at the fabric's network.link_rate
// and network.link_width (docs/network.md, "Links of different rates").
struct CableRate {
  std::string generation;
  std::string width;
  [[nodiscard]] std::string name() const { return width + generation; }  // "4xQDR", as ibnetdiscover writes it
  bool operator==(const CableRate&) const = default;
};

// Lanes a lane map covers for each (input, output) pair: a packet may
// arrive on any of InfiniBand's 16 VLs (15 data lanes and VL15), as an
// SL-to-VL mapping table has one entry per SL for every port pair.
inline constexpr uint32_t kLaneMapLanes = 16;

// Adaptive routing's port sets for one switch (network.adaptive_routing,
// network/adaptive_routing.h): the output ports a packet to each
// destination may leave by, the switch taking the least occupied when it
// routes the packet's head.
struct PortChoices {
  enum DetourFrom : uint8_t { kNoDetour, kDetourOnAnyLane, kDetourOnLaneZero };

  // by destination: an index into sets; set 0 is empty and means the
  // forwarding table's port alone, as does an empty `of`.
  std::vector<uint16_t> of;
  std::vector<std::vector<PortId>> sets;
  // Per set, the switches each of its ports leads through to the
  // destination (this one included), for a choice that weighs occupancy by
  // path length (UGAL); empty where every port of the set is as short.
  std::vector<std::vector<uint8_t>> hops;
  // Non-minimal choices (network.adaptive_routing=ugal): a packet that
  // arrives by an input port detour_from allows takes
  // sets[detour_of[destination]] instead (0: none).
  std::vector<uint16_t> detour_of;
  std::vector<uint8_t> detour_from;  // by input port, a DetourFrom

  [[nodiscard]] bool empty() const { return sets.size() <= 1; }
  // The set for a destination (0: the table's port).
  [[nodiscard]] uint16_t set_for(uint32_t destination) const { return of.empty() ? 0 : of[destination]; }
  // The same for a packet that arrived by input `in` on `lane`.
  [[nodiscard]] uint16_t set_for(uint32_t destination, uint32_t in, uint8_t lane) const {
    if (!detour_of.empty() && detour_of[destination] != 0) {
      const uint8_t from = detour_from[in];
      if (from == kDetourOnAnyLane || (from == kDetourOnLaneZero && lane == 0)) return detour_of[destination];
    }
    return set_for(destination);
  }
};

// The ports a packet may leave a switch by: the one its forwarding gives
// (held here, as a rule has no table to point into), or a choice set.
class PortCandidates {
 public:
  explicit PortCandidates(PortId only) : only_(only) {}
  explicit PortCandidates(std::span<const PortId> set) : set_(set) {}
  [[nodiscard]] const PortId* begin() const { return set_.empty() ? &only_ : set_.data(); }
  [[nodiscard]] const PortId* end() const { return begin() + size(); }
  [[nodiscard]] size_t size() const { return set_.empty() ? 1 : set_.size(); }
  [[nodiscard]] PortId operator[](size_t i) const { return begin()[i]; }
  // NOLINTNEXTLINE(google-explicit-constructor): a view of the same ports
  operator std::span<const PortId>() const { return {begin(), size()}; }

 private:
  PortId only_{0};
  std::span<const PortId> set_;  // empty: only_
};

struct SwitchSpec {
  uint16_t ports = 0;          // radix
  uint8_t level = 0;           // 0 = leaf (attached to nodes)
  std::vector<Endpoint> peer;  // size ports; kNone for unused ports
  Forwarding forwarding;  // output port by destination node id: a table, or the builder's rule (network/forwarding.h)
  // Per-hop virtual lanes (InfiniBand's SL-to-VL mapping, IBA vol. 1,
  // 7.6.6): the lane a packet leaves on, by (input port, output port, lane
  // it arrived on), at (in * ports + out) * kLaneMapLanes + lane. Empty: a
  // packet keeps its lane, as on every fabric without one.
  std::vector<uint8_t> lane_map;
  // The rate of the cable in each port, by port; empty when every cable of
  // the switch runs at the fabric's rate.
  std::vector<std::optional<CableRate>> port_rate;
  PortChoices choices;  // adaptive routing's; empty without it

  // The ports a packet to `destination` may leave by: its choice set, or the table's port.
  [[nodiscard]] PortCandidates candidates(uint32_t destination) const {
    return ports_of(choices.set_for(destination), destination);
  }
  // The same for a packet that arrived by `in` on `lane`, detours included.
  [[nodiscard]] PortCandidates candidates(uint32_t destination, uint32_t in, uint8_t lane) const {
    return ports_of(choices.set_for(destination, in, lane), destination);
  }
  // Choice set `set`'s ports, or for set 0 the table's port to `destination`.
  [[nodiscard]] PortCandidates ports_of(uint16_t set, uint32_t destination) const {
    if (set == 0) return PortCandidates(forwarding[destination]);
    return PortCandidates(choices.sets[set]);
  }

  [[nodiscard]] uint8_t out_lane(uint32_t in, uint32_t out, uint8_t lane) const {
    return lane_map.empty() ? lane : lane_map[(static_cast<size_t>(in) * ports + out) * kLaneMapLanes + lane];
  }
};

// The routing that keeps the tables the topology builder made (D-mod-K for a
// fat tree; minhop for a fabric read from ibnetdiscover).
inline constexpr const char* kTopologyOwnRouting = "topology";

struct TopologyParams {
  std::string name = "single-switch";         // network.topology
  uint32_t nodes = 0;                         // network.nodes; 0 = the topology's own size
  uint32_t switch_ports = 0;                  // network.switch_ports; 0 = smallest that fits
  ParameterValues own;                        // the topology's own parameters (network.<topology>.*)
  std::string routing = kTopologyOwnRouting;  // network.routing
  ParameterValues routing_own;                // the routing's own parameters (network.<routing>.*)
  std::string adaptive = "off";               // network.adaptive_routing (network/adaptive_routing.h)
  // network.virtual_lanes: the lanes a builder's lane maps may spread
  // packets over (a torus's dateline classes); NetworkParams::topology_params
  // sets it.
  uint32_t virtual_lanes = 1;

  // The named topology with its own parameters at their defaults, then `own` over them.
  static TopologyParams of(std::string name, uint32_t nodes = 0, const ParameterTable& own = {});
};

// How a fabric read from a real subnet names its parts: the local
// identifiers (LIDs) the subnet manager gave every switch and end port, and
// the switches' GUIDs. The loaded forwarding tables (network.routing=lft)
// are indexed by these, and OpenSM's minhop orders its work by them.
struct SubnetAddresses {
  std::string file;                  // the ibnetdiscover file it came from
  std::vector<uint16_t> node_lid;    // by node id (ids are in LID order)
  std::vector<uint16_t> switch_lid;  // by switch index (indices are in LID order)
  std::vector<uint64_t> switch_guid;
  std::string link_rate;   // node 0's link's generation, as the file gives it ("QDR")
  std::string link_width;  // and width ("4x"); Topology::node_rate and port_rate hold every cable's
};

// A count that describes a topology's shape beyond its nodes and switches
// (a fat tree's leaves, spines and cores), written into the run result's
// "topology" section with its unit and description.
struct ShapeCount {
  std::string name;
  std::string unit;
  std::string description;
  uint64_t value = 0;
};

// One switch a route crosses: where the packet leaves it and on which lane.
struct Hop {
  uint32_t switch_index = 0;
  PortId port{0};
  uint8_t lane = 0;
  bool operator==(const Hop&) const = default;
};

struct Topology {
  std::string name;
  uint32_t nodes = 0;
  std::vector<SwitchSpec> switches;
  std::vector<Endpoint> node_link;        // node i's card port 0 connects to this switch port
  std::optional<SubnetAddresses> subnet;  // only for a fabric read from a subnet
  std::vector<ShapeCount> shape;          // what the builder reports about its shape; may be empty
  // Virtual lanes the routing needs to be deadlock-free (network.virtual_lanes
  // must be at least this; check_virtual_lanes in network/routing.h), and
  // what needs them, for the message that refuses fewer.
  uint32_t lanes_needed = 1;
  std::string lanes_needed_by;
  // The rate of each node's cable, by node; empty when every node's cable
  // runs at the fabric's rate (every built topology: only a fabric read
  // from a subnet gives its cables their own rates).
  std::vector<std::optional<CableRate>> node_rate;

  // The cable rate at one end of a link (a node's card or a switch port),
  // if the topology gives it one.
  [[nodiscard]] std::optional<CableRate> rate_at(const Endpoint& end) const;
  // True if some cable has a rate of its own.
  [[nodiscard]] bool has_cable_rates() const;

  // True if any switch changes a packet's lane (SwitchSpec::lane_map).
  [[nodiscard]] bool maps_lanes() const;
  // True if any switch chooses among ports (SwitchSpec::choices).
  [[nodiscard]] bool adaptive() const;

  // Switches a packet traverses from src to dst, following the forwarding
  // tables (for closed-form latency checks). src == dst counts the leaf
  // switch that turns the packet around, as the tables do.
  // Throws std::out_of_range for a node id >= nodes and std::logic_error if
  // the tables loop, hit an unconnected port or deliver to the wrong node.
  [[nodiscard]] uint32_t switch_hops(NodeId src, NodeId dst) const;
  // The (switch index, output port) sequence from src to dst; same checks.
  [[nodiscard]] std::vector<std::pair<uint32_t, PortId>> route(NodeId src, NodeId dst) const;
  // The same route with the lane of every hop's output link, for a packet
  // its card sent on `lane`.
  [[nodiscard]] std::vector<Hop> hops(NodeId src, NodeId dst, uint8_t lane = 0) const;
};

// Looks params.name up in TopologyRegistry, then applies params.routing
// (RoutingRegistry, network/routing.h) and checks the routes it gives.
// Throws ConfigError naming the network.* key at fault.
Topology build_topology(const TopologyParams& params);

struct TopologyEntry {
  using Builder = std::function<Topology(const TopologyParams&)>;
  std::string name;
  std::string description;
  std::vector<ParameterInfo> parameters;  // its own, read from TopologyParams::own
  Builder build;
};

class TopologyRegistry : public Registry<TopologyEntry> {
 public:
  // Throws ConfigError (field "network.topology") for an unknown name.
  static const Entry& get(const std::string& name) { return Registry::get(name, "network.topology", "topology"); }
};

// Every topology's own parameters, topologies in name order.
std::vector<ParameterInfo> topology_parameters();

#define IBSEC_REGISTER_TOPOLOGY(NAME, DESCRIPTION, PARAMETERS, BUILDER_FN)                  \
  namespace {                                                                               \
  [[maybe_unused]] const bool registered_##BUILDER_FN =                                     \
      ::ibsec::network::TopologyRegistry::add({NAME, DESCRIPTION, PARAMETERS, BUILDER_FN}); \
  }

}  // namespace ibsec::network
