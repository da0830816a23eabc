// How a run names and describes its fabric, shared by the run's result (its
// "topology" section and links table) and `ibsec-engine topology`, which
// describes a configuration's fabric without running it (for drawings and
// scripts that join a run's links table on the link index).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/statistics.h"
#include "network/links.h"
#include "network/network_params.h"
#include "network/topology.h"
#include "network/uniform_load.h"

namespace ibsec::sim {

// An end of a link as docs/topology.md names it: "node 3", "switch 0 port 3".
std::string endpoint_name(const network::Endpoint& end);
// "node 3 -> switch 0 port 3".
std::string link_name(const network::LinkEnds& ends);

// The columns that say which link a row of the links table is about.
std::vector<Statistic> link_identity(size_t index, const network::LinkEnds& ends);

// The columns that say which switch a row of the switches table is about.
std::vector<Statistic> switch_identity(const network::Topology& topology, uint32_t switch_index);

// Uniform traffic's load on every link of the fabric (network::links_of
// order) at the rates `network` gives its cables, and its bound.
network::UniformLoad fabric_uniform_load(const network::Topology& topology, std::span<const network::LinkEnds> links,
                                         const network::NetworkParams& network);
// The same if it takes a run no more than about a second (nodes x switches
// steps: up to 2^26, every 1 024-node fabric; a 32 768-node 3-level tree
// would take 2.5 s), else none: `ibsec-engine topology` computes it whatever the size.
std::optional<network::UniformLoad> run_uniform_load(const network::Topology& topology,
                                                     std::span<const network::LinkEnds> links,
                                                     const network::NetworkParams& network);

// The fabric's counts, every topology's and then what its builder reports
// about its shape (a fat tree's leaves, spines and cores), then the bound
// uniform traffic has on its routes, with their units and descriptions
// under topology_meta as the statistics have theirs.
// Without a load (run_uniform_load gave none) the bound and its link are null.
nlohmann::ordered_json topology_section(const network::Topology& topology, std::span<const network::LinkEnds> links,
                                        const std::optional<network::UniformLoad>& load);

// The whole fabric: the topology section, every switch (index, level, ports
// cabled, name) and every one-way link in the order of network::links_of,
// with the links table's identity columns and its uniform load; units and
// descriptions of both lists under "columns_meta".
nlohmann::ordered_json fabric_description(const network::Topology& topology, const network::NetworkParams& network);

}  // namespace ibsec::sim
