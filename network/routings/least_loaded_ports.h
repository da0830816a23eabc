// The port choice OpenSM's minhop and updn share (opensm/osm_ucast_mgr.c,
// osm_switch.c): destinations taken in OpenSM's order, each switch sending
// each one on the port, among those of fewest hops, that it has given the
// fewest destinations so far; the engines differ only in the hop counts
// (docs/topology.md, "minhop" and "updn").
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "network/topology.h"

namespace ibsec::network {

// OpenSM keeps hop counts in 8 bits, 0xFF meaning no path (OSM_NO_PATH).
inline constexpr uint8_t kNoPath = 0xFF;

// via[s][port]: switch hops from switch s to one destination switch when
// leaving s on `port`, kNoPath where that port leads to no allowed path:
// what OpenSM's hop table of switch s holds for the destination switch's
// base LID.
using PortHops = std::vector<std::vector<uint8_t>>;

// The hop counts to the switch with this index.
using PortHopsTo = std::function<PortHops(uint32_t destination_switch)>;

// The key OpenSM orders its switch table by: the GUID as stored, in network
// byte order, read on a little-endian host; a topology not read from a
// subnet takes switch indices for GUIDs.
uint64_t switch_table_key(const Topology& topology, uint32_t switch_index);

// Fills every switch's table. A destination no allowed path reaches is left
// on an uncabled port, for check_routes to report.
void fill_least_loaded_tables(Topology& topology, const PortHopsTo& hops_to);

}  // namespace ibsec::network
