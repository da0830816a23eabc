// network.* : the fabric's parameters (topology, link rate and delay, switch
// latency, virtual lanes and their buffers), declared in network_params.cpp
// with these initial values as the defaults. Each topology declares its own
// further parameters where it is built (network/topologies/).
#pragma once

#include <cstdint>
#include <string>

#include "core/parameters.h"
#include "core/time.h"
#include "network/credit_link.h"
#include "network/packet.h"
#include "network/switch.h"
#include "network/topology.h"

namespace ibsec::network {

struct NetworkParams {
  TopologyParams topology;
  std::string link_rate = "SDR";
  Tick link_delay = 10 * kTicksPerNs;       // 2 m of copper at ~5 ns/m
  Tick switch_latency = 200 * kTicksPerNs;  // Mellanox InfiniScale III: < 200 ns port to port
  uint32_t virtual_lanes = 1;
  uint32_t vl_buffer_bytes = 4096;

  // Each input buffer (switch port or card) holds this many 64-byte credits per lane.
  [[nodiscard]] uint32_t credits_per_lane() const { return vl_buffer_bytes / kCreditBytes; }
  [[nodiscard]] LinkParams link() const;
  [[nodiscard]] SwitchParams switches() const;
};

const ParameterSet<NetworkParams>& network_parameters();

}  // namespace ibsec::network
