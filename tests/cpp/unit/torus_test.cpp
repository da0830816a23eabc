// Tori (network.topology=torus) against docs/topology.md: every switch's
// cables (wraparound links, a ring of 2 with one cable, a ring of 1 with
// none), route lengths equal to the closed form for every pair, the
// half-way tie-break, the lane of every hop, the channel-dependency check on
// one lane and on two, and a ConfigError naming the parameter for every torus
// that cannot be built or run.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <ostream>
#include <string>
#include <vector>

#include "core/errors.h"
#include "network/routing.h"
#include "network/topology.h"
#include "support/topology_refusal.h"

namespace ibsec::network {
namespace {

using Kind = Endpoint::Kind;

struct Torus {
  const char* dims;
  uint32_t nodes_per_switch;
  uint32_t nodes;  // 0: every switch full
};

void PrintTo(const Torus& t, std::ostream* os) {
  *os << t.dims << ", " << t.nodes_per_switch << " per switch, " << t.nodes << " nodes";
}

TopologyParams params_of(const Torus& t) {
  return TopologyParams::of("torus", t.nodes,
                            {{"network.torus.dims", t.dims}, {"network.torus.nodes_per_switch", t.nodes_per_switch}});
}

Topology build(const Torus& t) { return build_topology(params_of(t)); }

uint64_t shape_count(const Topology& topology, const std::string& name) {
  for (const ShapeCount& count : topology.shape) {
    if (count.name == name) return count.value;
  }
  ADD_FAILURE() << "no shape count " << name;
  return 0;
}

// Ring sizes of a torus as the test writes them, padded with 1s.
std::array<uint32_t, 3> sizes_of(const Topology& topology) {
  return {static_cast<uint32_t>(shape_count(topology, "size_x")),
          static_cast<uint32_t>(shape_count(topology, "size_y")),
          static_cast<uint32_t>(shape_count(topology, "size_z"))};
}

std::array<uint32_t, 3> coordinates(uint32_t s, const std::array<uint32_t, 3>& k) {
  return {s % k[0], s / k[0] % k[1], s / (k[0] * k[1])};
}

uint32_t switch_at(const std::array<uint32_t, 3>& c, const std::array<uint32_t, 3>& k) {
  return c[0] + k[0] * (c[1] + k[1] * c[2]);
}

// --- wiring -------------------------------------------------------------------------

TEST(Torus, FourCubedHasSixCabledNeighboursPerSwitchWithWraparound) {
  const Topology t = build({"4x4x4", 1, 0});
  ASSERT_EQ(t.nodes, 64U);
  ASSERT_EQ(t.switches.size(), 64U);
  const std::array<uint32_t, 3> k{4, 4, 4};
  for (uint32_t s = 0; s < 64; ++s) {
    const SwitchSpec& spec = t.switches[s];
    ASSERT_EQ(spec.ports, 7U);  // 1 node, then x+ x- y+ y- z+ z-
    EXPECT_EQ(spec.peer[0], (Endpoint{Kind::kNode, s, PortId(0)}));
    const auto c = coordinates(s, k);
    for (uint32_t d = 0; d < 3; ++d) {
      auto plus = c;
      plus[d] = (c[d] + 1) % 4;
      auto minus = c;
      minus[d] = (c[d] + 3) % 4;
      const auto plus_port = static_cast<uint16_t>(1 + 2 * d);
      EXPECT_EQ(spec.peer[plus_port], (Endpoint{Kind::kSwitch, switch_at(plus, k), PortId(plus_port + 1)}));
      EXPECT_EQ(spec.peer[plus_port + 1], (Endpoint{Kind::kSwitch, switch_at(minus, k), PortId(plus_port)}));
    }
  }
  // The x wraparound cable: (3,0,0) x+ to (0,0,0) x-.
  EXPECT_EQ(t.switches[3].peer[1], (Endpoint{Kind::kSwitch, 0, PortId(2)}));
  EXPECT_EQ(shape_count(t, "dimensions"), 3U);
  EXPECT_EQ(shape_count(t, "diameter"), 7U);
  EXPECT_EQ(shape_count(t, "lanes_needed"), 1U);  // rings of 4: below
  EXPECT_EQ(t.lanes_needed, 1U);
}

TEST(Torus, ARingOfTwoHasOneCableAndARingOfOneNone) {
  // x: a ring of 4 (ports 2, 3), y: a ring of 1 (no port), z: a ring of 2 (port 4); 2 nodes each.
  const Topology t = build({"4x1x2", 2, 0});
  ASSERT_EQ(t.switches.size(), 8U);
  ASSERT_EQ(t.nodes, 16U);
  uint32_t switch_cables = 0;
  for (uint32_t s = 0; s < 8; ++s) {
    const SwitchSpec& spec = t.switches[s];
    ASSERT_EQ(spec.ports, 5U);
    EXPECT_EQ(spec.peer[0], (Endpoint{Kind::kNode, 2 * s, PortId(0)}));
    EXPECT_EQ(spec.peer[1], (Endpoint{Kind::kNode, 2 * s + 1, PortId(0)}));
    // z: the one cable to the other switch of the ring, on the same port.
    EXPECT_EQ(spec.peer[4], (Endpoint{Kind::kSwitch, (s + 4) % 8, PortId(4)}));
    for (uint16_t p = 2; p < 5; ++p) switch_cables += spec.peer[p].kind == Kind::kSwitch ? 1 : 0;
  }
  EXPECT_EQ(switch_cables / 2, 8U + 4U);  // 2 rings of 4 in x, 4 rings of 2 in z
  EXPECT_EQ(shape_count(t, "size_y"), 1U);
  EXPECT_EQ(shape_count(t, "diameter"), 4U);  // 2 + 0 + 1, plus 1
}

TopologyParams with_half_way(TopologyParams params, const char* rule) {
  ParameterTable own;
  for (const char* key : {"network.torus.dims", "network.torus.nodes_per_switch"}) own[key] = params.own.at(key);
  own["network.torus.half_way"] = rule;
  params.own = ParameterValues(std::move(own));
  return params;
}

TEST(Torus, RingsOfFourOrFewerNeedNoDatelines) {
  // In a ring of 3 every route is one hop; in a ring of 4 only the half-way
  // routes have two, and either half-way rule starts them at only two
  // switches per direction: no route closes a cycle round the ring, so one
  // lane is deadlock-free and no switch changes lanes.
  for (const char* dims : {"3x3x3", "4x4x4", "4x3"}) {
    for (const char* rule : {"alternate", "no-wrap"}) {
      const Topology t = build_topology(with_half_way(params_of({dims, 1, 0}), rule));
      EXPECT_EQ(t.lanes_needed, 1U) << dims << " " << rule;
      EXPECT_FALSE(t.maps_lanes()) << dims << " " << rule;
      EXPECT_TRUE(dependency_cycle(t).empty()) << dims << " " << rule;
      EXPECT_NO_THROW(check_virtual_lanes(t, 1)) << dims << " " << rule;
    }
  }
  // A ring of 5: a route of 2 hops starts at every switch.
  const Topology five = build({"5x4", 1, 0});
  EXPECT_EQ(five.lanes_needed, 2U);
  EXPECT_TRUE(five.maps_lanes());
  EXPECT_EQ(shape_count(five, "lanes_needed"), 2U);
}

TEST(Torus, NodesFillSwitchesInOrder) {
  const Topology t = build({"4x4", 2, 7});
  ASSERT_EQ(t.nodes, 7U);
  ASSERT_EQ(t.switches.size(), 16U);
  EXPECT_EQ(t.node_link[6], (Endpoint{Kind::kSwitch, 3, PortId(0)}));
  EXPECT_EQ(t.switches[3].peer[1].kind, Kind::kNone);  // the rest of the torus holds no node
  EXPECT_EQ(t.switches[15].peer[0].kind, Kind::kNone);
  EXPECT_NO_THROW(check_routes(t, "network.routing"));
}

// --- routes ---------------------------------------------------------------------------

class TorusRoutes : public ::testing::TestWithParam<Torus> {};

// Every route crosses 1 + sum over dimensions of min(|d|, k - |d|) switches,
// and the tables pass the route and channel-dependency checks.
TEST_P(TorusRoutes, EveryPairCrossesTheClosedFormsSwitches) {
  const Torus torus = GetParam();
  const Topology t = build(torus);
  const auto k = sizes_of(t);
  for (uint32_t src = 0; src < t.nodes; ++src) {
    for (uint32_t dst = 0; dst < t.nodes; ++dst) {
      const auto a = coordinates(src / torus.nodes_per_switch, k);
      const auto b = coordinates(dst / torus.nodes_per_switch, k);
      uint32_t expected = 1;
      for (uint32_t d = 0; d < 3; ++d) {
        const uint32_t ahead = (b[d] + k[d] - a[d]) % k[d];
        expected += std::min(ahead, k[d] - ahead);
      }
      ASSERT_EQ(t.switch_hops(NodeId(src), NodeId(dst)), expected) << src << " -> " << dst;
    }
  }
  EXPECT_NO_THROW(check_routes(t, "network.routing"));
  EXPECT_NO_THROW(check_virtual_lanes(t, 2));
}

// Dimension order: once a route leaves a dimension it never comes back to it.
TEST_P(TorusRoutes, RoutesGoXThenYThenZ) {
  const Torus torus = GetParam();
  const Topology t = build(torus);
  const auto k = sizes_of(t);
  for (uint32_t src = 0; src < t.nodes; src += 3) {
    for (uint32_t dst = 0; dst < t.nodes; ++dst) {
      const auto route = t.route(NodeId(src), NodeId(dst));
      uint32_t dimension = 0;
      for (size_t h = 0; h + 1 < route.size(); ++h) {
        const auto here = coordinates(route[h].first, k);
        const auto next = coordinates(route[h + 1].first, k);
        uint32_t moved = 3;
        for (uint32_t d = 0; d < 3; ++d) moved = here[d] != next[d] ? d : moved;
        ASSERT_LT(moved, 3U);
        ASSERT_GE(moved, dimension) << src << " -> " << dst << " went back to an earlier dimension";
        dimension = moved;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Torus, TorusRoutes,
                         ::testing::Values(Torus{"4x4x4", 1, 0}, Torus{"3x3x3", 1, 0}, Torus{"5x4", 2, 0},
                                           Torus{"8", 1, 0}, Torus{"6x2x3", 1, 0}, Torus{"2x2", 3, 0},
                                           Torus{"4x1x5", 2, 37}, Torus{"1", 4, 0}, Torus{"6x6x3", 1, 0}),
                         [](const auto& info) {
                           std::string name = std::string(info.param.dims) + "_" +
                                              std::to_string(info.param.nodes_per_switch) + "per_switch";
                           if (info.param.nodes != 0) name += "_" + std::to_string(info.param.nodes) + "nodes";
                           return name;
                         });

TEST(Torus, HalfWayRoundGoesPlusFromEvenCoordinatesAndMinusFromOdd) {
  const Topology t = build({"4", 1, 0});  // ports: 0 node, 1 +, 2 -
  EXPECT_EQ(t.route(NodeId(0), NodeId(2)).front().second, PortId(1));
  EXPECT_EQ(t.route(NodeId(2), NodeId(0)).front().second, PortId(1));
  EXPECT_EQ(t.route(NodeId(1), NodeId(3)).front().second, PortId(2));
  EXPECT_EQ(t.route(NodeId(3), NodeId(1)).front().second, PortId(2));
  // Otherwise the shorter way.
  EXPECT_EQ(t.route(NodeId(0), NodeId(3)).front().second, PortId(2));
  EXPECT_EQ(t.route(NodeId(3), NodeId(0)).front().second, PortId(1));
}

TEST(Torus, NoWrapGoesHalfWayRoundTowardsTheHigherCoordinate) {
  // OpenSM's torus-2QoS: a half-way route never crosses the dateline.
  const Topology t = build_topology(with_half_way(params_of({"4", 1, 0}), "no-wrap"));
  EXPECT_EQ(t.route(NodeId(0), NodeId(2)).front().second, PortId(1));
  EXPECT_EQ(t.route(NodeId(1), NodeId(3)).front().second, PortId(1));
  EXPECT_EQ(t.route(NodeId(2), NodeId(0)).front().second, PortId(2));
  EXPECT_EQ(t.route(NodeId(3), NodeId(1)).front().second, PortId(2));
}

// --- lanes -----------------------------------------------------------------------------

std::vector<uint8_t> lanes_of(const Topology& t, uint32_t src, uint32_t dst, uint8_t lane = 0) {
  std::vector<uint8_t> lanes;
  for (const Hop& hop : t.hops(NodeId(src), NodeId(dst), lane)) lanes.push_back(hop.lane);
  return lanes;
}

TEST(Torus, APacketMovesToLaneOneOnTheDatelineAndBackToZeroInTheNextDimension) {
  const Topology ring = build({"8", 1, 0});
  // 6 -> 1 goes + round: 6, 7 across the dateline 7 -> 0, 0, then 1 to its node.
  EXPECT_EQ(lanes_of(ring, 6, 1), (std::vector<uint8_t>{0, 1, 1, 1}));
  // 1 -> 6 goes - round: 1, 0 across the dateline 0 -> 7, 7, 6.
  EXPECT_EQ(lanes_of(ring, 1, 6), (std::vector<uint8_t>{0, 1, 1, 1}));
  // Not crossing it: lane 0 all the way, whatever lane the card sent on.
  EXPECT_EQ(lanes_of(ring, 2, 5, 1), (std::vector<uint8_t>{0, 0, 0, 0}));
  EXPECT_EQ(lanes_of(ring, 2, 5, 9), (std::vector<uint8_t>{0, 0, 0, 0}));

  const Topology square = build({"6x6", 1, 0});  // node x + 6y
  // (5,0) -> (0,4): x + across the dateline 5 -> 0 (lane 1), then y - from
  // (0,0) across the y dateline 0 -> 5 (lane 1), on to (0,4) and its node.
  EXPECT_EQ(lanes_of(square, 5, 24), (std::vector<uint8_t>{1, 1, 1, 1}));
  // (5,0) -> (0,2): x as before, then y + without a dateline: back to lane 0.
  EXPECT_EQ(lanes_of(square, 5, 12), (std::vector<uint8_t>{1, 0, 0, 0}));
}

TEST(Torus, DependencyCheckAcceptsTwoLanesAndRefusesOneNamingTheCycle) {
  const Topology t = build({"5x5x5", 1, 0});
  EXPECT_TRUE(t.maps_lanes());
  EXPECT_TRUE(dependency_cycle(t).empty());
  EXPECT_NO_THROW(check_virtual_lanes(t, 2));
  EXPECT_NO_THROW(check_virtual_lanes(t, 15));

  // On one lane the same routes close a cycle round a ring.
  const std::vector<Channel> cycle = dependency_cycle(on_lanes(t, 1));
  ASSERT_FALSE(cycle.empty());
  for (const Channel& c : cycle) EXPECT_EQ(c.lane, 0U);
  try {
    check_virtual_lanes(t, 1);
    ADD_FAILURE() << "one lane accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "network.virtual_lanes");
    const std::string what = e.what();
    EXPECT_NE(what.find("needs 2 virtual lanes, got 1"), std::string::npos) << what;
    EXPECT_NE(what.find("has the cycle switch"), std::string::npos) << what;
    EXPECT_NE(what.find("lane 0 -> "), std::string::npos) << what;
  }

  // Without any lane map (dimension order on one lane), check_routes names the cycle.
  Topology one_lane = t;
  for (SwitchSpec& spec : one_lane.switches) spec.lane_map.clear();
  EXPECT_FALSE(dependency_cycle(one_lane).empty());
  try {
    check_routes(one_lane, "network.routing");
    ADD_FAILURE() << "dimension order on one lane accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("can deadlock"), std::string::npos) << e.what();
  }
}

Topology on_virtual_lanes(const Torus& torus, uint32_t lanes) {
  TopologyParams params = params_of(torus);
  params.virtual_lanes = lanes;
  return build_topology(params);
}

// With 4 or more lanes the datelines split them into two classes of half
// each (rounded down): a packet keeps its index within a class, entering a
// dimension on lane L mod h and crossing a dateline to h + (L mod h).
TEST(Torus, FourLanesMakeTwoDatelineClassesOfTwoLanes) {
  const Topology ring = on_virtual_lanes({"8", 1, 0}, 4);
  // 6 -> 1 across the dateline 7 -> 0: lane 3 enters the ring on 1 (class
  // 0) and crosses to 3 (class 1); lane 2 enters on 0 and crosses to 2.
  EXPECT_EQ(lanes_of(ring, 6, 1, 3), (std::vector<uint8_t>{1, 3, 3, 3}));
  EXPECT_EQ(lanes_of(ring, 6, 1, 2), (std::vector<uint8_t>{0, 2, 2, 2}));
  EXPECT_EQ(lanes_of(ring, 1, 6, 1), (std::vector<uint8_t>{1, 3, 3, 3}));
  // Not crossing it: class 0 all the way.
  EXPECT_EQ(lanes_of(ring, 2, 5, 3), (std::vector<uint8_t>{1, 1, 1, 1}));
  EXPECT_EQ(lanes_of(ring, 2, 5, 0), (std::vector<uint8_t>{0, 0, 0, 0}));

  const Topology square = on_virtual_lanes({"6x6", 1, 0}, 4);  // node x + 6y
  // (5,0) -> (0,4) on lane 3: across the x dateline to 3, then across the y
  // dateline to 3 again.
  EXPECT_EQ(lanes_of(square, 5, 24, 3), (std::vector<uint8_t>{3, 3, 3, 3}));
  // (5,0) -> (0,2) on lane 3: across the x dateline to 3, then into y
  // without a dateline: class 0's lane 1.
  EXPECT_EQ(lanes_of(square, 5, 12, 3), (std::vector<uint8_t>{3, 1, 1, 1}));
  // The switch at (0,0) itself: in from x's - port (the packet came +),
  // out by y's + port (ports: 0 node, 1 x+, 2 x-, 3 y+, 4 y-).
  const SwitchSpec& origin = square.switches[0];
  EXPECT_EQ(origin.out_lane(2, 3, 3), 1U);  // a new dimension, no dateline
  EXPECT_EQ(origin.out_lane(2, 4, 3), 3U);  // a new dimension across y's dateline 0 -> 5
  EXPECT_EQ(origin.out_lane(2, 4, 0), 2U);
  EXPECT_EQ(origin.out_lane(2, 1, 1), 1U);  // on round x, + (in on -, out on +)
  EXPECT_EQ(origin.out_lane(1, 2, 0), 2U);  // on round x, -: across x's dateline 0 -> 5
}

TEST(Torus, DatelineClassesKeepEveryRingLaneWithinTheConfiguredOnesAndPassTheDependencyCheck) {
  for (const Torus torus : {Torus{"8x8", 1, 0}, Torus{"6x6", 2, 0}, Torus{"5x5x5", 1, 0}, Torus{"12", 1, 0}}) {
    for (const uint32_t lanes : {4U, 5U, 8U, 15U}) {
      const Topology t = on_virtual_lanes(torus, lanes);
      const uint32_t h = lanes / 2;
      EXPECT_TRUE(dependency_cycle(t).empty()) << torus.dims << " on " << lanes << " lanes";
      EXPECT_NO_THROW(check_virtual_lanes(t, lanes)) << torus.dims << " on " << lanes << " lanes";
      std::vector<bool> used(kLaneMapLanes, false);
      for (uint32_t src = 0; src < t.nodes; src += 3) {
        for (uint32_t dst = 0; dst < t.nodes; ++dst) {
          for (uint32_t start = 0; start < lanes; ++start) {
            const std::vector<Hop> hops = t.hops(NodeId(src), NodeId(dst), static_cast<uint8_t>(start));
            // Every hop but the last, to the node, is on a ring cable, in
            // lane start mod h's index of one class or the other.
            for (size_t i = 0; i + 1 < hops.size(); ++i) {
              ASSERT_EQ(hops[i].lane % h, start % h) << torus.dims << " on " << lanes << " lanes";
              ASSERT_LT(hops[i].lane, 2 * h) << torus.dims << " on " << lanes << " lanes";
              used[hops[i].lane] = true;
            }
          }
        }
      }
      for (uint32_t lane = 0; lane < 2 * h; ++lane) EXPECT_TRUE(used[lane]) << torus.dims << " lane " << lane;
    }
  }
}

// Fewer than 4 lanes: one lane per class, the same map whatever the count.
TEST(Torus, FewerThanFourLanesGiveTheTwoLaneMap) {
  const Topology two = on_virtual_lanes({"6x5", 1, 0}, 2);
  for (const uint32_t lanes : {1U, 3U}) {
    const Topology t = on_virtual_lanes({"6x5", 1, 0}, lanes);
    for (size_t s = 0; s < t.switches.size(); ++s) {
      EXPECT_EQ(t.switches[s].lane_map, two.switches[s].lane_map) << lanes << " lanes, switch " << s;
    }
  }
  EXPECT_EQ(lanes_of(two, 5, 24, 3), (std::vector<uint8_t>{1, 1, 1}));  // (0,4): y - round from (0,0)
  EXPECT_EQ(lanes_of(two, 5, 12, 3), (std::vector<uint8_t>{1, 0, 0, 0}));
}

TEST(Torus, AnotherRoutingDropsTheDatelines) {
  TopologyParams params = params_of({"5x5", 1, 0});
  params.routing = "updn";
  params.routing_own = ParameterValues(ParameterTable{{"network.updn.root_guids", nlohmann::json::array({"0"})}});
  const Topology updn = build_topology(params);
  EXPECT_FALSE(updn.maps_lanes());
  EXPECT_EQ(updn.lanes_needed, 1U);
  // Minhop's tables on a torus of rings of 5 close a cycle on one lane and are refused.
  params.routing = "minhop";
  params.routing_own = {};
  try {
    (void)build_topology(params);
    ADD_FAILURE() << "minhop on a torus accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("can deadlock"), std::string::npos) << e.what();
  }
}

// --- refusals -----------------------------------------------------------------------

void expect_refused(const Torus& torus, const std::string& field, const std::string& says, uint32_t switch_ports = 0) {
  TopologyParams params = params_of(torus);
  params.switch_ports = switch_ports;
  const std::string message = testing::refusal_of(params, field);
  EXPECT_NE(message.find(says), std::string::npos) << message;
}

TEST(Torus, ARingMayBeGivenAsANumber) {
  const Topology ring = build_topology(TopologyParams::of("torus", 0, {{"network.torus.dims", 12}}));
  EXPECT_EQ(ring.switches.size(), 12U);
  EXPECT_EQ(ring.lanes_needed, 2U);
}

TEST(Torus, RefusesMalformedDimensions) {
  expect_refused({"4x0x4", 1, 0}, "network.torus.dims", "y has 0");
  expect_refused({"a", 1, 0}, "network.torus.dims", "1 to 3 ring sizes");
  expect_refused({"4x4x4x4", 1, 0}, "network.torus.dims", "1 to 3 ring sizes");
  expect_refused({"", 1, 0}, "network.torus.dims", "1 to 3 ring sizes");
  expect_refused({"2048x2048", 1, 0}, "network.torus.dims", "switches are supported");
}

TEST(Torus, RefusesAnUnknownHalfWayRule) {
  try {
    (void)build_topology(with_half_way(params_of({"4x4", 1, 0}), "sideways"));
    ADD_FAILURE() << "built";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "network.torus.half_way");
    EXPECT_NE(std::string(e.what()).find("\"alternate\" or \"no-wrap\""), std::string::npos) << e.what();
  }
}

TEST(Torus, RefusesNodesThatDoNotFit) {
  expect_refused({"4x4x4", 1, 65}, "network.nodes", "at most 64 nodes fit the 4x4x4 torus");
  expect_refused({"4x4", 0, 0}, "network.torus.nodes_per_switch", "must be from 1");
  expect_refused({"4x4x4", 1, 0}, "network.switch_ports", "at least the 7 ports", 6);
  EXPECT_EQ(build_topology([] {
              TopologyParams p = params_of({"4x4x4", 1, 0});
              p.switch_ports = 36;
              return p;
            }())
                .switches[0]
                .ports,
            36U);
}

}  // namespace
}  // namespace ibsec::network
