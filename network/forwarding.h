// Where a switch sends a packet for each destination node. Either a linear
// forwarding table, one output port per destination as a subnet manager
// programs it (what routing engines and loaded tables fill), or, for a
// generated topology's own routing, the rule its builder routes by (the
// D-mod-K digit rule, dimension order, dragonfly+'s minimal routes),
// computed from the destination's id when a packet arrives. A rule keeps a
// switch's routing state constant in the fabric's size where a table grows
// with it (65 536 nodes on 5 120 switches: 671 MB of tables), and gives
// every destination the port its table would hold. docs/topology.md,
// "Forwarding by rule".
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "core/types.h"

namespace ibsec::network {

// A topology's routes as a function; one object serves all its switches.
class ForwardingRule {
 public:
  ForwardingRule() = default;
  ForwardingRule(const ForwardingRule&) = delete;
  ForwardingRule& operator=(const ForwardingRule&) = delete;
  virtual ~ForwardingRule() = default;
  // The output port switch `switch_index` sends a packet for `destination` by.
  [[nodiscard]] virtual PortId port(uint32_t switch_index, uint32_t destination) const = 0;
};

class Forwarding {
 public:
  Forwarding() = default;
  // A table for `destinations` nodes, every entry port 0 until set.
  explicit Forwarding(uint32_t destinations) : table_(destinations), destinations_(destinations) {}
  // Switch `switch_index`'s routes by `rule`, for `destinations` nodes.
  Forwarding(std::shared_ptr<const ForwardingRule> rule, uint32_t switch_index, uint32_t destinations)
      : rule_(std::move(rule)), switch_index_(switch_index), destinations_(destinations) {}

  [[nodiscard]] PortId operator[](uint32_t destination) const;
  [[nodiscard]] uint32_t size() const { return destinations_; }
  [[nodiscard]] bool by_rule() const { return rule_ != nullptr; }

  // One entry changed (a routing engine's, a loaded table's, a test's
  // broken route): a rule becomes the table it stands for first.
  void set(uint32_t destination, PortId port);
  // Every entry `port`: a table that routes nowhere until set.
  void fill(PortId port);

  // The same port for every destination, by rule or by table.
  bool operator==(const Forwarding& other) const;

 private:
  friend class ForwardingView;
  void to_table();

  std::vector<PortId> table_;  // empty while a rule gives the ports
  std::shared_ptr<const ForwardingRule> rule_;
  uint32_t switch_index_ = 0;
  uint32_t destinations_ = 0;
};

// What a switch forwards by, copied out of its Forwarding: the rule and the
// switch's index, or the table's entries. A hop then reads the switch's own
// line, not the topology's record of the switch (another line a hop, 0.7
// misses beyond the L2 on a 1 024-node tree: docs/performance.md). Valid
// while the Forwarding lives and is not changed (set and fill remake its
// table); the topology is complete before its switches are built.
class ForwardingView {
 public:
  explicit ForwardingView(const Forwarding& forwarding)
      : rule_(forwarding.rule_.get()), table_(forwarding.table_.data()), switch_index_(forwarding.switch_index_) {}

  [[nodiscard]] PortId operator[](uint32_t destination) const {
    return rule_ ? rule_->port(switch_index_, destination) : table_[destination];
  }

 private:
  const ForwardingRule* rule_;
  const PortId* table_;
  uint32_t switch_index_;
};

inline PortId Forwarding::operator[](uint32_t destination) const { return ForwardingView(*this)[destination]; }

}  // namespace ibsec::network
