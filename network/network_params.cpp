#include "network/network_params.h"

#include "network/adaptive_routing.h"
#include "network/link_rate.h"
#include "network/routing.h"

namespace ibsec::network {
namespace {

constexpr uint32_t kMaxVirtualLanes = 15;  // data VLs of InfiniBand (IBA vol. 1, 7.6)

void read_topology(const ParameterValues& v, const std::string& key, NetworkParams& net) {
  net.topology.name = v.text(key);
  net.topology.own = v.subset(TopologyRegistry::get(net.topology.name).parameters);
}

void read_routing(const ParameterValues& v, const std::string& key, NetworkParams& net) {
  net.topology.routing = v.text(key);
  if (net.topology.routing == kTopologyOwnRouting) return;
  net.topology.routing_own = v.subset(RoutingRegistry::get(net.topology.routing).parameters);
}

void read_adaptive_routing(const ParameterValues& v, const std::string& key, NetworkParams& net) {
  net.topology.adaptive = v.text(key);
  check_adaptive_routing_mode(net.topology.adaptive);
}

// "off: ...; minimal: ...": the adaptive routing modes, as the parameter's description lists them.
std::string adaptive_modes_text() {
  std::string text;
  for (const AdaptiveRoutingMode& mode : adaptive_routing_modes()) {
    text += (text.empty() ? "" : "; ") + std::string(mode.name) + ": " + mode.description;
  }
  return text;
}

void read_link_rate(const ParameterValues& v, const std::string& key, NetworkParams& net) {
  net.link_rate = v.text(key);
  link_generation(net.link_rate);  // rejects unknown names
}

void read_link_width(const ParameterValues& v, const std::string& key, NetworkParams& net) {
  net.link_width = v.text(key);
  link_width(net.link_width);  // rejects unknown names
}

// A duration in ns, or this word for the link generation's own figure.
constexpr const char* kFromGeneration = "generation";

std::optional<Tick> duration_or_generation(const ParameterValues& v, const std::string& key) {
  const nlohmann::json& value = v.at(key);
  if (!value.is_string()) return v.duration(key, 1.0, /*positive=*/false);
  if (value.get<std::string>() == kFromGeneration) return std::nullopt;
  throw ConfigError(key, std::string("a duration in ns, or \"") + kFromGeneration +
                             "\" for the link generation's own figure (docs/network.md), got " + value.dump());
}

// Whether the text at `key` names `second` rather than `first`; any other name is refused, both named.
bool second_of_two(const ParameterValues& v, const std::string& key, const char* first, const char* second) {
  const std::string name = v.text(key);
  if (name != first && name != second) {
    throw ConfigError(key, std::string("\"") + first + "\" or \"" + second + "\", got \"" + name + "\"");
  }
  return name == second;
}

// network.switch_buffers: how each (input, lane) buffer of a switch is organised.
constexpr const char* kFifoBuffers = "fifo";
constexpr const char* kVoqBuffers = "voq";

void read_switch_buffers(const ParameterValues& v, const std::string& key, NetworkParams& net) {
  net.virtual_output_queues = second_of_two(v, key, kFifoBuffers, kVoqBuffers);
}

// network.switch_arbitration: which waiting packet a switch's output takes.
constexpr const char* kRoundRobin = "round-robin";
constexpr const char* kOldestFirst = "oldest-first";

void read_switch_arbitration(const ParameterValues& v, const std::string& key, NetworkParams& net) {
  net.oldest_first = second_of_two(v, key, kRoundRobin, kOldestFirst);
}

void check_lanes(const ParameterValues&, NetworkParams& net) {
  if (net.virtual_lanes < 1 || net.virtual_lanes > kMaxVirtualLanes) {
    throw ConfigError("network.virtual_lanes",
                      "InfiniBand has 1 to 15 data virtual lanes, got " + std::to_string(net.virtual_lanes));
  }
}

constexpr double kMaxSwitchSpeedup = 4.0;

void check_speedup(const ParameterValues& v, NetworkParams& net) {
  if (net.switch_speedup < 1.0 || net.switch_speedup > kMaxSwitchSpeedup) {
    throw ConfigError("network.switch_speedup", "must be from 1 to " + nlohmann::json(kMaxSwitchSpeedup).dump() +
                                                    ", got " + v.at("network.switch_speedup").dump());
  }
}

// "a, b or c": the names a registry holds, as a description lists them.
std::string listed(const std::vector<std::string>& names) {
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " or " : ", ";
    text += names[i];
  }
  return text;
}

// Declared once the registries are filled (network_parameters() builds it on
// first use), so the descriptions list what is registered.
ParameterSet<NetworkParams> declare() {
  const NetworkParams d;
  ParameterSet<NetworkParams> set(d);
  set.custom("network.topology", d.topology.name, "",
             "a topology of `ibsec-engine registries`: " + listed(TopologyRegistry::names()), read_topology)
      .custom("network.routing", kTopologyOwnRouting, "",
              "\"topology\" (the topology's own tables: D-mod-K on a fat tree, dimension order on a torus, minhop on "
              "an ibnetdiscover fabric) or a routing of `ibsec-engine registries`: " +
                  listed(RoutingRegistry::names()) + " (lft loads a subnet manager's tables; docs/topology.md)",
              read_routing)
      .custom("network.adaptive_routing", d.topology.adaptive, "",
              adaptive_modes_text() + " (docs/topology.md, \"Adaptive routing\")", read_adaptive_routing)
      .count(
          "network.nodes", [](NetworkParams & n) -> auto& { return n.topology.nodes; }, "nodes",
          "cluster size; 0 = the topology's own: 16 (the paper's) for single-switch, k^n for fat-tree, every "
          "switch full for fat-tree-built and torus")
      .count(
          "network.switch_ports", [](NetworkParams & n) -> auto& { return n.topology.switch_ports; }, "ports",
          "switch radix; 0 = smallest that fits the topology", 0, UINT16_MAX)
      .custom("network.link_rate", d.link_rate, "",
              "InfiniBand generation: SDR, DDR, QDR, FDR, EDR, HDR, NDR or XDR (signalling, encoding and "
              "delays per lane: docs/network.md)",
              read_link_rate)
      .custom("network.link_width", d.link_width, "lanes",
              "InfiniBand link width: 1x, 2x, 4x, 8x or 12x; the data rate is the generation's per lane times the "
              "lanes",
              read_link_width)
      .duration("network.link_delay_ns", &NetworkParams::link_delay, TimeUnit::kNs,
                "propagation delay of every cable (2 m of copper at ~5 ns/m)")
      .custom("network.switch_latency_ns", kFromGeneration, "ns",
              "switch traversal, head in to head out; \"generation\" = the figure of the link generation's switch "
              "silicon (SDR/DDR/QDR: InfiniScale III, 200 ns; docs/network.md)",
              [](const ParameterValues& v, const std::string& key, NetworkParams& n) {
                n.switch_latency_given = duration_or_generation(v, key);
              })
      .custom("network.fec_latency_ns", kFromGeneration, "ns",
              "what forward error correction adds to every link, in both directions; \"generation\" = 0 for "
              "8b/10b and 64b/66b, about 100 ns for RS(544,514) (HDR, NDR, XDR; docs/network.md)",
              [](const ParameterValues& v, const std::string& key, NetworkParams& n) {
                n.fec_latency_given = duration_or_generation(v, key);
              })
      .count("network.virtual_lanes", &NetworkParams::virtual_lanes, "lanes",
             "data virtual lanes per port (1..15); a session uses lane key mod lanes; a torus with a ring of 5 or more "
             "needs 2 (its dateline lanes)")
      .count("network.vl_buffer_bytes", &NetworkParams::vl_buffer_bytes, "bytes",
             "input buffer per port and virtual lane (64-byte credits)")
      .custom("network.switch_buffers", kFifoBuffers, "",
              "how a switch's input buffer of each port and lane is organised: fifo (InfiniBand's: only the head "
              "packet may leave, so it blocks those behind it) or voq (virtual output queues in the same buffer: "
              "any packet whose output is free may leave, in order per output; docs/network.md, \"Virtual output "
              "queues\")",
              read_switch_buffers)
      .custom("network.switch_arbitration", kRoundRobin, "",
              "which waiting packet a switch output takes: round-robin (over input ports and lanes, the pointer "
              "moving past each grant) or oldest-first (the packet handed to its card first, as a router with "
              "age-based arbitration does; docs/network.md, \"Arbitration\")",
              read_switch_arbitration)
      .number("network.switch_speedup", &NetworkParams::switch_speedup, "factor",
              "how much faster than its link a switch's crossbar moves a packet out of its input (1 to 4): at 1 an "
              "input port is busy until the packet's tail has left the output; at 2 it may start its next packet "
              "halfway, the output holding the rest (a combined input/output-queued switch; docs/network.md, "
              "\"Crossbar speedup\")",
              Bound::kPositive)
      .check(check_lanes)
      .check(check_speedup);
  return set;
}

}  // namespace

