#include "sim/memory_estimate.h"

#include <algorithm>
#include <cmath>

#include "core/errors.h"
#include "network/packet.h"

namespace ibsec::sim {
namespace {

// Measured as peak RSS on 16 nodes (docs/running.md, "Memory"): a key cache
// entry with its index and replacement state (SKC-1M vs SKC-4M: 44.8 B); a
// drawn session (1 M per node: 12.4 B); a replayed process with its state in
// the replay, the scheduler and the cards (a trace of 1 M idle ranks).
constexpr uint64_t kBytesPerSkcEntry = 48;
constexpr uint64_t kBytesPerSession = 12;
constexpr uint64_t kBytesPerProcess = 2304;  // 1 048 576 replayed ranks: 2 285 MiB
// A packet: its slot in the pool, twice over because the pool's vector
// doubles as it grows (old and new blocks live together while it moves),
// and its handle in a send queue. Functional mode adds its bytes.
constexpr uint64_t kBytesPerPacket = 2 * sizeof(network::Packet) + sizeof(network::PacketHandle);
// A switch port with its share of the switch, and the link it sends on,
// beside its input buffer's slots (one per 64-byte credit of every lane):
// 1 024-node 4-ary 5-tree against 32-ary 2-tree, 4 KiB lanes, 1.49 KiB a
// port in all.
constexpr uint64_t kBytesPerSwitchPort = 512;
constexpr uint64_t kBytesPerBufferSlot = 16;

uint64_t switch_ports(const network::Topology& topology) {
  uint64_t ports = 0;
  for (const network::SwitchSpec& spec : topology.switches) ports += spec.ports;
  return ports;
}

}  // namespace

std::vector<MemoryNeed> estimate_memory(const SimConfig& config, const network::Topology& topology, uint64_t processes,
                                        uint64_t largest_message_bytes) {
  const uint32_t nodes = topology.nodes;
  const uint64_t ports = switch_ports(topology);
  const uint64_t slots = uint64_t{config.network.credits_per_lane()} * config.network.virtual_lanes;
  MemoryNeed fabric{"network.topology",
                    std::to_string(ports) + " switch ports on " + std::to_string(topology.switches.size()) +
                        " switches, with their input buffers and links",
                    saturating_product({ports, kBytesPerSwitchPort + slots * kBytesPerBufferSlot})};

  const uint64_t packet_bytes = kBytesPerPacket + (config.nic.functional_crypto ? config.nic.mtu_bytes + 16 : 0);
  const uint64_t packets_per_message = (largest_message_bytes + config.nic.mtu_bytes - 1) / config.nic.mtu_bytes;
  const std::string processes_key =
      config.trace.replays() ? (config.trace.jobs.empty() ? "trace.file" : "trace.jobs") : "traffic.processes_per_node";
  std::vector<MemoryNeed> needs{
      {"nic.security",
       "session key caches (" + std::to_string(config.nic.security.skc_entries) + " entries x " +
           std::to_string(nodes) + " cards)",
       saturating_product({nodes, config.nic.security.skc_entries, kBytesPerSkcEntry})},
      {"traffic.sessions_per_node", "sessions drawn up front",
       config.trace.replays() ? 0 : saturating_product({nodes, config.traffic.sessions_per_node, kBytesPerSession})},
      {processes_key, std::to_string(processes) + " processes on " + std::to_string(nodes) + " cards",
       saturating_product({processes, kBytesPerProcess})},
      {config.trace.replays() ? processes_key : "traffic.sizes_bytes",
       "packets of the largest message (" + std::to_string(largest_message_bytes) + " B) at every card",
       saturating_product({nodes, packets_per_message, packet_bytes})},
      std::move(fabric),
  };
  std::ranges::sort(needs, std::greater{}, &MemoryNeed::bytes);
  return needs;
}

}  // namespace ibsec::sim
