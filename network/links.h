// The fabric's one-way links in the order every part of ibsec numbers them:
// each node's card output by node id, then each switch's outputs by switch
// index and port. The cycle-level cluster wires them in this order, the
// run's links table and VCD name them by it, and `ibsec-engine topology`
// lists them so a drawing can join a run's table on the link index.
#pragma once

#include <cstdint>
#include <vector>

#include "network/topology.h"

namespace ibsec::network {

// The two ends of a one-way link: what sends into it and what it delivers to.
struct LinkEnds {
  Endpoint from;
  Endpoint to;
};

std::vector<LinkEnds> links_of(const Topology& topology);

// A cable rate the topology gives and how many one-way links run at it.
struct RateCount {
  CableRate rate;
  uint64_t links = 0;
};
// Every rate the topology gives its cables (Topology::rate_at), slowest
// first, each with its links; empty when it gives none (the fabric's rate
// throughout).
std::vector<RateCount> cable_rate_counts(const Topology& topology);

}  // namespace ibsec::network
