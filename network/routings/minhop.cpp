#include "network/routings/minhop.h"

#include <algorithm>
#include <deque>
#include <numeric>

#include "network/routing.h"

namespace ibsec::network {
namespace {

using Kind = Endpoint::Kind;

// OpenSM keeps hop counts in 8 bits, 0xFF meaning no path (OSM_NO_PATH).
constexpr uint8_t kNoPath = 0xFF;

uint64_t byte_swapped(uint64_t value) {
  uint64_t swapped = 0;
  for (int byte = 0; byte < 8; ++byte, value >>= 8) swapped = (swapped << 8) | (value & 0xFF);
  return swapped;
}

// hops[t][s]: switch hops from switch s to switch t over switch-to-switch
// cables, as OpenSM's LID matrices hold them for every switch's base LID.
std::vector<std::vector<uint8_t>> switch_distances(const Topology& topology) {
  const size_t count = topology.switches.size();
  std::vector<std::vector<uint8_t>> hops(count, std::vector<uint8_t>(count, kNoPath));
  for (size_t target = 0; target < count; ++target) {
    std::deque<uint32_t> queue{static_cast<uint32_t>(target)};
    hops[target][target] = 0;
    while (!queue.empty()) {
      const uint32_t s = queue.front();
      queue.pop_front();
      for (const Endpoint& peer : topology.switches[s].peer) {
        if (peer.kind != Kind::kSwitch || hops[target][peer.index] != kNoPath) continue;
        hops[target][peer.index] = static_cast<uint8_t>(std::min(hops[target][s] + 1, kNoPath - 1));
        queue.push_back(peer.index);
      }
    }
  }
  return hops;
}

uint32_t node_ports(const SwitchSpec& spec) {
  return static_cast<uint32_t>(
      std::ranges::count_if(spec.peer, [](const Endpoint& e) { return e.kind == Kind::kNode; }));
}

// OpenSM's port_order_list without a guid_routing_order_file
// (sort_ports_by_switch_load): switches in the order of its switch table,
// a map keyed by the GUID as stored, in network byte order, and so on a
// little-endian host ordered by the byte-swapped GUID; then stably sorted
// by the number of end ports they carry, most first; each switch's end
// ports in port order. A topology not read from a subnet takes switch
// indices for GUIDs.
std::vector<uint32_t> destination_order(const Topology& topology) {
  std::vector<uint32_t> switches(topology.switches.size());
  std::iota(switches.begin(), switches.end(), 0U);
  auto table_key = [&](uint32_t s) { return topology.subnet ? byte_swapped(topology.subnet->switch_guid[s]) : s; };
  std::ranges::sort(switches, {}, table_key);
  std::ranges::stable_sort(switches, std::greater<>(), [&](uint32_t s) { return node_ports(topology.switches[s]); });
  std::vector<uint32_t> order;
  order.reserve(topology.nodes);
  for (const uint32_t s : switches) {
    for (const Endpoint& peer : topology.switches[s].peer) {
      if (peer.kind == Kind::kNode) order.push_back(peer.index);
    }
  }
  return order;
}

// osm_switch_recommend_path with LMC 0 and no port shifting or scattering:
// among the cabled ports of fewest hops to the destination's switch, the
// one with fewest paths counted so far; the first such in port order.
// OpenSM scans ports 1..n and skips port 0 (management); here port 0 is
// uncabled on a subnet's switches and a real port elsewhere, so scanning
// from 0 is the same rule.
PortId least_loaded_min_hop_port(const SwitchSpec& spec, const std::vector<uint8_t>& hops_to_leaf,
                                 const std::vector<uint32_t>& paths) {
  uint32_t least_hops = kNoPath;
  for (const Endpoint& peer : spec.peer) {
    if (peer.kind == Kind::kSwitch) least_hops = std::min<uint32_t>(least_hops, hops_to_leaf[peer.index] + 1U);
  }
  PortId best(spec.ports);  // uncabled: no path
  uint32_t least_paths = UINT32_MAX;
  if (least_hops >= kNoPath) return best;
  for (uint16_t port = 0; port < spec.ports; ++port) {
    const Endpoint& peer = spec.peer[port];
    if (peer.kind != Kind::kSwitch || hops_to_leaf[peer.index] + 1U != least_hops) continue;
    if (paths[port] < least_paths) {
      least_paths = paths[port];
      best = PortId(port);
    }
  }
  return best;
}

void fill_table(Topology& topology, uint32_t s, const std::vector<uint32_t>& order,
                const std::vector<std::vector<uint8_t>>& hops) {
  SwitchSpec& spec = topology.switches[s];
  std::vector<uint32_t> paths(spec.ports, 0);
  for (const uint32_t node : order) {
    const Endpoint& leaf = topology.node_link[node];
    const PortId out = leaf.index == s ? leaf.port : least_loaded_min_hop_port(spec, hops[leaf.index], paths);
    spec.forwarding[node] = out;
    if (out.value() < spec.ports) ++paths[out.value()];
  }
}

void route_minhop_with(Topology& topology, const ParameterValues&) { route_minhop(topology); }

}  // namespace

void route_minhop(Topology& topology) {
  const auto hops = switch_distances(topology);
  const std::vector<uint32_t> order = destination_order(topology);
  for (uint32_t s = 0; s < topology.switches.size(); ++s) fill_table(topology, s, order, hops);
}

IBSEC_REGISTER_ROUTING("minhop",
                       "OpenSM's minhop on any topology: fewest hops, then the port with fewest destinations so far, "
                       "then the lowest port; entry for entry as OpenSM 3.3 computes it",
                       {}, route_minhop_with)

}  // namespace ibsec::network
