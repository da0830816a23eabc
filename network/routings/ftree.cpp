// OpenSM's fat-tree routing (opensm/osm_ucast_ftree.c), entry for entry as
// OpenSM 3.3.23 computes it on a fat tree it recognises (its ties between
// equally loaded port groups go to the lower switch index, where older
// releases took the larger GUID or kept the order): switches ranked from
// the leaves, indexed by tuples in a search from the first leaf, then every
// compute node routed leaf by leaf, down from the roots along the least
// loaded up-going ports and out again along the least loaded down-going
// ones, across cables between switches of one rank (sibling groups) as
// OpenSM crosses them (docs/topology.md, "ftree").
//
// Only the compute nodes' entries are computed: the tables hold no other
// destination (switch LIDs are not forwarded to), and OpenSM routes the
// switches after the nodes, so they change none of these entries.
#include <algorithm>
#include <array>
#include <deque>
#include <numeric>
#include <optional>
#include <set>

#include "core/errors.h"
#include "network/routing.h"
#include "network/routings/least_loaded_ports.h"

namespace ibsec::network {
namespace {

using Kind = Endpoint::Kind;

constexpr const char* kRoutingKey = "network.routing";
constexpr uint32_t kUnranked = UINT32_MAX;
// FAT_TREE_MIN_RANK and FAT_TREE_MAX_RANK: levels of switches ftree routes.
constexpr uint32_t kFewestLevels = 2;
constexpr uint32_t kMostLevels = 8;

// A switch's index in the tree: its rank, then one position per level
// (OpenSM's ftree_tuple_t); 0xFF where unassigned. Compared byte by byte.
using Tuple = std::array<uint8_t, kMostLevels>;
constexpr uint8_t kUnassigned = 0xFF;
constexpr uint16_t kNoEntry = UINT16_MAX;

[[noreturn]] void not_a_fat_tree(const std::string& why) {
  throw ConfigError(kRoutingKey, "ftree: " + why +
                                     "; OpenSM's ftree would not take this fabric for a fat tree and would route "
                                     "it minhop instead (docs/topology.md, \"ftree\")");
}

// One cable of a port group: the port on this switch and on the far one,
// with the routes counted through it each way.
struct Cable {
  uint16_t port = 0;
  uint16_t far_port = 0;
  uint32_t routes_up = 0;
  uint32_t routes_down = 0;
};

// All the cables from one switch to one neighbour (OpenSM's port group):
// routes are balanced between groups, then between a group's cables.
struct PortGroup {
  Kind far_kind = Kind::kNone;
  uint32_t far = 0;  // node id or switch index
  std::vector<Cable> cables;
  uint32_t routes_up = 0;
  uint32_t routes_down = 0;
};

enum class Direction : uint8_t { kDown, kSibling, kUp };

struct TreeSwitch {
  uint32_t rank = kUnranked;  // 0 at the roots
  Tuple tuple = filled_tuple();
  bool is_leaf = false;  // has compute nodes
  // Groups by id into FatTree::groups_, which never moves them: the
  // bubble sorts reorder these lists while routes hold group ids.
  std::vector<uint32_t> down, sibling, up;  // sibling: to switches of the same rank
  uint32_t least_down_routes = 0;           // min_counter_down
  bool up_routes_changed = false;           // counter_up_changed

  static Tuple filled_tuple() {
    Tuple t;
    t.fill(kUnassigned);
    return t;
  }
};

// A destination being routed: a compute node's id, or the slot after them
// for a node a leaf lacks against the fullest leaf, routed only to keep the
// counts even (OpenSM routes it as LID 0 and forgets its entries after).
using Target = uint32_t;

class FatTree {
 public:
  explicit FatTree(Topology& topology) : topology_(topology), switches_(topology.switches.size()) {
    if (topology.switches.size() < 2) not_a_fat_tree("the fabric has fewer than 2 switches");
    if (topology.nodes < 2) not_a_fat_tree("the fabric has fewer than 2 nodes");
    rank_from_leaves();
    build_port_groups();
    mark_leaves();
    index_switches();
    collect_leaves();
    validate();
  }

