#include "network/routing.h"

#include <algorithm>
#include <span>
#include <stdexcept>

#include <boost/container/small_vector.hpp>

#include "core/errors.h"

namespace ibsec::network {
namespace {

using Kind = Endpoint::Kind;

// Channels numbered densely: switch s's port p is offset[s] + p.
class ChannelNumbers {
 public:
  explicit ChannelNumbers(const Topology& topology) {
    offset_.reserve(topology.switches.size() + 1);
    uint32_t next = 0;
    for (const SwitchSpec& spec : topology.switches) {
      offset_.push_back(next);
      next += spec.ports;
    }
    offset_.push_back(next);
  }
  [[nodiscard]] uint32_t size() const { return offset_.back(); }
  [[nodiscard]] uint32_t of(uint32_t switch_index, PortId port) const { return offset_[switch_index] + port.value(); }
  [[nodiscard]] Channel channel(uint32_t number) const {
    const auto after = std::ranges::upper_bound(offset_, number);
    const auto index = static_cast<uint32_t>(after - offset_.begin() - 1);
    return {index, PortId(static_cast<uint16_t>(number - offset_[index]))};
  }

 private:
  std::vector<uint32_t> offset_;
};

std::string node_name(const Topology& topology, uint32_t node) {
  std::string name = "node " + std::to_string(node);
  if (topology.subnet) name += " (LID " + std::to_string(topology.subnet->node_lid[node]) + ")";
  return name;
}

[[noreturn]] void unroutable(const Topology& topology, uint32_t src, uint32_t dst, const std::string& what) {
  throw std::logic_error("route " + node_name(topology, src) + " -> " + node_name(topology, dst) + ": " + what);
}

// Follows every node's route to one destination, sharing the switches
// already known to reach it, so all pairs cost O(nodes x (nodes + switches))
// instead of O(nodes^2 x hops).
class RoutesToOneNode {
 public:
  RoutesToOneNode(const Topology& topology, uint32_t dst)
      : topology_(topology), dst_(dst), state_(topology.switches.size(), State::kUnknown) {}

  void follow_all() {
    for (uint32_t src = 0; src < topology_.nodes; ++src) {
      // The nodes of a switch whose route is known add nothing: most of them.
      const Endpoint& at = topology_.node_link[src];
      if (at.kind != Kind::kSwitch || state_[at.index] != State::kReaches) follow(src);
    }
  }

 private:
  enum class State : uint8_t { kUnknown, kOnThisWalk, kReaches };

  void follow(uint32_t src) {
    walk_.clear();
    Endpoint at = topology_.node_link[src];
    while (at.kind == Kind::kSwitch && state_[at.index] == State::kUnknown) {
      state_[at.index] = State::kOnThisWalk;
      walk_.push_back(at.index);
      at = next_hop(src, at.index);
    }
    if (at.kind == Kind::kSwitch && state_[at.index] == State::kOnThisWalk) {
      unroutable(topology_, src, dst_, "forwarding loop through " + switch_name(topology_, at.index));
    }
    if (at.kind == Kind::kNode && at.index != dst_) {
      unroutable(topology_, src, dst_, "delivered to " + node_name(topology_, at.index));
    }
    if (at.kind == Kind::kNone) unroutable(topology_, src, dst_, "left the fabric");
    for (const uint32_t s : walk_) state_[s] = State::kReaches;
  }

  Endpoint next_hop(uint32_t src, uint32_t switch_index) const {
    const SwitchSpec& spec = topology_.switches[switch_index];
    const PortId out = spec.forwarding[dst_];
    if (out.value() >= spec.ports || spec.peer[out.value()].kind == Kind::kNone) {
      unroutable(topology_, src, dst_,
                 switch_name(topology_, switch_index) + " forwards to port " + std::to_string(out.value()) +
                     ", which is not cabled");
    }
    return spec.peer[out.value()];
  }

