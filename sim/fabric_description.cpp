#include "sim/fabric_description.h"

#include "network/routing.h"

namespace ibsec::sim {
namespace {

const char* endpoint_kind(const network::Endpoint& end) {
  return end.kind == network::Endpoint::Kind::kNode ? "node" : "switch";
}

// Rows as JSON objects, and each column's unit and description once.
nlohmann::ordered_json rows_of(const std::vector<std::vector<Statistic>>& rows, nlohmann::ordered_json& meta) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& row : rows) {
    nlohmann::ordered_json object = nlohmann::ordered_json::object();
    for (const Statistic& cell : row) {
      object[cell.name] = cell.value;
      meta[cell.name] = {{"unit", cell.unit}, {"description", cell.description}};
    }
    list.push_back(std::move(object));
  }
  return list;
}

}  // namespace

std::vector<Statistic> switch_identity(const network::Topology& topology, uint32_t s) {
  const network::SwitchSpec& spec = topology.switches[s];
  uint32_t cabled = 0;
  for (const network::Endpoint& peer : spec.peer) cabled += peer.kind != network::Endpoint::Kind::kNone ? 1 : 0;
  return {
      {"switch", "", "the switch's index (docs/topology.md)", s},
      {"name", "", "the switch as errors and docs/topology.md name it (with its LID on a real fabric)",
       network::switch_name(topology, s)},
      {"level", "", "its level in the tree, 0 at the leaves (attached to nodes)", spec.level},
      {"ports", "ports", "the switch's radix", spec.ports},
      {"ports_connected", "ports", "ports with a cable", cabled},
  };
}

std::string endpoint_name(const network::Endpoint& end) {
  if (end.kind == network::Endpoint::Kind::kNode) return "node " + std::to_string(end.index);
  return "switch " + std::to_string(end.index) + " port " + std::to_string(end.port.value());
}

std::string link_name(const network::LinkEnds& ends) {
  return endpoint_name(ends.from) + " -> " + endpoint_name(ends.to);
}

std::vector<Statistic> link_identity(size_t index, const network::LinkEnds& ends) {
  return {
      {"link", "", "the link's index in the run (card outputs by node, then switch outputs by switch and port)", index},
      {"name", "", "the link by its ends, as docs/topology.md names them", link_name(ends)},
      {"from_kind", "", "what sends into the link: node (its card) or switch", endpoint_kind(ends.from)},
      {"from_id", "", "node id or switch index of the sending end", ends.from.index},
      {"from_port", "", "port at the sending end (0 at a card)", ends.from.port.value()},
      {"to_kind", "", "what the link delivers to: node (its card) or switch", endpoint_kind(ends.to)},
      {"to_id", "", "node id or switch index of the receiving end", ends.to.index},
      {"to_port", "", "port at the receiving end (0 at a card)", ends.to.port.value()},
  };
}

network::UniformLoad fabric_uniform_load(const network::Topology& topology, std::span<const network::LinkEnds> links,
                                         const network::NetworkParams& network) {
  std::vector<double> rate;
  rate.reserve(links.size());
  for (const network::LinkEnds& link : links) {
    rate.push_back(1.0 / network.rate(topology.rate_at(link.from)).serialization.ps_per_byte());
  }
  return network::uniform_load(topology, links, rate);
}

std::optional<network::UniformLoad> run_uniform_load(const network::Topology& topology,
                                                     std::span<const network::LinkEnds> links,
                                                     const network::NetworkParams& network) {
  constexpr uint64_t kStepsInARun = uint64_t{1} << 26;
  if (uint64_t{topology.nodes} * topology.switches.size() > kStepsInARun) return std::nullopt;
  return fabric_uniform_load(topology, links, network);
}

nlohmann::ordered_json topology_section(const network::Topology& topology, std::span<const network::LinkEnds> links,
                                        const std::optional<network::UniformLoad>& load) {
  std::vector<Statistic> counts{
      {"nodes", "nodes", "nodes in the fabric, one card each", topology.nodes},
      {"switches", "switches", "switches in the fabric", topology.switches.size()},
      {"links", "links", "one-way links: every card's output and every cabled switch output port", links.size()},
  };
  for (const network::ShapeCount& count : topology.shape)
    counts.push_back({count.name, count.unit, count.description, count.value});
  // A fabric of mixed rates says which, and how many links run at each.
  const std::vector<network::RateCount> rates = network::cable_rate_counts(topology);
  if (rates.size() > 1) {
    for (const network::RateCount& rate : rates) {
      counts.push_back({"links_at_" + rate.rate.name(), "links",
                        "one-way links at " + rate.rate.name() + " (this fabric mixes link rates; docs/network.md)",
                        rate.links});
    }
  }
  counts.push_back({"uniform_bound", "fraction of link rate",
                    "the load every node can offer under uniform traffic before a link on the forwarding tables' "
                    "routes is loaded beyond its rate: 1 / the most loaded link's load (docs/network.md, \"The bound "
                    "from the routes\"); accepted_throughput counts payload, so compare it with this x payload / "
                    "packet bytes; null where a run does not compute it (more than 2^26 nodes x switches: "
                    "ibsec-engine topology does)",
                    load ? nlohmann::json(load->bound) : nlohmann::json()});
  counts.push_back({"uniform_bound_link", "", "a link whose load sets uniform_bound",
                    load && !links.empty() ? nlohmann::json(link_name(links[load->binding_link])) : nlohmann::json()});
  nlohmann::ordered_json section = {{"name", topology.name}};
  nlohmann::ordered_json meta = nlohmann::ordered_json::object();
  for (const Statistic& count : counts) {
    section[count.name] = count.value;
    meta[count.name] = {{"unit", count.unit}, {"description", count.description}};
  }
  section["topology_meta"] = meta;
  return section;
}

nlohmann::ordered_json fabric_description(const network::Topology& topology, const network::NetworkParams& network) {
  const std::vector<network::LinkEnds> links = network::links_of(topology);
  const network::UniformLoad load = fabric_uniform_load(topology, links, network);
  std::vector<std::vector<Statistic>> switch_rows;
  for (uint32_t s = 0; s < topology.switches.size(); ++s) switch_rows.push_back(switch_identity(topology, s));
  std::vector<std::vector<Statistic>> link_rows;
  for (size_t i = 0; i < links.size(); ++i) {
    link_rows.push_back(link_identity(i, links[i]));
    link_rows.back().push_back({"uniform_load", "fraction of link rate",
                                "what the link carries when every node offers its whole link rate under uniform "
                                "traffic on the forwarding tables' routes, of its own rate (its utilization at load "
                                "uniform_bound is this x uniform_bound)",
                                load.per_link[i]});
  }
  nlohmann::ordered_json meta = nlohmann::ordered_json::object();
  nlohmann::ordered_json doc = {{"topology", topology_section(topology, links, load)}};
  doc["switches"] = rows_of(switch_rows, meta);
  doc["links"] = rows_of(link_rows, meta);
  doc["columns_meta"] = meta;
  return doc;
}

}  // namespace ibsec::sim
