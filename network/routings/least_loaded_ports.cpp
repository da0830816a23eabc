#include "network/routings/least_loaded_ports.h"

#include <algorithm>
#include <numeric>

namespace ibsec::network {
namespace {

using Kind = Endpoint::Kind;

uint64_t byte_swapped(uint64_t value) {
  uint64_t swapped = 0;
  for (int byte = 0; byte < 8; ++byte, value >>= 8) swapped = (swapped << 8) | (value & 0xFF);
  return swapped;
}

uint32_t node_ports(const SwitchSpec& spec) {
  return static_cast<uint32_t>(
      std::ranges::count_if(spec.peer, [](const Endpoint& e) { return e.kind == Kind::kNode; }));
}

// OpenSM's port_order_list without a guid_routing_order_file
// (sort_ports_by_switch_load): switches in the order of its switch table,
// then stably sorted by the number of end ports they carry, most first;
// each switch's end ports in port order.
std::vector<uint32_t> destination_order(const Topology& topology) {
  std::vector<uint32_t> switches(topology.switches.size());
  std::iota(switches.begin(), switches.end(), 0U);
  std::ranges::sort(switches, {}, [&](uint32_t s) { return switch_table_key(topology, s); });
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
PortId least_loaded_min_hop_port(const SwitchSpec& spec, const std::vector<uint8_t>& via,
                                 const std::vector<uint32_t>& paths) {
  uint8_t least_hops = kNoPath;
  for (uint16_t port = 0; port < spec.ports; ++port) {
    if (spec.peer[port].kind == Kind::kSwitch) least_hops = std::min(least_hops, via[port]);
  }
  PortId best(spec.ports);  // uncabled: no path
  uint32_t least_paths = UINT32_MAX;
  if (least_hops == kNoPath) return best;
  for (uint16_t port = 0; port < spec.ports; ++port) {
    if (spec.peer[port].kind != Kind::kSwitch || via[port] != least_hops) continue;
    if (paths[port] < least_paths) {
      least_paths = paths[port];
      best = PortId(port);
    }
  }
  return best;
}

}  // namespace

uint64_t switch_table_key(const Topology& topology, uint32_t switch_index) {
  return topology.subnet ? byte_swapped(topology.subnet->switch_guid[switch_index]) : switch_index;
}

// Destination by destination rather than switch by switch as OpenSM goes:
// each switch counts its own paths, so the order of switches does not
// matter, and this way the hop counts to one destination switch are needed
// only while its nodes are routed.
void fill_least_loaded_tables(Topology& topology, const PortHopsTo& hops_to) {
  std::vector<std::vector<uint32_t>> paths(topology.switches.size());
  for (size_t s = 0; s < paths.size(); ++s) paths[s].assign(topology.switches[s].ports, 0);
  PortHops via;
  uint32_t via_target = UINT32_MAX;
  for (const uint32_t node : destination_order(topology)) {
    const Endpoint& leaf = topology.node_link[node];
    if (leaf.index != via_target) {
      via = hops_to(leaf.index);
      via_target = leaf.index;
    }
    for (uint32_t s = 0; s < topology.switches.size(); ++s) {
      SwitchSpec& spec = topology.switches[s];
      const PortId out = s == leaf.index ? leaf.port : least_loaded_min_hop_port(spec, via[s], paths[s]);
      spec.forwarding.set(node, out);
      if (out.value() < spec.ports) ++paths[s][out.value()];
    }
  }
}

}  // namespace ibsec::network