  const Topology& topology_;
  uint32_t dst_;
  std::vector<State> state_;
  std::vector<uint32_t> walk_;  // the switches of the walk being followed (kept for its capacity)
};

// The switches nodes are cabled to, each once, in the order of their first node.
std::vector<uint32_t> node_switches(const Topology& topology) {
  std::vector<uint32_t> switches;
  std::vector<bool> seen(topology.switches.size(), false);
  for (const Endpoint& at : topology.node_link) {
    if (at.kind != Kind::kSwitch || seen[at.index]) continue;
    seen[at.index] = true;
    switches.push_back(at.index);
  }
  return switches;
}

// The switches a packet to dst can cross from any node (from the switches
// of `node_switches`), on any port its switches may choose (SwitchSpec::
// candidates).
std::vector<bool> switches_towards(const Topology& topology, std::span<const uint32_t> node_switches, uint32_t dst) {
  std::vector<bool> reached(topology.switches.size(), false);
  std::vector<uint32_t> stack;
  auto visit = [&](const Endpoint& at) {
    if (at.kind != Kind::kSwitch || reached[at.index]) return;
    reached[at.index] = true;
    stack.push_back(at.index);
  };
  for (const uint32_t s : node_switches) visit(Endpoint{Kind::kSwitch, s});
  while (!stack.empty()) {
    const SwitchSpec& spec = topology.switches[stack.back()];
    stack.pop_back();
    for (const PortId out : spec.candidates(dst)) visit(spec.peer[out.value()]);
  }
  return reached;
}

// Whether a destination's routes are, but for its last hop, those of an
// earlier destination on the same switch: the same choice set at every
// other switch (or, without one, the same table port), and at their
// switch ports that lead to nodes only. The first destination seen on a
// switch is the one the others are compared with; its ports are kept by
// switch until a destination of another switch comes (nodes of a switch
// are usually numbered together).
class SameRoutes {
 public:
  explicit SameRoutes(const Topology& topology)
      : topology_(topology), first_(topology.switches.size(), kNone), ports_(topology.switches.size()) {}

  bool as_earlier(uint32_t dst) {
    const Endpoint& at = topology_.node_link[dst];
    if (at.kind != Kind::kSwitch) return false;
    if (first_[at.index] == kNone) {
      first_[at.index] = dst;
      return false;
    }
    if (!only_to_nodes(at.index, dst) || !only_to_nodes(at.index, first_[at.index])) return false;
    keep_ports_of(first_[at.index]);
    for (uint32_t s = 0; s < topology_.switches.size(); ++s) {
      if (s != at.index && ports(s, dst) != ports_[s]) return false;
    }
    return true;
  }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  // A switch's choice set for a destination, and without one its table port.
  struct Ports {
    uint16_t set = 0;
    PortId port{0};
    bool operator==(const Ports&) const = default;
  };

  [[nodiscard]] Ports ports(uint32_t s, uint32_t dst) const {
    const SwitchSpec& spec = topology_.switches[s];
    const uint16_t set = spec.choices.set_for(dst);
    return set != 0 ? Ports{set, PortId(0)} : Ports{0, spec.forwarding[dst]};
  }
  [[nodiscard]] bool only_to_nodes(uint32_t s, uint32_t dst) const {
    const SwitchSpec& spec = topology_.switches[s];
    return std::ranges::all_of(spec.candidates(dst), [&](PortId out) {
      return out.value() < spec.ports && spec.peer[out.value()].kind == Kind::kNode;
    });
  }
  void keep_ports_of(uint32_t dst) {
    if (kept_for_ == dst) return;
    for (uint32_t s = 0; s < topology_.switches.size(); ++s) ports_[s] = ports(s, dst);
    kept_for_ = dst;
  }

