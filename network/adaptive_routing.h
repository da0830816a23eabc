// Adaptive routing (network.adaptive_routing), as InfiniBand switches with
// adaptive routing enabled do it: a switch that has several ports towards a
// packet's destination sends it on the one with the fewest packets waiting
// for it. "minimal" offers, at every switch, every port on a path of fewest
// switch hops: on a fat tree every up port while the destination is not
// below, on a dragonfly+ every spine and global link that leads to the
// destination's group. "ugal" adds, where the topology builds them (a
// dragonfly+), non-minimal routes through another group, weighing each
// port's occupancy by the length of the path it leads on (Singh's UGAL).
// See docs/topology.md, "Adaptive routing".
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

// Switch hops from every switch to switch `to` (1 on it), over every cable;
// UINT32_MAX where none leads.
std::vector<uint32_t> hops_to_switch(const Topology& topology, uint32_t to);

// Gives every switch its choice sets for `mode` (SwitchSpec::choices)
// and returns true, or returns false for "off". Under "minimal" a switch
// keeps its table's port only where that is its one port on a path of
// fewest hops, so the tables matter only for the hop counts they imply; the
// routes' deadlock freedom is check_routes' to judge (network/routing.h).
// "ugal" needs the detour sets a topology builder made for it
// (PortChoices::detour_of) and refuses a topology without them.
bool add_choices(Topology& topology, const std::string& mode);

}  // namespace ibsec::network
