#include "network/routings/minhop.h"

#include <algorithm>
#include <deque>

#include "network/routing.h"
#include "network/routings/least_loaded_ports.h"

namespace ibsec::network {
namespace {

using Kind = Endpoint::Kind;

// Minhop counts every cabled port: one more than its neighbour's distance.
PortHops port_hops_to(const Topology& topology, uint32_t target) {
  const std::vector<uint8_t> distance = min_hop_distances(topology, target);
  PortHops via(topology.switches.size());
  for (size_t s = 0; s < via.size(); ++s) {
    const SwitchSpec& spec = topology.switches[s];
    via[s].assign(spec.ports, kNoPath);
    for (uint16_t port = 0; port < spec.ports; ++port) {
      const Endpoint& peer = spec.peer[port];
      if (peer.kind == Kind::kSwitch && distance[peer.index] != kNoPath)
        via[s][port] = static_cast<uint8_t>(std::min(distance[peer.index] + 1, +kNoPath));
    }
  }
  return via;
}

void route_minhop_with(Topology& topology, const ParameterValues&) { route_minhop(topology); }

}  // namespace

std::vector<uint8_t> min_hop_distances(const Topology& topology, uint32_t target) {
  std::vector<uint8_t> hops(topology.switches.size(), kNoPath);
  std::deque<uint32_t> queue{target};
  hops[target] = 0;
  while (!queue.empty()) {
    const uint32_t s = queue.front();
    queue.pop_front();
    for (const Endpoint& peer : topology.switches[s].peer) {
      if (peer.kind != Kind::kSwitch || hops[peer.index] != kNoPath) continue;
      hops[peer.index] = static_cast<uint8_t>(std::min(hops[s] + 1, kNoPath - 1));
      queue.push_back(peer.index);
    }
  }
  return hops;
}

void route_minhop(Topology& topology) {
  fill_least_loaded_tables(topology, [&](uint32_t target) { return port_hops_to(topology, target); });
}

IBSEC_REGISTER_ROUTING("minhop",
                       "OpenSM's minhop on any topology: fewest hops, then the port with fewest destinations so far, "
                       "then the lowest port; entry for entry as OpenSM 3.3 computes it",
                       {}, route_minhop_with)

}  // namespace ibsec::network
