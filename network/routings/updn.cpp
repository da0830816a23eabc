// OpenSM's updn routing (opensm/osm_ucast_updn.c), entry for entry as
// OpenSM 3.3 computes it: switches ranked by distance from root switches
// (given, or detected from the topology as OpenSM does), hop counts
// restricted to up*/down* paths, then minhop's port choice on those hop
// counts (docs/topology.md, "updn").
#include <algorithm>
#include <deque>
#include <optional>

#include "core/errors.h"
#include "network/routing.h"
#include "network/routings/least_loaded_ports.h"
#include "network/routings/minhop.h"

namespace ibsec::network {
namespace {

using Kind = Endpoint::Kind;

constexpr const char* kRootsKey = "network.updn.root_guids";
constexpr uint32_t kUnranked = UINT32_MAX;
// IB_SUBNET_PATH_HOPS_MAX: hop counts from here on are left out of the
// histogram root detection draws.
constexpr uint32_t kHistogramHops = 64;

enum class Direction : uint8_t { kUp, kDown };

// OpenSM's GUID as an integer (u->id); a topology not read from a subnet
// takes switch indices, as minhop does.
uint64_t switch_id(const Topology& topology, uint32_t s) {
  return topology.subnet ? topology.subnet->switch_guid[s] : s;
}

std::optional<uint32_t> switch_with_id(const Topology& topology, uint64_t id) {
  for (uint32_t s = 0; s < topology.switches.size(); ++s) {
    if (switch_id(topology, s) == id) return s;
  }
  return std::nullopt;
}

std::vector<uint32_t> given_roots(const Topology& topology, const std::vector<std::string>& guids) {
  std::vector<uint32_t> roots;
  for (const std::string& text : guids) {
    size_t used = 0;
    uint64_t guid = 0;
    try {
      guid = std::stoull(text, &used, 0);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text.size())
      throw ConfigError(kRootsKey, "\"" + text + "\" is not a GUID (e.g. \"0x0002c90200400010\")");
    const std::optional<uint32_t> s = switch_with_id(topology, guid);
    if (!s) {
      throw ConfigError(kRootsKey, "\"" + text + "\" is the GUID of no switch of the topology" +
                                       (topology.subnet ? " (" + topology.subnet->file + ")" : std::string()));
    }
    roots.push_back(*s);
  }
  return roots;
}

uint32_t nodes_on(const SwitchSpec& spec) {
  return static_cast<uint32_t>(
      std::ranges::count_if(spec.peer, [](const Endpoint& e) { return e.kind == Kind::kNode; }));
}

// nodes_at[s][h]: how many nodes are on switches h minhop hops from s.
std::vector<std::vector<uint32_t>> node_hop_histograms(const Topology& topology) {
  std::vector<std::vector<uint32_t>> nodes_at(topology.switches.size(), std::vector<uint32_t>(kHistogramHops, 0));
  for (uint32_t t = 0; t < topology.switches.size(); ++t) {
    const uint32_t on_t = nodes_on(topology.switches[t]);
    if (on_t == 0) continue;
    const std::vector<uint8_t> hops = min_hop_distances(topology, t);
    for (uint32_t s = 0; s < topology.switches.size(); ++s) {
      if (hops[s] < kHistogramHops) nodes_at[s][hops[s]] += on_t;
    }
  }
  return nodes_at;
}

// updn_find_root_nodes_by_min_hop: a switch is a root when, counting the
// nodes by their switch's minhop distance from it, exactly one distance
// holds more than 90 % of the nodes and no other more than 5 % (a spine of
// a fat tree: every node equally far).
std::vector<uint32_t> detected_roots(const Topology& topology) {
  const double most = topology.nodes * 0.9;  // the thresholds as OpenSM computes them, in double
  const double some = topology.nodes * 0.05;
  const auto histograms = node_hop_histograms(topology);
  std::vector<uint32_t> roots;
  for (uint32_t s = 0; s < topology.switches.size(); ++s) {
    const auto over = [&](double threshold) {
      return std::ranges::count_if(histograms[s], [&](uint32_t n) { return n > threshold; });
    };
    if (over(most) == 1 && over(some) == 1) roots.push_back(s);
  }
  if (roots.empty()) {
    // OpenSM then falls back to minhop; routing minhop's tables under the
    // name updn would hide that the fabric has no up*/down* order.
    throw ConfigError(kRootsKey,
                      "no switch looks like a root (one hop count holding over 90 % of the nodes and no other "
                      "over 5 %), so OpenSM would route minhop instead: name the root switches' GUIDs");
  }
  return roots;
}

// updn_subn_rank: each switch's distance from the nearest root.
std::vector<uint32_t> ranks_from(const Topology& topology, const std::vector<uint32_t>& roots) {
  std::vector<uint32_t> rank(topology.switches.size(), kUnranked);
  std::deque<uint32_t> queue;
  for (const uint32_t root : roots) {
    rank[root] = 0;
    queue.push_back(root);
  }
  while (!queue.empty()) {
    const uint32_t s = queue.front();
    queue.pop_front();
    for (const Endpoint& peer : topology.switches[s].peer) {
      if (peer.kind != Kind::kSwitch || rank[peer.index] <= rank[s] + 1) continue;
      rank[peer.index] = rank[s] + 1;
      queue.push_back(peer.index);
    }
  }
  return rank;
}

class UpDown {
 public:
  UpDown(const Topology& topology, std::vector<uint32_t> rank) : topology_(topology), rank_(std::move(rank)) {}

