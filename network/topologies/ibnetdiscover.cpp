// A real fabric, read from the text `ibnetdiscover` prints
// (network.ibnetdiscover.file): its switches with their port counts and
// cables, and one node per cabled CA port. Node ids and switch indices
// follow the LIDs the subnet manager assigned, so both are stable across
// dumps of the same subnet. Every cable keeps the width and generation the
// file gives it (the reader has checked that both ends agree and that the
// link-rate table knows them), so a fabric may mix rates. Routed by minhop
// as OpenSM routes it unless network.routing says otherwise
// (docs/topology.md, "ibnetdiscover").
#include <algorithm>
#include <deque>
#include <map>
#include <string>

#include "core/errors.h"
#include "network/ibnetdiscover_file.h"
#include "network/routings/minhop.h"
#include "network/topology_wiring.h"

namespace ibsec::network {
namespace {

using namespace wiring;

constexpr const char* kFileKey = "network.ibnetdiscover.file";

struct CaPort {
  const SubnetDevice* ca;
  const SubnetLink* link;
};

// Switches and cabled CA ports in LID order; every LID used once.
struct LidOrder {
  std::vector<const SubnetDevice*> switches;
  std::vector<CaPort> nodes;
};

LidOrder order_by_lid(const SubnetFile& file) {
  LidOrder order;
  std::map<uint16_t, uint64_t> line_of_lid;
  auto claim = [&](uint16_t lid, uint64_t line) {
    const auto [at, added] = line_of_lid.emplace(lid, line);
    if (!added) {
      subnet_file_error(file, line, "lid",
                        "LID " + std::to_string(lid) + " is given twice (line " + std::to_string(at->second) + ")");
    }
  };
  for (const SubnetDevice& device : file.devices) {
    if (device.is_switch) {
      claim(device.lid, device.line);
      order.switches.push_back(&device);
      continue;
    }
    for (const SubnetLink& link : device.links) {
      claim(link.lid, link.line);
      order.nodes.push_back({&device, &link});
    }
  }
  std::ranges::sort(order.switches, {}, [](const SubnetDevice* s) { return s->lid; });
  std::ranges::sort(order.nodes, {}, [](const CaPort& p) { return p.link->lid; });
  if (order.switches.empty()) subnet_file_error(file, file.devices.front().line, "type", "no switch in the fabric");
  if (order.nodes.empty())
    subnet_file_error(file, file.devices.front().line, "type", "no cabled CA port in the fabric");
  return order;
}

void check_sizes(const TopologyParams& params, const LidOrder& order) {
  if (params.nodes != 0 && params.nodes != order.nodes.size()) {
    throw ConfigError("network.nodes", "must be 0 or the " + std::to_string(order.nodes.size()) +
                                           " cabled CA ports of the ibnetdiscover file, got " +
                                           std::to_string(params.nodes));
  }
  if (params.switch_ports != 0) {
    throw ConfigError("network.switch_ports",
                      "must be 0 for an ibnetdiscover fabric: the file gives every switch's ports");
  }
}

// Switches with nodes on them are level 0; every other switch is one more
// than its nearest such switch (for the result's per-switch table).
void set_levels(Topology& topology) {
  std::deque<uint32_t> queue;
  std::vector<bool> seen(topology.switches.size(), false);
  for (const Endpoint& at : topology.node_link) {
    if (!seen[at.index]) queue.push_back(at.index);
    seen[at.index] = true;
  }
  while (!queue.empty()) {
    const uint32_t s = queue.front();
    queue.pop_front();
    for (const Endpoint& peer : topology.switches[s].peer) {
      if (peer.kind != Endpoint::Kind::kSwitch || seen[peer.index]) continue;
      seen[peer.index] = true;
      topology.switches[peer.index].level = static_cast<uint8_t>(std::min(topology.switches[s].level + 1, 255));
      queue.push_back(peer.index);
    }
  }
}

// Switch port numbers are InfiniBand's: port 0 is the switch's own
// management port and stays uncabled, ports 1..n carry cables.
Topology wire(const SubnetFile& file, const LidOrder& order) {
  const auto nodes = static_cast<uint32_t>(order.nodes.size());
  Topology topology = unwired_topology("ibnetdiscover", nodes);
  SubnetAddresses addresses{.file = file.path,
                            .node_lid = {},
                            .switch_lid = {},
                            .switch_guid = {},
                            .link_rate = order.nodes.front().link->generation,
                            .link_width = order.nodes.front().link->width};
  std::map<std::string, uint32_t> switch_index;
  for (const SubnetDevice* device : order.switches) {
    switch_index[device->id] = static_cast<uint32_t>(topology.switches.size());
    topology.switches.push_back(make_switch(device->ports + 1U, 0, nodes));
    addresses.switch_lid.push_back(device->lid);
    addresses.switch_guid.push_back(device->guid);
  }
  for (uint32_t node = 0; node < nodes; ++node) {
    const SubnetLink& link = *order.nodes[node].link;
    const auto remote = switch_index.find(link.remote);
    if (remote == switch_index.end()) {
      subnet_file_error(file, link.line, "remote",
                        "a CA cabled to another CA is not modelled: \"" + link.remote + "\"");
    }
    connect(topology, node_card(node), switch_port(remote->second, link.remote_port));
    set_cable_rate(topology, node_card(node), switch_port(remote->second, link.remote_port),
                   {link.generation, link.width});
    addresses.node_lid.push_back(link.lid);
  }
  for (const SubnetDevice* device : order.switches) {
    for (const SubnetLink& link : device->links) {
      const auto remote = switch_index.find(link.remote);
      if (remote == switch_index.end()) continue;  // a CA: cabled above
      connect(topology, switch_port(switch_index[device->id], link.port),
              switch_port(remote->second, link.remote_port));
      set_cable_rate(topology, switch_port(switch_index[device->id], link.port),
                     switch_port(remote->second, link.remote_port), {link.generation, link.width});
    }
  }
  topology.subnet = std::move(addresses);
  set_levels(topology);
  return topology;
}

Topology build_ibnetdiscover(const TopologyParams& params) {
  const std::string path = params.own.text(kFileKey);
  if (path.empty()) throw ConfigError(kFileKey, "give the file ibnetdiscover printed for the fabric");
  const SubnetFile file = read_ibnetdiscover(path, kFileKey);
  const LidOrder order = order_by_lid(file);
  check_sizes(params, order);
  Topology topology = wire(file, order);
  route_minhop(topology);
  return topology;
}

}  // namespace

IBSEC_REGISTER_TOPOLOGY("ibnetdiscover",
                        "a real fabric from ibnetdiscover's output; nodes are its cabled CA ports in LID order; "
                        "routed by OpenSM's minhop unless network.routing says otherwise",
                        (std::vector<ParameterInfo>{
                            {"network.ibnetdiscover.file", "", "path",
                             "the text `ibnetdiscover` printed for the fabric (docs/topology.md)", "input"},
                        }),
                        build_ibnetdiscover)

}  // namespace ibsec::network
