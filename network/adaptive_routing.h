// Adaptive routing (network.adaptive_routing), as InfiniBand switches with
// adaptive routing enabled do it: a switch that has several ports towards a
// packet's destination sends it on the one with the fewest packets waiting
// for it. "minimal" offers, at every switch, every port on a path of fewest
// switch hops: on a fat tree every up port while the destination is not
// below, on a dragonfly+ every spine and global link that leads to the
// destination's group. See docs/topology.md, "Adaptive routing".
#pragma once

#include <string>
#include <vector>

#include "network/topology.h"

namespace ibsec::network {

struct AdaptiveRoutingMode {
  const char* name;
  const char* description;
};

// The modes network.adaptive_routing accepts, "off" first.
const std::vector<AdaptiveRoutingMode>& adaptive_routing_modes();

// Throws ConfigError naming network.adaptive_routing for an unknown mode.
void check_adaptive_routing_mode(const std::string& mode);

// Gives every switch its choice sets for `mode` (SwitchSpec::choice_sets)
// and returns true, or returns false for "off". Under "minimal" a switch
// keeps its table's port only where that is its one port on a path of
// fewest hops, so the tables matter only for the hop counts they imply; the
// routes' deadlock freedom is check_routes' to judge (network/routing.h).
bool add_choices(Topology& topology, const std::string& mode);

}  // namespace ibsec::network
