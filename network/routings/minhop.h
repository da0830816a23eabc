// OpenSM's minhop routing (opensm/osm_ucast_mgr.c, osm_switch.c), entry
// for entry: every switch forwards each destination on a port of fewest
// hops, choosing among those the one it has given the fewest destinations
// so far, the lowest-numbered on a tie; destinations are taken in OpenSM's
// order (docs/topology.md, "minhop").
#pragma once

#include <cstdint>
#include <vector>

#include "network/topology.h"

namespace ibsec::network {

// Fills every switch's table of `topology`. A destination no switch path
// reaches is left on an uncabled port, for check_routes to report.
void route_minhop(Topology& topology);

// hops[s]: switch hops from switch s to switch `target` over
// switch-to-switch cables (kNoPath if none), as OpenSM's LID matrices hold
// them for the target's base LID.
std::vector<uint8_t> min_hop_distances(const Topology& topology, uint32_t target);

}  // namespace ibsec::network