  // fabric_route_to_cns: each leaf in index order, its nodes in port
  // order, then as many missing nodes as it lacks against the fullest leaf.
  void route_compute_nodes() {
    const uint32_t targets = topology_.nodes + 1;  // the nodes, then the missing node's slot
    missing_node_ = topology_.nodes;
    entry_.assign(switches_.size(), std::vector<uint16_t>(targets, kNoEntry));
    hops_.assign(switches_.size(), std::vector<uint8_t>(targets, kNoPath));
    for (const uint32_t leaf : leaves_) {
      uint32_t routed = 0;
      for (size_t k = 0; k < switches_[leaf].down.size(); ++k) {  // in place, as OpenSM reads it
        const PortGroup& group = groups_[switches_[leaf].down[k]];
        if (group.far_kind != Kind::kNode) continue;
        set_entry(leaf, group.far, group.cables.front().port, 1);
        route_down_by_going_up(leaf, std::nullopt, group.far, /*main_path=*/true, 1);
        ++routed;
      }
      for (; routed < most_nodes_on_a_leaf_; ++routed) route_missing_node(leaf);
    }
    for (uint32_t s = 0; s < switches_.size(); ++s) {
      SwitchSpec& spec = topology_.switches[s];
      spec.forwarding.fill(PortId(spec.ports));  // uncabled: no route
      for (uint32_t node = 0; node < topology_.nodes; ++node) {
        if (entry_[s][node] != kNoEntry) spec.forwarding.set(node, PortId(entry_[s][node]));
      }
    }
  }

 private:
  // OpenSM's switch table order: by GUID as stored (network byte order).
  std::vector<uint32_t> switches_in_table_order() const {
    std::vector<uint32_t> order(switches_.size());
    std::iota(order.begin(), order.end(), 0U);
    std::ranges::sort(order, {}, [&](uint32_t s) { return switch_table_key(topology_, s); });
    return order;
  }

  // fabric_rank_from_hcas: distance from the nearest switch with nodes,
  // turned round so that the farthest switches are rank 0 (the roots).
  void rank_from_leaves() {
    std::deque<uint32_t> queue;
    for (uint32_t n = 0; n < topology_.nodes; ++n) {
      const Endpoint& link = topology_.node_link[n];
      if (link.kind != Kind::kSwitch || switches_[link.index].rank == 0) continue;
      switches_[link.index].rank = 0;
      queue.push_back(link.index);
    }
    uint32_t farthest = 0;
    while (!queue.empty()) {
      const uint32_t s = queue.front();
      queue.pop_front();
      for (const Endpoint& peer : topology_.switches[s].peer) {
        if (peer.kind != Kind::kSwitch || switches_[peer.index].rank <= switches_[s].rank + 1) continue;
        switches_[peer.index].rank = switches_[s].rank + 1;
        farthest = switches_[peer.index].rank;
        queue.push_back(peer.index);
      }
    }
    for (uint32_t s = 0; s < switches_.size(); ++s) {
      if (switches_[s].rank == kUnranked) not_a_fat_tree(switch_name(topology_, s) + " is cabled to no node's switch");
      switches_[s].rank = farthest - switches_[s].rank;
    }
    leaf_rank_ = farthest;
    if (leaf_rank_ == 0) not_a_fat_tree("every switch has nodes, so all are roots (OpenSM's ERR AB2B)");
    if (leaf_rank_ + 1 < kFewestLevels || leaf_rank_ + 1 > kMostLevels) {
      not_a_fat_tree("the tree has " + std::to_string(leaf_rank_ + 1) + " levels of switches (it routes " +
                     std::to_string(kFewestLevels) + " to " + std::to_string(kMostLevels) + ")");
    }
  }

  // fabric_construct_sw_ports: a switch's cables in port order, grouped by
  // the neighbour they lead to; towards a lower rank is up.
  void build_port_groups() {
    for (uint32_t s = 0; s < switches_.size(); ++s) {
      const SwitchSpec& spec = topology_.switches[s];
      for (uint16_t port = 0; port < spec.ports; ++port) {
        const Endpoint& peer = spec.peer[port];
        if (peer.kind == Kind::kNone || (peer.kind == Kind::kSwitch && peer.index == s)) continue;
        Direction direction = Direction::kDown;
        if (peer.kind == Kind::kSwitch) {
          const uint32_t far_rank = switches_[peer.index].rank;
          direction = switches_[s].rank > far_rank    ? Direction::kUp
                      : switches_[s].rank == far_rank ? Direction::kSibling
                                                      : Direction::kDown;
        }
        TreeSwitch& sw = switches_[s];
        add_cable(direction == Direction::kUp        ? sw.up
                  : direction == Direction::kSibling ? sw.sibling
                                                     : sw.down,
                  peer, port);
      }
    }
  }