  const Topology& topology_;
  std::vector<uint32_t> first_;  // by switch: the first destination on it
  std::vector<Ports> ports_;     // by switch: kept_for_'s
  uint32_t kept_for_ = kNone;
};

void sort_unique(std::vector<std::vector<uint32_t>>& next) {
  for (auto& targets : next) {
    std::ranges::sort(targets);
    targets.erase(std::ranges::unique(targets).begin(), targets.end());
  }
}

// Adds the edge unless it is there: a channel has as many successors as the
// next switch has ports at most, while the routes to every destination
// repeat each edge once a destination (sorting the repeats away afterwards
// took a fifth of a 1 024-node adaptive run's instructions).
void add_edge(std::vector<uint32_t>& targets, uint32_t to) {
  if (std::ranges::find(targets, to) == targets.end()) targets.push_back(to);
}

// The dependency graph: channel a -> channel b when a route leaves a switch
// on a and the next switch on b; with adaptive routing, on any of the ports
// each may choose. Each channel's successors in increasing order. Edges
// into channels that lead to a node are left out where another
// destination's edges are the same but for them (SameRoutes): such a
// channel has no successor, so no cycle passes through it, and first_cycle
// finds the same cycle with or without them.
std::vector<std::vector<uint32_t>> dependency_graph(const Topology& topology, const ChannelNumbers& numbers,
                                                    DestinationGrouping grouping) {
  std::vector<std::vector<uint32_t>> next(numbers.size());
  // By channel, the choice sets of the next switch whose ports are added
  // already: a set's edges need adding once, whichever destination chose it.
  std::vector<boost::container::small_vector<uint16_t, 4>> sets_added(numbers.size());
  const std::vector<uint32_t> starts = node_switches(topology);
  SameRoutes same_routes(topology);
  for (uint32_t dst = 0; dst < topology.nodes; ++dst) {
    RoutesToOneNode(topology, dst).follow_all();  // every table route reaches dst without a loop, else it throws
    if (grouping == DestinationGrouping::kSameRoutesOnce && same_routes.as_earlier(dst)) continue;
    const std::vector<bool> reached = switches_towards(topology, starts, dst);
    for (uint32_t s = 0; s < topology.switches.size(); ++s) {
      if (!reached[s]) continue;
      for (const PortId out : topology.switches[s].candidates(dst)) {
        const Endpoint& peer = topology.switches[s].peer[out.value()];
        if (peer.kind != Kind::kSwitch) continue;
        const uint32_t from = numbers.of(s, out);
        const SwitchSpec& then_at = topology.switches[peer.index];
        const uint16_t set = then_at.choices.set_for(dst);
        if (set != 0) {
          if (std::ranges::find(sets_added[from], set) != sets_added[from].end()) continue;
          sets_added[from].push_back(set);
        }
        for (const PortId then : then_at.ports_of(set, dst)) add_edge(next[from], numbers.of(peer.index, then));
      }
    }
  }
  for (auto& targets : next) std::ranges::sort(targets);
  return next;
}

// With lane maps the graph's vertices are (channel, lane) pairs, numbered
// channel * kLaneMapLanes + lane. Given the destination, a vertex fixes
// where the packet arrives next and on which lane, hence the vertices it can
// request there. So each vertex is expanded once per destination, and a
// route that reaches one already expanded adds its edge into it and stops; a
// card's 16 lanes at its switch collapse at once onto the few output lanes
// they map to.
constexpr uint32_t kNoChannel = UINT32_MAX;

std::vector<std::vector<uint32_t>> lane_dependency_graph(const Topology& topology, const ChannelNumbers& numbers) {
  std::vector<std::vector<uint32_t>> next(static_cast<size_t>(numbers.size()) * kLaneMapLanes);
  std::vector<uint32_t> expanded_for(next.size(), UINT32_MAX);  // by vertex: the destination it was last expanded to
  struct Arrival {
    Endpoint at;    // the switch and input port
    uint8_t lane;   // arrived on
    uint32_t held;  // the (channel, lane) the packet holds while it requests the next
  };
  std::vector<Arrival> work;
  for (uint32_t dst = 0; dst < topology.nodes; ++dst) {
    RoutesToOneNode(topology, dst).follow_all();  // every table route reaches dst without a loop, else it throws
    for (uint32_t src = 0; src < topology.nodes; ++src) {
      for (uint32_t start = 0; start < kLaneMapLanes; ++start) {
        work.push_back({topology.node_link[src], static_cast<uint8_t>(start), kNoChannel});
      }
      while (!work.empty()) {
        const Arrival arrival = work.back();
        work.pop_back();
        if (arrival.at.kind != Kind::kSwitch) continue;
        const SwitchSpec& spec = topology.switches[arrival.at.index];
        for (const PortId out : spec.candidates(dst, arrival.at.port.value(), arrival.lane)) {
          const uint8_t out_lane = spec.out_lane(arrival.at.port.value(), out.value(), arrival.lane);
          if (out_lane >= kLaneMapLanes) {
            unroutable(topology, src, dst,
                       switch_name(topology, arrival.at.index) + " maps to lane " + std::to_string(out_lane) +
                           ", which does not exist");
          }
          const uint32_t vertex = numbers.of(arrival.at.index, out) * kLaneMapLanes + out_lane;
          if (arrival.held != kNoChannel) next[arrival.held].push_back(vertex);
          if (expanded_for[vertex] == dst) continue;
          expanded_for[vertex] = dst;
          work.push_back({spec.peer[out.value()], out_lane, vertex});
        }
      }
    }
  }
  sort_unique(next);
  return next;
}

// Iterative depth-first search (a deep recursion could overflow the stack on
// a large fabric); returns the channels of the first cycle found, in order.
std::vector<uint32_t> first_cycle(const std::vector<std::vector<uint32_t>>& next) {
  enum class Colour : uint8_t { kWhite, kGrey, kBlack };
  std::vector<Colour> colour(next.size(), Colour::kWhite);
  struct Frame {
    uint32_t channel;
    size_t child;
  };
  for (uint32_t root = 0; root < next.size(); ++root) {
    if (colour[root] != Colour::kWhite) continue;
    std::vector<Frame> stack{{root, 0}};
    colour[root] = Colour::kGrey;
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.child == next[top.channel].size()) {
        colour[top.channel] = Colour::kBlack;
        stack.pop_back();
        continue;
      }
      const uint32_t child = next[top.channel][top.child++];
      if (colour[child] == Colour::kGrey) {
        auto from = std::ranges::find_if(stack, [&](const Frame& f) { return f.channel == child; });
        std::vector<uint32_t> cycle;
        for (; from != stack.end(); ++from) cycle.push_back(from->channel);
        return cycle;
      }
      if (colour[child] == Colour::kWhite) {
        colour[child] = Colour::kGrey;
        stack.push_back({child, 0});
      }
    }
  }
  return {};
}

