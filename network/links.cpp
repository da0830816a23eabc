#include "network/links.h"

#include <algorithm>

#include "network/link_rate.h"

namespace ibsec::network {

std::vector<LinkEnds> links_of(const Topology& topology) {
  std::vector<LinkEnds> links;
  for (uint32_t n = 0; n < topology.nodes; ++n) {
    links.push_back({{Endpoint::Kind::kNode, n, PortId(0)}, topology.node_link[n]});
  }
  for (uint32_t s = 0; s < topology.switches.size(); ++s) {
    const SwitchSpec& spec = topology.switches[s];
    for (uint16_t p = 0; p < spec.ports; ++p) {
      if (spec.peer[p].kind != Endpoint::Kind::kNone)
        links.push_back({{Endpoint::Kind::kSwitch, s, PortId(p)}, spec.peer[p]});
    }
  }
  return links;
}

std::vector<RateCount> cable_rate_counts(const Topology& topology) {
  std::vector<RateCount> counts;
  if (!topology.has_cable_rates()) return counts;
  for (const LinkEnds& link : links_of(topology)) {
    const std::optional<CableRate> rate = topology.rate_at(link.from);
    if (!rate) continue;
    const auto seen = std::ranges::find(counts, *rate, &RateCount::rate);
    if (seen != counts.end()) {
      ++seen->links;
    } else {
      counts.push_back({*rate, 1});
    }
  }
  auto ps_per_byte = [](const RateCount& c) {
    return link_rate(c.rate.generation, c.rate.width).serialization.ps_per_byte();
  };
  std::ranges::stable_sort(counts,
                           [&](const RateCount& a, const RateCount& b) { return ps_per_byte(a) > ps_per_byte(b); });
  return counts;
}

}  // namespace ibsec::network