  void add_cable(std::vector<uint32_t>& list, const Endpoint& peer, uint16_t port) {
    auto same_far = [&](uint32_t id) { return groups_[id].far_kind == peer.kind && groups_[id].far == peer.index; };
    auto found = std::ranges::find_if(list, same_far);
    if (found == list.end()) {
      groups_.push_back({peer.kind, peer.index, {}, 0, 0});
      list.push_back(static_cast<uint32_t>(groups_.size() - 1));
      found = list.end() - 1;
    }
    groups_[*found].cables.push_back({port, peer.port.value(), 0, 0});
  }

  // fabric_mark_leaf_switches: every node's switch is a leaf, at the
  // leaves' rank (true by construction when ranking from the nodes).
  void mark_leaves() {
    for (uint32_t n = 0; n < topology_.nodes; ++n) {
      const uint32_t s = topology_.node_link[n].index;
      switches_[s].is_leaf = true;
      if (switches_[s].rank != leaf_rank_)
        not_a_fat_tree("node " + std::to_string(n) + "'s switch is not at the leaves' rank");
    }
  }

  // fabric_get_new_tuple: the neighbour's tuple is this one's with the rank
  // changed and the first free number at the position the step names.
  Tuple new_tuple(const Tuple& from, Direction step) const {
    Tuple tuple = from;
    size_t position = 0;
    if (step == Direction::kDown) {
      ++tuple[0];
      position = from[0] + 1U;
    } else {
      --tuple[0];
      position = from[0];
    }
    for (uint8_t number = 0; number < kUnassigned; ++number) {
      tuple[position] = number;
      if (!assigned_.contains(tuple)) return tuple;
    }
    not_a_fat_tree("a switch has more than 254 neighbours in one direction");
  }

  void assign(uint32_t s, const Tuple& tuple) {
    switches_[s].tuple = tuple;
    assigned_.insert(tuple);
  }

  void sort_by_far_tuple(std::vector<uint32_t>& list) {
    std::ranges::sort(list, {}, [&](uint32_t id) { return switches_[groups_[id].far].tuple; });
  }

  // fabric_make_indexing: a breadth-first search from the first leaf in
  // the switch table; each switch numbers its unnumbered neighbours, then
  // orders its groups by their neighbours' tuples.
  void index_switches() {
    const std::vector<uint32_t> order = switches_in_table_order();
    const auto first = std::ranges::find_if(order, [&](uint32_t s) { return switches_[s].is_leaf; });
    Tuple tuple = TreeSwitch::filled_tuple();
    tuple[0] = static_cast<uint8_t>(switches_[*first].rank);
    for (uint32_t level = 1; level <= switches_[*first].rank; ++level) tuple[level] = 0;
    assign(*first, tuple);
    std::deque<uint32_t> queue{*first};
    while (!queue.empty()) {
      const uint32_t s = queue.front();
      queue.pop_front();
      if (switches_[s].rank < leaf_rank_) {
        number_neighbours(s, switches_[s].down, Direction::kDown, queue);
        sort_by_far_tuple(switches_[s].down);
      }
      if (switches_[s].rank != 0) {
        number_neighbours(s, switches_[s].up, Direction::kUp, queue);
        sort_by_far_tuple(switches_[s].up);
      }
    }
  }

  void number_neighbours(uint32_t s, const std::vector<uint32_t>& list, Direction step, std::deque<uint32_t>& queue) {
    for (const uint32_t id : list) {
      const PortGroup& group = groups_[id];
      if (group.far_kind != Kind::kSwitch || switches_[group.far].tuple[0] != kUnassigned) continue;
      assign(group.far, new_tuple(switches_[s].tuple, step));
      queue.push_back(group.far);
    }
  }

