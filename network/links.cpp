#include "network/links.h"

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

}  // namespace ibsec::network