std::string cycle_text(const Topology& topology, const std::vector<Channel>& cycle) {
  const bool lanes = topology.maps_lanes();
  std::string text;
  for (const Channel& c : cycle) {
    text += switch_name(topology, c.switch_index) + " port " + std::to_string(c.port.value());
    if (lanes) text += " lane " + std::to_string(c.lane);
    text += " -> ";
  }
  return text + "back to the first";
}

}  // namespace

std::vector<ParameterInfo> routing_parameters() {
  std::vector<ParameterInfo> all;
  for (const RoutingEntry* entry : RoutingRegistry::sorted()) {
    all.insert(all.end(), entry->parameters.begin(), entry->parameters.end());
  }
  return all;
}

bool is_routing_name(const std::string& name) {
  const std::vector<std::string> names = RoutingRegistry::names();
  return name == kTopologyOwnRouting || std::ranges::find(names, name) != names.end();
}

std::string switch_name(const Topology& topology, uint32_t switch_index) {
  std::string name = "switch " + std::to_string(switch_index);
  if (topology.subnet) name += " (LID " + std::to_string(topology.subnet->switch_lid[switch_index]) + ")";
  return name;
}

std::vector<Channel> dependency_cycle(const Topology& topology, DestinationGrouping grouping) {
  const ChannelNumbers numbers(topology);
  std::vector<Channel> cycle;
  if (!topology.maps_lanes()) {
    for (const uint32_t number : first_cycle(dependency_graph(topology, numbers, grouping))) {
      cycle.push_back(numbers.channel(number));
    }
    return cycle;
  }
  for (const uint32_t number : first_cycle(lane_dependency_graph(topology, numbers))) {
    Channel channel = numbers.channel(number / kLaneMapLanes);
    channel.lane = static_cast<uint8_t>(number % kLaneMapLanes);
    cycle.push_back(channel);
  }
  return cycle;
}

void check_routes(const Topology& topology, const std::string& field) {
  std::vector<Channel> cycle;
  try {
    cycle = dependency_cycle(topology);
  } catch (const std::logic_error& broken) {
    throw ConfigError(field, std::string("the forwarding tables do not route every pair: ") + broken.what());
  }
  if (!cycle.empty()) {
    throw ConfigError(field,
                      std::string(topology.adaptive()
                                      ? "the routes adaptive routing may choose can deadlock: their channel-dependency "
                                        "graph has the cycle "
                                      : "the forwarding tables can deadlock: their channel-dependency graph has the "
                                        "cycle ") +
                          cycle_text(topology, cycle) +
                          (topology.maps_lanes() ? " (docs/topology.md)"
                                                 : " (every session may use any virtual lane, so the tables must be "
                                                   "deadlock-free on one; docs/topology.md)"));
  }
}

Topology on_lanes(Topology topology, uint32_t lanes) {
  const auto highest = static_cast<uint8_t>(std::clamp<uint32_t>(lanes, 1, kLaneMapLanes) - 1);
  for (SwitchSpec& spec : topology.switches) {
    for (size_t pair = 0; pair < spec.lane_map.size(); pair += kLaneMapLanes) {
      for (uint32_t lane = 0; lane < kLaneMapLanes; ++lane) {
        uint8_t& entry = spec.lane_map[pair + lane];
        // A packet arrives on no lane above the highest: take that one's entry.
        entry = lane > highest ? spec.lane_map[pair + highest] : std::min(entry, highest);
      }
    }
  }
  return topology;
}

void check_virtual_lanes(const Topology& topology, uint32_t lanes) {
  if (lanes >= topology.lanes_needed) return;
  std::string text = (topology.lanes_needed_by.empty() ? std::string("the routing") : topology.lanes_needed_by) +
                     " needs " + std::to_string(topology.lanes_needed) + " virtual lanes, got " + std::to_string(lanes);
  const std::vector<Channel> cycle = dependency_cycle(on_lanes(topology, lanes));
  if (!cycle.empty()) {
    text += "; on " + std::to_string(lanes) + (lanes == 1 ? " lane" : " lanes") +
            " its channel-dependency graph has the cycle " + cycle_text(topology, cycle);
  }
  throw ConfigError("network.virtual_lanes", text + " (docs/topology.md)");
}

}  // namespace ibsec::network