  // fabric_create_leaf_switch_array: the switches at the leaves' rank in
  // index order, from the first with nodes to the last; and
  // fabric_set_max_cn_per_leaf.
  void collect_leaves() {
    std::vector<uint32_t> at_leaf_rank;
    for (const uint32_t s : switches_in_table_order()) {
      if (switches_[s].rank == leaf_rank_) at_leaf_rank.push_back(s);
    }
    std::ranges::sort(at_leaf_rank, {}, [&](uint32_t s) { return switches_[s].tuple; });
    const auto is_leaf = [&](uint32_t s) { return switches_[s].is_leaf; };
    const auto first = std::ranges::find_if(at_leaf_rank, is_leaf);
    const auto last = std::ranges::find_if(at_leaf_rank.rbegin(), at_leaf_rank.rend(), is_leaf).base();
    if (first == at_leaf_rank.end() || first + 1 >= last) not_a_fat_tree("it has fewer than 2 leaf switches");
    leaves_.assign(first, last);
    for (const uint32_t leaf : leaves_) {
      const auto nodes = static_cast<uint32_t>(std::ranges::count_if(
          switches_[leaf].down, [&](uint32_t id) { return groups_[id].far_kind == Kind::kNode; }));
      most_nodes_on_a_leaf_ = std::max(most_nodes_on_a_leaf_, nodes);
    }
  }

  // fabric_validate_topology: at each rank, every switch has as many up
  // groups as the first one in the switch table, and (above the leaves) as
  // many down groups; every up group as many cables as the first one's
  // first, and (above the leaves) the first down group as many as its
  // first. OpenSM compares each switch's first down group, not each one.
  void validate() {
    std::vector<std::optional<uint32_t>> reference(leaf_rank_ + 1);
    for (const uint32_t s : switches_in_table_order()) {
      const TreeSwitch& sw = switches_[s];
      if (!reference[sw.rank]) {
        reference[sw.rank] = s;
        continue;
      }
      const TreeSwitch& ref = switches_[*reference[sw.rank]];
      const std::string pair = switch_name(topology_, *reference[sw.rank]) + " and " + switch_name(topology_, s);
      const bool above_leaves = sw.rank != leaf_rank_;
      if (ref.up.size() != sw.up.size()) not_a_fat_tree(pair + " have different numbers of up-going port groups");
      if (above_leaves && ref.down.size() != sw.down.size())
        not_a_fat_tree(pair + " have different numbers of down-going port groups");
      if (!ref.up.empty()) {
        for (const uint32_t id : sw.up) {
          if (groups_[id].cables.size() != groups_[ref.up.front()].cables.size())
            not_a_fat_tree(pair + " have up-going port groups of different sizes");
        }
      }
      if (!ref.down.empty() && above_leaves && !sw.down.empty() &&
          groups_[sw.down.front()].cables.size() != groups_[ref.down.front()].cables.size())
        not_a_fat_tree(pair + " have down-going port groups of different sizes");
    }
  }

  // port_group_compare_load_down: fewer routes down first; then, unless
  // the first's neighbour has the more loaded down-going groups, the
  // smaller neighbour index.
  bool goes_before_down(uint32_t a, uint32_t b) const {
    const PortGroup& first = groups_[a];
    const PortGroup& second = groups_[b];
    // OpenSM subtracts the unsigned counts into an int; so here.
    const auto routes = static_cast<int32_t>(first.routes_down - second.routes_down);
    if (routes != 0) return routes < 0;
    const auto load =
        static_cast<int32_t>(switches_[first.far].least_down_routes - switches_[second.far].least_down_routes);
    if (load > 0) return false;
    return lower_index(first, second);
  }

  // port_group_compare_load_up: fewer routes up first, then the smaller
  // neighbour index.
  bool goes_before_up(uint32_t a, uint32_t b) const {
    const PortGroup& first = groups_[a];
    const PortGroup& second = groups_[b];
    const auto routes = static_cast<int32_t>(first.routes_up - second.routes_up);
    if (routes != 0) return routes < 0;
    return lower_index(first, second);
  }

  // compare_port_groups_by_remote_switch_index on two groups' neighbours.
  // A leaf's groups to nodes get sorted too once a sibling cable counted a
  // route; OpenSM then reads each node as if it were a switch, and the
  // bytes it compares are alike for every node (the high bytes of a heap
  // pointer, a port-group count of 1), so they keep their order.
  bool lower_index(const PortGroup& first, const PortGroup& second) const {
    if (first.far_kind != Kind::kSwitch || second.far_kind != Kind::kSwitch) return false;
    return switches_[first.far].tuple < switches_[second.far].tuple;
  }

