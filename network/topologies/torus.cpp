// A 1-, 2- or 3-D torus of switches (k_x x k_y x k_z), nodes on every
// switch, wraparound cables in every ring of more than 2 switches, routed
// in dimension order (x, then y, then z) the shorter way around each ring,
// deadlock-free with a dateline virtual lane per ring of 5 or more switches
// (Dally & Seitz): with 4 or more virtual lanes, two classes of lanes.
// docs/topology.md, "torus".
#include <algorithm>
#include <array>
#include <memory>
#include <regex>
#include <string>

#include "core/errors.h"
#include "network/topology_wiring.h"

namespace ibsec::network {
namespace {

using namespace wiring;

constexpr const char* kDimsKey = "network.torus.dims";
constexpr const char* kNodesPerSwitchKey = "network.torus.nodes_per_switch";
constexpr const char* kHalfWayKey = "network.torus.half_way";
constexpr const char* kAlternate = "alternate";
constexpr const char* kNoWrap = "no-wrap";
constexpr uint32_t kMaxDims = 3;
constexpr std::array<char, kMaxDims> kDimName{'x', 'y', 'z'};
constexpr uint8_t kNoPort = 0xFF;  // a direction a ring of 1 switch does not have

enum Direction : uint32_t { kPlus = 0, kMinus = 1 };

struct TorusShape {
  uint32_t dims = 0;                             // 1..3
  std::array<uint32_t, kMaxDims> size{1, 1, 1};  // switches per ring; 1 beyond `dims`
  uint32_t nodes_per_switch = 1;
  uint32_t nodes = 0;
  uint32_t switches = 1;
  uint32_t ports = 0;  // per switch: the nodes', then each dimension's + and - (one port for a ring of 2)
  // port[d][dir]: the port of dimension d in that direction (a ring of 2: both the same port).
  std::array<std::array<uint32_t, 2>, kMaxDims> port{};
  bool datelines = false;        // some ring has 5 or more switches, so routes within it can close a cycle
  bool no_wrap = false;          // half way round: towards the higher coordinate (OpenSM's torus-2QoS), else by parity
  uint32_t lanes_per_class = 1;  // of the two dateline classes: half network.virtual_lanes, at least 1