Tick NetworkParams::switch_latency() const {
  return switch_latency_given.value_or(link_generation(link_rate).switch_latency);
}

Tick NetworkParams::fec_latency() const { return fec_latency_given.value_or(link_generation(link_rate).fec_latency); }

// The FEC encoder and decoder sit at the two ends of every cable, so their
// delay adds to the cable's: for packets and for the credits coming back.
LinkParams NetworkParams::link() const { return link(std::nullopt); }

LinkRate NetworkParams::rate(const std::optional<CableRate>& cable) const {
  return cable ? network::link_rate(cable->generation, cable->width) : rate();
}

LinkParams NetworkParams::link(const std::optional<CableRate>& cable) const {
  const Tick fec = fec_latency_given.value_or(link_generation(cable ? cable->generation : link_rate).fec_latency);
  return {rate(cable).serialization, link_delay + fec, virtual_lanes, credits_per_lane()};
}

SwitchParams NetworkParams::switches() const {
  return {switch_latency(), virtual_lanes, credits_per_lane(), virtual_output_queues, oldest_first, switch_speedup};
}

// A port may run slower than its switch's silicon (a degraded or older
// cable), never faster, so the fastest port tells the silicon's generation.
SwitchParams NetworkParams::switches(std::span<const std::optional<CableRate>> port_rates) const {
  SwitchParams params = switches();
  if (switch_latency_given) return params;
  const LinkGeneration* fastest = nullptr;
  for (const auto& rate : port_rates) {
    if (!rate) continue;
    const LinkGeneration* generation = &link_generation(rate->generation);
    if (fastest == nullptr || generation > fastest) fastest = generation;  // link_generations() is slowest first
  }
  if (fastest != nullptr) params.traversal_latency = fastest->switch_latency;
  return params;
}

const ParameterSet<NetworkParams>& network_parameters() {
  static const ParameterSet<NetworkParams> set = declare();
  return set;
}

}  // namespace ibsec::network
