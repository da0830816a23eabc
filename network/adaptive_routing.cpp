#include "network/adaptive_routing.h"

#include <algorithm>
#include <map>

#include "core/errors.h"
#include "network/routings/least_loaded_ports.h"
#include "network/routings/minhop.h"

namespace ibsec::network {
namespace {

using Kind = Endpoint::Kind;
constexpr const char* kField = "network.adaptive_routing";
constexpr uint32_t kUnreached = UINT32_MAX;

// The ports of switch s on a path of fewest hops to a node on another switch.
std::vector<PortId> minimal_ports(const SwitchSpec& spec, const std::vector<uint32_t>& hops, uint32_t s) {
  std::vector<PortId> ports;
  for (uint16_t p = 0; p < spec.ports; ++p) {
    const Endpoint& peer = spec.peer[p];
    if (peer.kind == Kind::kSwitch && hops[peer.index] + 1 == hops[s]) ports.emplace_back(p);
  }
  return ports;
}

// Each distinct set once per switch; set 0 is the empty one.
class ChoiceSets {
 public:
  // Sets a builder made already (detours, and a dragonfly+'s choices for a
  // detour's second leg) are kept, and so is a destination's set it chose.
  explicit ChoiceSets(SwitchSpec& spec) : spec_(spec) {
    PortChoices& choices = spec_.choices;
    if (choices.sets.empty()) choices.sets.assign(1, {});
    choices.hops.resize(choices.sets.size());
    choices.of.resize(spec_.forwarding.size(), 0);
  }
  // Whether `destination` has a set of the builder's, which stays.
  [[nodiscard]] bool builders(uint32_t destination) const { return spec_.choices.of[destination] != 0; }
  // The set of `ports`, added if it is new (never set 0).
  uint16_t index_of(const std::vector<PortId>& ports) {
    PortChoices& choices = spec_.choices;
    auto [at, added] = index_.try_emplace(ports, static_cast<uint16_t>(choices.sets.size()));
    if (added) {
      if (choices.sets.size() > UINT16_MAX) throw ConfigError(kField, "more than 65 535 port sets on a switch");
      choices.sets.push_back(ports);
      choices.hops.emplace_back();  // every port of a minimal set is as short
    }
    return at->second;
  }
  void assign(uint32_t destination, uint16_t set) { spec_.choices.of[destination] = set; }

 private:
  SwitchSpec& spec_;
  std::map<std::vector<PortId>, uint16_t> index_;
};

// A switch's shortest ports towards one switch of nodes, and their set
// once a node there has needed it (0 until then).
struct ShortestPorts {
  std::vector<PortId> ports;
  uint16_t set = 0;
};

void add_minimal_choices(Topology& topology) {
  std::vector<ChoiceSets> sets(topology.switches.begin(), topology.switches.end());
  // Nodes on one switch share their hop counts, hence every switch's
  // shortest ports towards them; consecutive nodes mostly sit on one
  // switch, so the ports are found once for the switch of the nodes in
  // turn, and each set is looked up once for them, not once a node.
  std::map<uint32_t, std::vector<uint32_t>> hops_by_switch;
  std::vector<ShortestPorts> shortest;
  uint32_t shortest_for = UINT32_MAX;
  for (uint32_t node = 0; node < topology.nodes; ++node) {
    const uint32_t node_switch = topology.node_link[node].index;
    auto [at, added] = hops_by_switch.try_emplace(node_switch);
    if (added) at->second = hops_to_switch(topology, node_switch);
    const std::vector<uint32_t>& hops = at->second;
    if (node_switch != shortest_for) {
      shortest.assign(topology.switches.size(), {});
      for (uint32_t s = 0; s < topology.switches.size(); ++s) {
        if (s != node_switch && hops[s] != kUnreached) shortest[s].ports = minimal_ports(topology.switches[s], hops, s);
      }
      shortest_for = node_switch;
    }
    for (uint32_t s = 0; s < topology.switches.size(); ++s) {
      if (s == node_switch || hops[s] == kUnreached) continue;
      ShortestPorts& minimal = shortest[s];
      // The table decides alone where its port is the one shortest port. A
      // table port off every shortest path (a switch no table route
      // crosses, or tables of more hops) is replaced too: every hop then
      // comes one switch nearer, so no mix of choices and tables can loop.
      // (The table is asked only when the set is that small.)
      const bool table_alone =
          minimal.ports.size() <= 1 &&
          std::ranges::find(minimal.ports, topology.switches[s].forwarding[node]) != minimal.ports.end();
      if (table_alone || sets[s].builders(node)) continue;
      if (minimal.set == 0) minimal.set = sets[s].index_of(minimal.ports);
      sets[s].assign(node, minimal.set);
    }
  }
}

}  // namespace

const std::vector<AdaptiveRoutingMode>& adaptive_routing_modes() {
  static const std::vector<AdaptiveRoutingMode> modes{
      {"off", "every packet follows the forwarding tables"},
      {"minimal", "each switch sends a packet on the least occupied of its ports on a path of fewest hops"},
      {"ugal",
       "minimal's choices, and on a dragonfly-plus routes through another group too, each port's occupancy weighed "
       "by its path's length (UGAL); needs 2 virtual lanes"},
  };
  return modes;
}

void check_adaptive_routing_mode(const std::string& mode) {
  std::string names;
  for (const AdaptiveRoutingMode& m : adaptive_routing_modes()) {
    if (mode == m.name) return;
    names += (names.empty() ? "" : ", ") + std::string(m.name);
  }
  throw ConfigError(kField, "must be one of " + names + ", got \"" + mode + "\"");
}

std::vector<uint32_t> hops_to_switch(const Topology& topology, uint32_t to) {
  const std::vector<uint8_t> between = min_hop_distances(topology, to);
  std::vector<uint32_t> hops(between.size());
  std::ranges::transform(between, hops.begin(),
                         [](uint8_t h) { return h == kNoPath ? kUnreached : static_cast<uint32_t>(h) + 1; });
  return hops;
}

bool add_choices(Topology& topology, const std::string& mode) {
  check_adaptive_routing_mode(mode);
  if (mode == "off") return false;
  const bool detours =
      std::ranges::any_of(topology.switches, [](const SwitchSpec& s) { return !s.choices.detour_of.empty(); });
  if (mode == "ugal" && !detours) {
    throw ConfigError(kField,
                      "ugal takes non-minimal routes that only the dragonfly-plus topology builds, with its "
                      "own routing; " +
                          topology.name + " has none: use minimal");
  }
  add_minimal_choices(topology);
  return true;
}

}  // namespace ibsec::network