  // updn_bfs_by_node: a search outward from the destination switch along
  // the reverse of packets' paths, so it may go up and then down but never
  // down and then up; a port's hop count is set whenever a path through it
  // beats what the port had, and a switch whose count improved is searched
  // again from its latest direction.
  PortHops hops_to(uint32_t target) const {
    PortHops via(topology_.switches.size());
    for (size_t s = 0; s < via.size(); ++s) via[s].assign(topology_.switches[s].ports, kNoPath);
    std::vector<uint8_t> least(via.size(), kNoPath);
    std::vector<Direction> came(via.size(), Direction::kUp);
    std::vector<bool> queued(via.size(), false);
    std::deque<uint32_t> queue{target};
    least[target] = 0;
    while (!queue.empty()) {
      const uint32_t s = queue.front();
      queue.pop_front();
      queued[s] = false;
      for (const Endpoint& peer : topology_.switches[s].peer) {
        if (peer.kind != Kind::kSwitch) continue;
        const Direction step = direction(s, peer.index);
        if (came[s] == Direction::kDown && step == Direction::kUp) continue;
        const int hops = least[s] + 1;
        uint8_t& through = via[peer.index][peer.port.value()];
        if (hops >= through) continue;
        through = static_cast<uint8_t>(hops);
        least[peer.index] = std::min(least[peer.index], through);
        if (queued[peer.index]) continue;
        came[peer.index] = step;
        queued[peer.index] = true;
        queue.push_back(peer.index);
      }
    }
    return via;
  }

 private:
  // updn_get_dir: towards a lower rank is up; between two roots, up; at
  // equal rank, up towards the smaller GUID.
  Direction direction(uint32_t from, uint32_t to) const {
    if (rank_[from] == 0 && rank_[to] == 0) return Direction::kUp;
    if (rank_[from] != rank_[to]) return rank_[from] < rank_[to] ? Direction::kDown : Direction::kUp;
    return switch_id(topology_, from) > switch_id(topology_, to) ? Direction::kUp : Direction::kDown;
  }

  const Topology& topology_;
  std::vector<uint32_t> rank_;
};

void route_updn(Topology& topology, const ParameterValues& own) {
  const std::vector<std::string> guids = own.texts(kRootsKey);
  const std::vector<uint32_t> roots = guids.empty() ? detected_roots(topology) : given_roots(topology, guids);
  const UpDown updn(topology, ranks_from(topology, roots));
  fill_least_loaded_tables(topology, [&](uint32_t target) { return updn.hops_to(target); });
}

}  // namespace

IBSEC_REGISTER_ROUTING("updn",
                       "OpenSM's up*/down* on any topology: minhop's port choice over paths that never go down and "
                       "then up, ranked from root switches (network.updn.root_guids, or detected as OpenSM does); "
                       "entry for entry as OpenSM 3.3 computes it",
                       (std::vector<ParameterInfo>{
                           {kRootsKey, nlohmann::json::array(), "GUIDs",
                            "the root switches' GUIDs as strings (\"0x...\"; switch indices on a topology not read "
                            "from a subnet); empty: the switches OpenSM detects as roots (docs/topology.md)"},
                       }),
                       route_updn)

}  // namespace ibsec::network