  [[nodiscard]] uint32_t coordinate(uint32_t s, uint32_t d) const {
    for (uint32_t i = 0; i < d; ++i) s /= size[i];
    return s % size[d];
  }
  // The switch one step from s in dimension d, direction dir.
  [[nodiscard]] uint32_t neighbour(uint32_t s, uint32_t d, Direction dir) const {
    uint32_t stride = 1;
    for (uint32_t i = 0; i < d; ++i) stride *= size[i];
    const uint32_t c = coordinate(s, d);
    const uint32_t to = dir == kPlus ? (c + 1) % size[d] : (c + size[d] - 1) % size[d];
    return s - c * stride + to * stride;
  }
  [[nodiscard]] std::string name() const {
    if (dims == 1) return "the ring of " + std::to_string(size[0]) + (size[0] == 1 ? " switch" : " switches");
    std::string text;
    for (uint32_t d = 0; d < dims; ++d) {
      if (d > 0) text += 'x';
      text += std::to_string(size[d]);
    }
    return "the " + text + " torus";
  }
};

void read_dims(const TopologyParams& params, TorusShape& shape) {
  // A 1-D torus may be given as a number ("network.torus.dims": 8, or --set network.torus.dims=8).
  const nlohmann::json& value = params.own.at(kDimsKey);
  const bool number = value.is_number_integer() && value.get<int64_t>() >= 0;
  const std::string text = number ? std::to_string(value.get<int64_t>()) : params.own.text(kDimsKey);
  static const std::regex form(R"(^\s*(\d{1,7})(?:\s*x\s*(\d{1,7}))?(?:\s*x\s*(\d{1,7}))?\s*$)");
  std::smatch match;
  if (!std::regex_match(text, match, form)) {
    throw ConfigError(kDimsKey,
                      "must be 1 to 3 ring sizes joined by x, e.g. \"8\", \"4x4\" or \"4x4x4\", got \"" + text + "\"");
  }
  uint64_t switches = 1;
  for (uint32_t d = 0; d < kMaxDims && match[d + 1].matched; ++d) {
    const uint64_t k = std::stoull(match[d + 1].str());
    if (k == 0) {
      throw ConfigError(kDimsKey, std::string("every ring needs at least 1 switch, but ") + kDimName[d] +
                                      " has 0 in \"" + text + "\"");
    }
    switches *= k;
    if (switches > kMaxNodes) {
      throw ConfigError(kDimsKey,
                        "at most " + std::to_string(kMaxNodes) + " switches are supported, \"" + text + "\" has more");
    }
    shape.size[d] = static_cast<uint32_t>(k);
    shape.dims = d + 1;
  }
  shape.switches = static_cast<uint32_t>(switches);
}

// Ports 0..c-1 to nodes, then per dimension of a ring of 3 or more the +
// port and the - port, of a ring of 2 one port (its two switches have one
// cable between them), of a ring of 1 none.
void lay_out_ports(const TopologyParams& params, TorusShape& shape) {
  const uint32_t per_switch = count_from_one(params, kNodesPerSwitchKey, kMaxSwitchPorts);
  shape.nodes_per_switch = per_switch;
  uint64_t next = per_switch;
  for (uint32_t d = 0; d < kMaxDims; ++d) {
    const uint32_t k = shape.size[d];
    if (k == 1) {
      shape.port[d] = {kNoPort, kNoPort};
    } else if (k == 2) {
      shape.port[d] = {static_cast<uint32_t>(next), static_cast<uint32_t>(next)};
      next += 1;
    } else {
      shape.port[d] = {static_cast<uint32_t>(next), static_cast<uint32_t>(next + 1)};
      next += 2;
    }
    // In a ring of 5 or more, a route of 2 hops the shorter way starts at
    // every switch, so the dependencies close round the ring. In a ring of 4
    // only the half-way routes have 2 hops, and either half-way rule starts
    // them at two switches in each direction (0 and 2, or 0 and 1), which
    // closes nothing; rings of 3 or fewer have no route of 2 hops at all.
    if (k >= 5) shape.datelines = true;
  }
  if (next > kMaxSwitchPorts) {
    throw ConfigError(kNodesPerSwitchKey, "a switch would need " + std::to_string(next) + " ports, more than the " +
                                              std::to_string(kMaxSwitchPorts) + " of a 16-bit port number");
  }
  shape.ports = static_cast<uint32_t>(next);
  if (params.switch_ports != 0 && params.switch_ports < shape.ports) {
    throw ConfigError("network.switch_ports", "must be 0 or at least the " + std::to_string(shape.ports) +
                                                  " ports a switch of " + shape.name() + " with " +
                                                  std::to_string(per_switch) + " nodes each uses, got " +
                                                  std::to_string(params.switch_ports));
  }
  shape.ports = std::max(shape.ports, params.switch_ports);
}

void count_nodes(const TopologyParams& params, TorusShape& shape) {
  const uint64_t capacity = uint64_t{shape.switches} * shape.nodes_per_switch;
  if (capacity > kMaxNodes) {
    throw ConfigError(kNodesPerSwitchKey, shape.name() + " with " + std::to_string(shape.nodes_per_switch) +
                                              " nodes per switch has " + std::to_string(capacity) +
                                              " nodes, more than the " + std::to_string(kMaxNodes) + " supported");
  }
  if (params.nodes > capacity) {
    throw ConfigError("network.nodes", "at most " + std::to_string(capacity) + " nodes fit " + shape.name() + " with " +
                                           std::to_string(shape.nodes_per_switch) + " per switch, got " +
                                           std::to_string(params.nodes));
  }
  shape.nodes = params.nodes != 0 ? params.nodes : static_cast<uint32_t>(capacity);
}

bool read_half_way(const TopologyParams& params) {
  const std::string rule = params.own.text(kHalfWayKey);
  if (rule != kAlternate && rule != kNoWrap) {
    throw ConfigError(kHalfWayKey,
                      std::string("must be \"") + kAlternate + "\" or \"" + kNoWrap + "\", got \"" + rule + "\"");
  }
  return rule == kNoWrap;
}

TorusShape size_torus(const TopologyParams& params) {
  TorusShape shape;
  read_dims(params, shape);
  shape.no_wrap = read_half_way(params);
  lay_out_ports(params, shape);
  count_nodes(params, shape);
  shape.lanes_per_class = std::max(1U, params.virtual_lanes / 2);
  return shape;
}

// --- wiring ------------------------------------------------------------------

// Nodes packed switch by switch: node n on switch n div c, port n mod c.
void wire(Topology& topology, const TorusShape& shape) {
  for (uint32_t n = 0; n < shape.nodes; ++n) {
    connect(topology, node_card(n), switch_port(n / shape.nodes_per_switch, n % shape.nodes_per_switch));
  }
  for (uint32_t s = 0; s < shape.switches; ++s) {
    for (uint32_t d = 0; d < shape.dims; ++d) {
      const uint32_t k = shape.size[d];
      if (k == 1) continue;
      // Each switch cables its + port to the next switch's - port; a ring of
      // 2 has one cable, laid from the switch at coordinate 0.
      if (k == 2 && shape.coordinate(s, d) != 0) continue;
      connect(topology, switch_port(s, shape.port[d][kPlus]),
              switch_port(shape.neighbour(s, d, kPlus), shape.port[d][kMinus]));
    }
  }
}

// --- dimension-order routing -----------------------------------------------------

// The way from coordinate `from` to `to` around a ring of k: the shorter.
// Half way round (k even): by default + from an even coordinate and - from
// an odd one, so that every channel of the ring carries the same load under
// uniform traffic; with no_wrap, towards the higher coordinate, so that the
// route does not cross the dateline, as OpenSM's torus-2QoS does.
Direction way_round(uint32_t from, uint32_t to, uint32_t k, bool no_wrap) {
  const uint32_t ahead = (to + k - from) % k;
  if (2 * ahead < k) return kPlus;
  if (2 * ahead > k) return kMinus;
  if (no_wrap) return from < to ? kPlus : kMinus;
  return from % 2 == 0 ? kPlus : kMinus;
}

// Dimension order: the first dimension in which switch s and the
// destination's switch differ, the shorter way round; at its switch, its port.
class DimensionOrderRoutes final : public ForwardingRule {
 public:
  explicit DimensionOrderRoutes(const TorusShape& shape) : shape_(shape) {}
  [[nodiscard]] PortId port(uint32_t s, uint32_t n) const override {
    const uint32_t t = n / shape_.nodes_per_switch;
    uint32_t port = n % shape_.nodes_per_switch;
    for (uint32_t d = 0; d < shape_.dims && t != s; ++d) {
      const uint32_t from = shape_.coordinate(s, d);
      const uint32_t to = shape_.coordinate(t, d);
      if (from == to) continue;
      port = shape_.port[d][way_round(from, to, shape_.size[d], shape_.no_wrap)];
      break;
    }
    return PortId(static_cast<uint16_t>(port));
  }