  // OpenSM's bubble sorts: passes of adjacent swaps until one swaps
  // nothing, each pass one shorter.
  template <typename Before>
  static void bubble_sort(std::vector<uint32_t>& list, Before before) {
    bool swapped = true;
    for (size_t pass = 0; swapped; ++pass) {
      swapped = false;
      for (size_t j = 1; j + pass < list.size(); ++j) {
        if (before(list[j], list[j - 1])) {
          std::swap(list[j], list[j - 1]);
          swapped = true;
        }
      }
    }
  }

  void sort_down_groups_by_routes_up(uint32_t s) {
    TreeSwitch& sw = switches_[s];
    if (!sw.up_routes_changed) return;  // bubble_sort_up sorts only after a count changed
    bubble_sort(sw.down, [&](uint32_t a, uint32_t b) { return goes_before_up(a, b); });
    sw.up_routes_changed = false;
  }

  // The group's first cable with fewest routes counted the given way.
  template <typename Routes>
  static Cable& least_used_cable(PortGroup& group, Routes routes) {
    Cable* least = &group.cables.front();
    for (Cable& cable : group.cables) {
      if (routes(cable) < routes(*least)) least = &cable;
    }
    return *least;
  }

  bool has_entry(uint32_t s, Target target) const { return entry_[s][target] != kNoEntry; }

  void set_entry(uint32_t s, Target target, uint16_t port, uint32_t hops) {
    entry_[s][target] = port;
    hops_[s][target] = static_cast<uint8_t>(hops);
  }

  // A missing node is routed from its leaf as LID 0, which starts with a
  // hop count of 1 at the leaf and no entry, and is cleared afterwards.
  void route_missing_node(uint32_t leaf) {
    hops_[leaf][missing_node_] = 1;
    route_down_by_going_up(leaf, std::nullopt, missing_node_, /*main_path=*/true, 1);
    for (uint32_t s = 0; s < switches_.size(); ++s) {
      entry_[s][missing_node_] = kNoEntry;
      hops_[s][missing_node_] = kNoPath;
    }
  }

  // fabric_route_upgoing_by_going_down: from switch s, every down-going
  // group, then (for a real node) every sibling group, but the one back to
  // where the route came up from, sends the target's packets to s on its
  // cable with fewest routes up, unless the switch there already has as
  // short a route; then on down from there. True if a route reached a node
  // (any leaf reaches one); the cable and group that carried it count it.
  // The lists are read in place, as OpenSM does, while the recursion runs.
  bool route_up_by_going_down(uint32_t s, std::optional<uint32_t> came_from, Target target, bool main_path,
                              uint32_t hops) {
    if (switches_[s].down.empty()) return false;
    sort_down_groups_by_routes_up(s);
    if (!switches_[s].sibling.empty())  // bubble_sort_siblings: every time, by routes up
      bubble_sort(switches_[s].sibling, [&](uint32_t a, uint32_t b) { return goes_before_up(a, b); });
    bool created = false;
    const size_t downs = switches_[s].down.size();
    const size_t groups = downs + (target == missing_node_ ? 0 : switches_[s].sibling.size());
    for (size_t k = 0; k < groups; ++k) {
      PortGroup& group = groups_[k < downs ? switches_[s].down[k] : switches_[s].sibling[k - downs]];
      if (group.far_kind != Kind::kSwitch) {
        created = true;
        continue;
      }
      if (came_from && group.far == *came_from) continue;
      Cable& cable = least_used_cable(group, [](const Cable& c) { return c.routes_up; });
      const uint32_t next = group.far;
      const uint8_t known = hops_[next][target];
      if (known != kNoPath && hops + 1 >= known) continue;
      set_entry(next, target, cable.far_port, hops + 1);
      const bool routed = route_up_by_going_down(next, std::nullopt, target, main_path, hops + 1);
      created |= routed;
      if (routed) {
        ++cable.routes_up;
        ++group.routes_up;
        switches_[s].up_routes_changed = true;
      }
    }
    return created;
  }

