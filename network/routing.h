// Routing engines that fill a topology's forwarding tables after it is
// wired, chosen by name (network.routing), and the checks every table set
// they produce must pass: every destination reachable from every node, no
// loop, and an acyclic channel-dependency graph (deadlock freedom on one
// virtual lane). See docs/topology.md, "Routing".
//
// Adding one means one file under network/routings/ with a function
// `void f(Topology&, const RoutingParams&)`, registered with
// IBSEC_REGISTER_ROUTING together with its own parameters
// (network.<routing>.*), and its line in network/CMakeLists.txt.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/parameters.h"
#include "core/registry.h"
#include "network/topology.h"

namespace ibsec::network {

struct RoutingEntry {
  using Router = std::function<void(Topology&, const ParameterValues& own)>;
  std::string name;
  std::string description;
  std::vector<ParameterInfo> parameters;  // its own, read from TopologyParams::routing_own
  Router route;
};

class RoutingRegistry : public Registry<RoutingEntry> {
 public:
  // Throws ConfigError (field "network.routing") for an unknown name.
  static const Entry& get(const std::string& name) { return Registry::get(name, "network.routing", "routing"); }
};

// Every routing's own parameters, routings in name order.
std::vector<ParameterInfo> routing_parameters();

// network.routing's names: the registered routings and kTopologyOwnRouting.
bool is_routing_name(const std::string& name);

// One output port of one switch, on one virtual lane: a channel of the
// dependency graph. The lane is 0 unless the topology maps lanes per hop.
struct Channel {
  uint32_t switch_index = 0;
  PortId port{0};
  uint8_t lane = 0;
  bool operator==(const Channel&) const = default;
};

// A cycle of the channel-dependency graph of the routes the tables give
// between every pair of nodes (Dally and Seitz): each channel is held while
// the next is requested, so the last one waits on the first. Empty if the
// graph is acyclic. Throws std::logic_error as Topology::route does.
// Without lane maps every lane carries the same routes independently, so
// the graph is taken on one; with them its channels are (port, lane) pairs,
// and a route starts from its card on each of the 16 lanes in turn.
// Without lane maps, a destination whose routes are an earlier one's but
// for the last hop adds nothing to the graph that could close a cycle, and
// is left out unless `grouping` says otherwise (the same cycle either way;
// the option is for the test that shows it).
enum class DestinationGrouping : uint8_t { kSameRoutesOnce, kEveryDestination };
std::vector<Channel> dependency_cycle(const Topology& topology,
                                      DestinationGrouping grouping = DestinationGrouping::kSameRoutesOnce);

// "switch 3 (LID 7) port 2": how messages name a switch of the topology.
std::string switch_name(const Topology& topology, uint32_t switch_index);

// Every pair routed and the dependency graph acyclic; else ConfigError
// naming `field` and the first unreachable pair or a cycle.
void check_routes(const Topology& topology, const std::string& field);

// The topology's lane maps with every lane above `lanes` - 1 folded onto the
// highest that exists: what its routes become on that many lanes.
Topology on_lanes(Topology topology, uint32_t lanes);

// ConfigError naming network.virtual_lanes when `lanes` is fewer than the
// topology's routing needs, with what needs them and, if there is one, the
// cycle its channel dependencies close on that many lanes.
void check_virtual_lanes(const Topology& topology, uint32_t lanes);

#define IBSEC_REGISTER_ROUTING(NAME, DESCRIPTION, PARAMETERS, ROUTER_FN)                  \
  namespace {                                                                             \
  [[maybe_unused]] const bool registered_##ROUTER_FN =                                    \
      ::ibsec::network::RoutingRegistry::add({NAME, DESCRIPTION, PARAMETERS, ROUTER_FN}); \
  }

}  // namespace ibsec::network
