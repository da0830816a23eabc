#include "network/uniform_load.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace ibsec::network {
namespace {

constexpr uint32_t kNoLink = std::numeric_limits<uint32_t>::max();

// The routes to one destination form an in-forest over the switches, since
// a switch forwards every packet for it by one port. Its switches are
// loaded in an order where each comes after every switch that feeds it
// (Kahn's), so every switch passes on all it gathers in one step: a pass
// costs the switches on the routes, not the sources times their hops.
class RoutesTo {
 public:
  RoutesTo(const Topology& topology, std::span<const LinkEnds> links)
      : topology_(topology), out_link_(topology.switches.size()) {
    for (uint32_t s = 0; s < topology.switches.size(); ++s) out_link_[s].assign(topology.switches[s].ports, kNoLink);
    for (uint32_t l = 0; l < links.size(); ++l) {
      if (links[l].from.kind == Endpoint::Kind::kSwitch) out_link_[links[l].from.index][links[l].from.port.value()] = l;
    }
    const size_t switches = topology.switches.size();
    stamp_.assign(switches, kNone);
    pending_.assign(switches, 0);
    gathered_.assign(switches, 0.0);
  }

  // Adds to `carried` (by link) what the switches in `entering` (with the
  // rate each gathers from its own nodes) send towards node `d`.
  void load(uint32_t d, std::span<const std::pair<uint32_t, double>> entering, std::vector<double>& carried) {
    order_.clear();
    for (const auto& [s, rate] : entering) {
      discover(d, s);
      gathered_[s] += rate;
    }
    ready_.clear();
    for (const uint32_t s : order_) {
      if (pending_[s] == 0) ready_.push_back(s);
    }
    size_t done = 0;
    while (!ready_.empty()) {
      const uint32_t s = ready_.back();
      ready_.pop_back();
      ++done;
      const Next next = next_of(d, s);
      carried[next.link] += gathered_[s];
      if (next.to.kind == Endpoint::Kind::kSwitch) {
        gathered_[next.to.index] += gathered_[s];
        if (--pending_[next.to.index] == 0) ready_.push_back(next.to.index);
      }
    }
    if (done != order_.size()) {
      throw std::logic_error("the forwarding tables loop on the way to node " + std::to_string(d));
    }
  }

 private:
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  struct Next {
    uint32_t link;
    Endpoint to;
  };

  Next next_of(uint32_t d, uint32_t s) const {
    const SwitchSpec& spec = topology_.switches[s];
    const uint16_t port = spec.forwarding[d].value();
    const uint32_t link = port < spec.ports ? out_link_[s][port] : kNoLink;
    if (link == kNoLink) {
      throw std::logic_error("switch " + std::to_string(s) + " forwards node " + std::to_string(d) + " by port " +
                             std::to_string(port) + ", which has no cable");
    }
    const Endpoint& to = spec.peer[port];
    if (to.kind == Endpoint::Kind::kNode && to.index != d) {
      throw std::logic_error("switch " + std::to_string(s) + " delivers node " + std::to_string(d) +
                             "'s packets to node " + std::to_string(to.index));
    }
    return {link, to};
  }

  // Marks the switches from s on towards d, up to one already marked, and
  // counts for each how many marked switches feed it.
  void discover(uint32_t d, uint32_t s) {
    if (stamp_[s] == d) return;
    enter(d, s);
    for (;;) {
      const Next next = next_of(d, s);
      if (next.to.kind != Endpoint::Kind::kSwitch) return;
      const uint32_t t = next.to.index;
      const bool seen = stamp_[t] == d;
      if (!seen) enter(d, t);
      ++pending_[t];
      if (seen) return;
      s = t;
    }
  }

  void enter(uint32_t d, uint32_t s) {
    stamp_[s] = d;
    pending_[s] = 0;
    gathered_[s] = 0.0;
    order_.push_back(s);
  }

  const Topology& topology_;
  std::vector<std::vector<uint32_t>> out_link_;  // by switch and port; kNoLink where uncabled
  std::vector<uint32_t> stamp_;                  // the destination whose routes last marked the switch
  std::vector<uint32_t> pending_;                // marked switches feeding it, not yet loaded
  std::vector<double> gathered_;                 // what it sends on towards the destination
  std::vector<uint32_t> order_;                  // the switches marked for this destination
  std::vector<uint32_t> ready_;
};

}  // namespace

UniformLoad uniform_load(const Topology& topology, std::span<const LinkEnds> links, std::span<const double> link_rate) {
  UniformLoad load;
  load.per_link.assign(links.size(), 0.0);
  const uint32_t nodes = topology.nodes;
  if (nodes < 2) return load;
  const double share = 1.0 / (nodes - 1);
  // Node n's card output is link n (links_of): it offers its link's whole
  // rate, a share to every other node, entering the fabric at its switch.
  std::vector<double> carried(links.size(), 0.0);
  std::vector<std::pair<uint32_t, double>> entering;  // (switch, rate its nodes offer towards one destination)
  std::vector<uint32_t> entry_of(topology.switches.size(), std::numeric_limits<uint32_t>::max());
  for (uint32_t n = 0; n < nodes; ++n) {
    carried[n] = link_rate[n];
    const uint32_t s = topology.node_link[n].index;
    if (entry_of[s] == std::numeric_limits<uint32_t>::max()) {
      entry_of[s] = static_cast<uint32_t>(entering.size());
      entering.emplace_back(s, 0.0);
    }
    entering[entry_of[s]].second += link_rate[n] * share;
  }
  RoutesTo routes(topology, links);
  std::vector<std::pair<uint32_t, double>> towards = entering;
  for (uint32_t d = 0; d < nodes; ++d) {
    // Every node offers to d but d itself.
    const uint32_t own = entry_of[topology.node_link[d].index];
    towards[own].second = entering[own].second - link_rate[d] * share;
    routes.load(d, towards, carried);
    towards[own].second = entering[own].second;
  }
  double highest = 0.0;
  for (size_t l = 0; l < links.size(); ++l) {
    load.per_link[l] = carried[l] / link_rate[l];
    if (load.per_link[l] > highest) {
      highest = load.per_link[l];
      load.binding_link = l;
    }
  }
  load.bound = 1.0 / highest;
  return load;
}

}  // namespace ibsec::network
