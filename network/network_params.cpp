#include "network/network_params.h"

#include "network/link_rate.h"

namespace ibsec::network {
namespace {

constexpr uint32_t kMaxVirtualLanes = 15;  // data VLs of InfiniBand (IBA vol. 1, 7.6)

void read_topology(const ParameterValues& v, const std::string& key, NetworkParams& net) {
  net.topology.name = v.text(key);
  net.topology.own = v.subset(TopologyRegistry::get(net.topology.name).parameters);
}

void read_link_rate(const ParameterValues& v, const std::string& key, NetworkParams& net) {
  net.link_rate = v.text(key);
  link_rate(net.link_rate);  // rejects unknown names
}

void check_lanes(const ParameterValues&, NetworkParams& net) {
  if (net.virtual_lanes < 1 || net.virtual_lanes > kMaxVirtualLanes) {
    throw ConfigError("network.virtual_lanes",
                      "InfiniBand has 1 to 15 data virtual lanes, got " + std::to_string(net.virtual_lanes));
  }
}

ParameterSet<NetworkParams> declare() {
  const NetworkParams d;
  ParameterSet<NetworkParams> set(d);
  set.custom("network.topology", d.topology.name, "",
             "a topology of `ibsec-engine registries`: single-switch or fat-tree", read_topology)
      .count(
          "network.nodes", [](NetworkParams & n) -> auto& { return n.topology.nodes; }, "nodes",
          "cluster size; 0 = the topology's own: 16 (the paper's) for single-switch, k^n for fat-tree")
      .count(
          "network.switch_ports", [](NetworkParams & n) -> auto& { return n.topology.switch_ports; }, "ports",
          "switch radix; 0 = smallest that fits the topology", 0, UINT16_MAX)
      .custom("network.link_rate", d.link_rate, "", "InfiniBand 4x rate: SDR (8 Gb/s data), DDR (16), QDR (32)",
              read_link_rate)
      .duration("network.link_delay_ns", &NetworkParams::link_delay, TimeUnit::kNs,
                "propagation delay of every cable (2 m of copper at ~5 ns/m)")
      .duration("network.switch_latency_ns", &NetworkParams::switch_latency, TimeUnit::kNs,
                "switch traversal, head in to head out (Mellanox InfiniScale III: < 200 ns port to port)")
      .count("network.virtual_lanes", &NetworkParams::virtual_lanes, "lanes",
             "data virtual lanes per port (1..15); a session uses lane key mod lanes")
      .count("network.vl_buffer_bytes", &NetworkParams::vl_buffer_bytes, "bytes",
             "input buffer per port and virtual lane (64-byte credits)")
      .check(check_lanes);
  return set;
}

}  // namespace

LinkParams NetworkParams::link() const {
  return {network::link_rate(link_rate).ticks_per_byte, link_delay, virtual_lanes, credits_per_lane()};
}

SwitchParams NetworkParams::switches() const { return {switch_latency, virtual_lanes, credits_per_lane()}; }

const ParameterSet<NetworkParams>& network_parameters() {
  static const ParameterSet<NetworkParams> set = declare();
  return set;
}

}  // namespace ibsec::network