 private:
  TorusShape shape_;
};

// --- dateline lanes --------------------------------------------------------------

// The dimension and direction a switch port points in (a packet going +
// arrives on the port that points -); d = kMaxDims for a node's port (or an
// unused one).
struct PortRole {
  uint32_t d = kMaxDims;
  Direction dir = kPlus;
};

PortRole role_of(const TorusShape& shape, uint32_t port) {
  for (uint32_t d = 0; d < shape.dims; ++d) {
    if (shape.size[d] < 3) {
      if (shape.size[d] == 2 && port == shape.port[d][kPlus]) return {d, kPlus};
      continue;
    }
    if (port == shape.port[d][kPlus]) return {d, kPlus};
    if (port == shape.port[d][kMinus]) return {d, kMinus};
  }
  return {};
}

// In a torus with a ring of 5 or more, the lanes form two classes of h =
// lanes_per_class each (half network.virtual_lanes, at least 1): class 0,
// lanes [0, h), until a packet crosses the dateline of the ring it is in,
// the wraparound cable between coordinates k-1 and 0, and class 1, lanes
// [h, 2h), from that cable on; back to class 0 on entering the next
// dimension. A packet keeps its index within a class: on lane L it enters
// a dimension on L mod h, crosses a dateline to h + (L mod h), and goes on
// round the ring on L. A route goes less than once round a ring, so it
// crosses each dateline at most once; in each direction of a ring the
// class-0 channels end at the dateline and the class-1 ones start there,
// so no lane's dependencies close round the ring, and dimension order
// closes none across rings. With h = 1 (fewer than 4 lanes) that is lane 0
// before the dateline and lane 1 after it, the same map as ever.
// Why classes rather than lanes 0 and 1 alone: those leave every further
// lane empty inside the torus, and under uniform traffic a torus saturates
// well short of its channel bound (an 8x8 with FIFO buffers at about 0.6 of
// it, a 6x6 of 2 nodes a switch at about 0.6, whatever the lanes); with 2h
// lanes on every ring cable, each with its own buffer and credits, a
// blocked packet holds up fewer others (on 8 lanes about 0.62 and 0.8;
// docs/network.md, "Tori: the bound").
void fill_lanes(SwitchSpec& spec, const TorusShape& shape, uint32_t s) {
  const uint32_t h = shape.lanes_per_class;
  spec.lane_map.assign(static_cast<size_t>(shape.ports) * shape.ports * kLaneMapLanes, 0);
  for (uint32_t in = 0; in < shape.ports; ++in) {
    const PortRole from = role_of(shape, in);
    for (uint32_t out = 0; out < shape.ports; ++out) {
      const PortRole to = role_of(shape, out);
      uint8_t* entry = &spec.lane_map[(static_cast<size_t>(in) * shape.ports + out) * kLaneMapLanes];
      for (uint32_t lane = 0; lane < kLaneMapLanes; ++lane) {
        uint8_t& out_lane = entry[lane];
        if (to.d == kMaxDims) {
          out_lane = static_cast<uint8_t>(lane);  // to a node: the lane it came on
          continue;
        }
        const uint32_t c = shape.coordinate(s, to.d);
        const uint32_t k = shape.size[to.d];
        const bool dateline = k >= 3 && (to.dir == kPlus ? c == k - 1 : c == 0);
        // Going on round the same ring: in on the port that points back the
        // way the packet came, out on the other one of that dimension.
        const bool on_round = from.d == to.d && from.dir != to.dir;
        const uint32_t index = lane % h;
        out_lane = static_cast<uint8_t>(dateline ? h + index : on_round ? lane : index);
      }
    }
  }
}

std::vector<ShapeCount> shape_counts(const TorusShape& shape) {
  uint64_t diameter = 1;
  for (uint32_t d = 0; d < shape.dims; ++d) diameter += shape.size[d] / 2;
  return {
      {"dimensions", "dimensions", "dimensions of the torus (1 to 3)", shape.dims},
      {"size_x", "switches", "switches in each ring of dimension x", shape.size[0]},
      {"size_y", "switches", "switches in each ring of dimension y (1 if the torus has fewer dimensions)",
       shape.size[1]},
      {"size_z", "switches", "switches in each ring of dimension z (1 if the torus has fewer dimensions)",
       shape.size[2]},
      {"nodes_per_switch", "nodes", "nodes cabled to each switch (the last switches may hold fewer, or none)",
       shape.nodes_per_switch},
      {"diameter", "switches", "switches the longest route crosses: sum over dimensions of floor(k/2), plus 1",
       diameter},
      {"lanes_needed", "lanes",
       "virtual lanes the dimension-order routing needs: 2 (a dateline lane) with a ring of 5 or more, else 1",
       shape.datelines ? 2U : 1U},
  };
}

Topology build_torus(const TopologyParams& params) {
  const TorusShape shape = size_torus(params);
  Topology topology = unwired_topology("torus", shape.nodes, shape_counts(shape));
  topology.lanes_needed = shape.datelines ? 2U : 1U;
  if (shape.datelines) topology.lanes_needed_by = "the dimension-order routing of " + shape.name() + " (datelines)";
  topology.switches.reserve(shape.switches);
  const auto routes = std::make_shared<const DimensionOrderRoutes>(shape);
  for (uint32_t s = 0; s < shape.switches; ++s) {
    topology.switches.push_back(make_switch(shape.ports, 0, shape.nodes, routes, s));
    if (shape.datelines) fill_lanes(topology.switches.back(), shape, s);
  }
  wire(topology, shape);
  return topology;
}

}  // namespace

IBSEC_REGISTER_TOPOLOGY(
    "torus",
    "a 1-, 2- or 3-D torus of switches with nodes on every switch, dimension-order routing the shorter way round each "
    "ring, a dateline virtual lane per ring of 5 or more (2 lanes; with 4 or more, two classes of half of them)",
    (std::vector<ParameterInfo>{
        {kDimsKey, "4x4x4", "switches",
         "switches per ring in each dimension, 1 to 3 sizes joined by x: \"8\", \"4x4\", \"4x4x4\""},
        {kNodesPerSwitchKey, 1, "nodes", "nodes cabled to each switch; nodes fill switches in order"},
        {kHalfWayKey, kAlternate, "",
         "the way half round an even ring: \"alternate\" (+ from an even coordinate, - from an odd one: every "
         "channel equally loaded) or \"no-wrap\" (towards the higher coordinate, never across the dateline: "
         "OpenSM's torus-2QoS)"},
    }),
    build_torus)

}  // namespace ibsec::network