  // fabric_route_downgoing_by_going_up without reverse hops (OpenSM allows
  // them only towards I/O nodes): routes down from s first; then the main
  // path climbs the least loaded up-going group's least loaded cable,
  // counts it, sets the entry above unless that has a shorter one, and
  // climbs on; then secondary paths climb every other up-going group, and
  // cross every sibling group, on its least loaded cable, where the switch
  // there has no route as short; a sibling path that reaches a node is
  // counted on the main group and on the sibling cable.
  bool route_down_by_going_up(uint32_t s, std::optional<uint32_t> came_from, Target target, bool main_path,
                              uint32_t hops) {
    bool created = route_up_by_going_down(s, came_from, target, main_path, hops);
    if (switches_[s].rank == 0) return created;
    bubble_sort(switches_[s].up, [&](uint32_t a, uint32_t b) { return goes_before_down(a, b); });
    const uint32_t main_group = switches_[s].up.front();
    const auto routes_down = [](const Cable& c) { return c.routes_down; };
    if (main_path) {
      PortGroup& group = groups_[main_group];
      Cable& cable = least_used_cable(group, routes_down);
      const uint32_t above = group.far;
      ++group.routes_down;
      ++cable.routes_down;
      if (group.routes_down == switches_[above].least_down_routes + 1) recount_least_down_routes(above);
      if (!has_entry(above, target) || hops + 1 < hops_[above][target])
        set_entry(above, target, cable.far_port, hops + 1);
      created |= route_down_by_going_up(above, s, target, /*main_path=*/true, hops + 1);
    }
    for (size_t i = main_path ? 1 : 0; i < switches_[s].up.size(); ++i) {
      PortGroup& group = groups_[switches_[s].up[i]];
      const uint32_t above = group.far;
      if (has_entry(above, target) && hops + 1 >= hops_[above][target]) continue;
      set_entry(above, target, least_used_cable(group, routes_down).far_port, hops + 1);
      created |= route_down_by_going_up(above, s, target, /*main_path=*/false, hops + 1);
    }
    if (!switches_[s].sibling.empty())
      bubble_sort(switches_[s].sibling, [&](uint32_t a, uint32_t b) { return goes_before_down(a, b); });
    for (size_t i = 0; i < switches_[s].sibling.size(); ++i) {
      PortGroup& group = groups_[switches_[s].sibling[i]];
      const uint32_t beside = group.far;
      if (has_entry(beside, target) && hops + 1 >= hops_[beside][target]) continue;
      Cable& cable = least_used_cable(group, routes_down);
      set_entry(beside, target, cable.far_port, hops + 1);
      const bool routed = route_down_by_going_up(beside, s, target, /*main_path=*/false, hops + 1);
      created |= routed;
      if (routed) {
        ++groups_[main_group].routes_down;
        ++cable.routes_down;
      }
    }
    return created;
  }

  // recalculate_min_counter_down: the fewest routes down any of the
  // switch's down-going groups has counted. (Only up-going groups count
  // routes down, so this stays 0; kept as OpenSM computes it.)
  void recount_least_down_routes(uint32_t s) {
    uint32_t least = 1U << 30;
    for (const uint32_t id : switches_[s].down) least = std::min(least, groups_[id].routes_down);
    switches_[s].least_down_routes = least;
  }

  Topology& topology_;
  std::vector<TreeSwitch> switches_;
  std::vector<PortGroup> groups_;
  std::set<Tuple> assigned_;
  uint32_t leaf_rank_ = 0;
  std::vector<uint32_t> leaves_;  // in index order
  uint32_t most_nodes_on_a_leaf_ = 0;
  // By switch, then target (the nodes, then the missing node's slot): the
  // port of its entry and that entry's hop count.
  std::vector<std::vector<uint16_t>> entry_;
  std::vector<std::vector<uint8_t>> hops_;
  Target missing_node_ = 0;
};

void route_ftree(Topology& topology, const ParameterValues&) {
  FatTree tree(topology);
  tree.route_compute_nodes();
}

}  // namespace

IBSEC_REGISTER_ROUTING("ftree",
                       "OpenSM's fat-tree routing on a fat tree it recognises (every node a compute node): nodes "
                       "routed leaf by leaf in index order, each up the least loaded ports and down again; entry "
                       "for entry as OpenSM 3.3 computes it",
                       {}, route_ftree)

}  // namespace ibsec::network
