// The load uniform traffic puts on every one-way link of a fabric under its
// forwarding tables, and the saturation bound that gives: every node offers
// λ of its own link's rate, each packet to one of the other N − 1 nodes at
// random, and no link can carry more than its rate, so λ ≤ 1 / the largest
// link load per unit of λ (Dally and Towles, "Principles and Practices of
// Interconnection Networks", 2004, section 3.3.1: ideal throughput is the
// channel bandwidth over the maximum channel load). It counts the routes
// the tables give and nothing else (not head-of-line blocking, buffers or
// lanes), so it bounds what any switch could accept on those routes;
// docs/network.md, "The bound from the routes", compares it with the closed
// forms and the measured saturation.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "network/links.h"
#include "network/topology.h"

namespace ibsec::network {

struct UniformLoad {
  // By link (network::links_of order): the rate the link carries when every
  // node offers its whole link rate (λ = 1), as a fraction of the link's own rate.
  std::vector<double> per_link;
  // λ*, the largest λ no link is loaded beyond its rate at: 1 / the largest
  // of per_link (the injection and delivery links make it at most 1 when
  // every link runs at one rate). 0 for a fabric of fewer than 2 nodes.
  double bound = 0.0;
  size_t binding_link = 0;  // a link whose load sets the bound (the first, in links_of order)
};

// `link_rate`: each link's data rate, by link, in any one unit. Follows the
// forwarding tables (SwitchSpec::forwarding), so with adaptive routing it is
// the bound of the tables' own routes. Throws std::logic_error where the
// tables loop, use an uncabled port or deliver to the wrong node.
UniformLoad uniform_load(const Topology& topology, std::span<const LinkEnds> links, std::span<const double> link_rate);

}  // namespace ibsec::network
