// network.* : the fabric's parameters (topology, link generation and width,
// cable and switch delays, virtual lanes and their buffers), declared in
// network_params.cpp with these initial values as the defaults. Each
// topology declares its own further parameters where it is built
// (network/topologies/).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "core/parameters.h"
#include "core/time.h"
#include "network/credit_link.h"
#include "network/link_rate.h"
#include "network/packet.h"
#include "network/switch.h"
#include "network/topology.h"

namespace ibsec::network {

struct NetworkParams {
  TopologyParams topology;
  std::string link_rate = "SDR";
  std::string link_width = "4x";
  Tick link_delay = 10 * kTicksPerNs;  // 2 m of copper at ~5 ns/m
  // Given in the configuration, or (unset) the link generation's own figure
  // (network/link_rate.cpp, docs/network.md).
  std::optional<Tick> switch_latency_given;
  std::optional<Tick> fec_latency_given;
  uint32_t virtual_lanes = 1;
  uint32_t vl_buffer_bytes = 4096;
  bool virtual_output_queues = false;  // network.switch_buffers: "fifo" (false) or "voq"
  bool oldest_first = false;           // network.switch_arbitration: "round-robin" (false) or "oldest-first"
  double switch_speedup = 1.0;         // network.switch_speedup: crossbar rate / link rate

  // Each input buffer (switch port or card) holds this many 64-byte credits per lane.
  [[nodiscard]] uint32_t credits_per_lane() const { return vl_buffer_bytes / kCreditBytes; }
  // `topology` with virtual_lanes set: what build_topology builds the fabric from.
  [[nodiscard]] TopologyParams topology_params() const {
    TopologyParams params = topology;
    params.virtual_lanes = virtual_lanes;
    return params;
  }
  [[nodiscard]] LinkRate rate() const { return network::link_rate(link_rate, link_width); }
  [[nodiscard]] Tick switch_latency() const;
  // What forward error correction adds to every link (0 without FEC).
  [[nodiscard]] Tick fec_latency() const;
  [[nodiscard]] LinkParams link() const;
  // A cable's own rate, or (none) the fabric's.
  [[nodiscard]] LinkRate rate(const std::optional<CableRate>& cable) const;
  // The link of a cable with its own rate: its serialization, and its
  // generation's FEC delay unless network.fec_latency_ns gives one for every
  // link. Without a rate of its own, link().
  [[nodiscard]] LinkParams link(const std::optional<CableRate>& cable) const;
  [[nodiscard]] SwitchParams switches() const;
  // A switch whose ports have rates of their own (SwitchSpec::port_rate):
  // unless network.switch_latency_ns gives one figure, it traverses at the
  // figure of the fastest generation among its ports.
  [[nodiscard]] SwitchParams switches(std::span<const std::optional<CableRate>> port_rates) const;
};

const ParameterSet<NetworkParams>& network_parameters();

}  // namespace ibsec::network
