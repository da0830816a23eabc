#include "hosts/synthetic_traffic.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <numeric>

#include "core/errors.h"

namespace ibsec::hosts {
namespace {

uint32_t uniform_other(uint32_t source, uint32_t nodes, Rng& rng) {
  const auto r = static_cast<uint32_t>(rng.below(nodes - 1));
  return r >= source ? r + 1 : r;
}

uint32_t uniform_pattern(uint32_t source, uint32_t nodes, const TrafficParams&, Rng& rng) {
  return uniform_other(source, nodes, rng);
}

uint32_t bit_complement_pattern(uint32_t source, uint32_t nodes, const TrafficParams&, Rng&) {
  return (nodes - 1) ^ source;
}

// Swaps the high and low halves of the node id's bits (a matrix transpose on
// a sqrt(N) x sqrt(N) grid); nodes on the diagonal send to themselves.
uint32_t transpose_pattern(uint32_t source, uint32_t nodes, const TrafficParams&, Rng&) {
  const int half = std::countr_zero(nodes) / 2;
  const uint32_t low_mask = (1U << half) - 1;
  return ((source & low_mask) << half) | (source >> half);
}

uint32_t shift_pattern(uint32_t source, uint32_t nodes, const TrafficParams& params, Rng&) {
  return static_cast<uint32_t>((uint64_t{source} + params.shift) % nodes);
}

uint32_t hotspot_pattern(uint32_t source, uint32_t nodes, const TrafficParams& params, Rng& rng) {
  if (rng.uniform01() < params.hotspot_fraction) {
    const uint32_t hot = params.hotspot_nodes[rng.below(params.hotspot_nodes.size())];
    if (hot != source) return hot;
  }
  return uniform_other(source, nodes, rng);
}

struct PatternEntry {
  const char* name;
  uint32_t (*fn)(uint32_t, uint32_t, const TrafficParams&, Rng&);
  bool (*fits)(uint32_t nodes);  // node counts the pattern is defined for
  const char* requirement;
};

bool at_least_two(uint32_t nodes) { return nodes >= 2; }
bool power_of_two(uint32_t nodes) { return nodes >= 2 && std::has_single_bit(nodes); }
bool power_of_four(uint32_t nodes) { return power_of_two(nodes) && std::countr_zero(nodes) % 2 == 0; }
bool any_count(uint32_t nodes) { return nodes >= 1; }

constexpr PatternEntry kPatterns[] = {
    {"uniform", uniform_pattern, at_least_two, "at least 2 nodes"},
    {"bit-complement", bit_complement_pattern, power_of_two, "a power-of-two node count"},
    {"transpose", transpose_pattern, power_of_four, "a node count that is a power of four"},
    {"shift", shift_pattern, any_count, "at least 1 node"},
    {"hotspot", hotspot_pattern, at_least_two, "at least 2 nodes"},
};

const PatternEntry& pattern_entry(const std::string& name) {
  for (const auto& entry : kPatterns) {
    if (name == entry.name) return entry;
  }
  std::string known;
  for (const auto& entry : kPatterns) known += (known.empty() ? "" : ", ") + std::string(entry.name);
  throw ConfigError("traffic.pattern", "unknown pattern '" + name + "'; known: " + known);
}

uint64_t mix_seed(uint64_t seed, uint64_t stream) {
  // splitmix64 finaliser: neighbouring node ids get unrelated streams.
  uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (stream + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

ParameterSet<TrafficParams> declare() {
  ParameterSet<TrafficParams> set;
  set.text("traffic.pattern", &TrafficParams::pattern, "", "uniform, bit-complement, transpose, shift or hotspot")
      .text("traffic.injection", &TrafficParams::injection, "", "bernoulli (slotted) or poisson")
      .number("traffic.load", &TrafficParams::load, "fraction",
              "offered payload per node as a fraction of its own link's data rate (the fabric's, unless an "
              "ibnetdiscover file gives the node's cable a rate of its own)",
              Bound::kPositive)
      .list("traffic.sizes_bytes", &TrafficParams::sizes_bytes, "bytes", "message sizes to draw from")
      .list("traffic.size_weights", &TrafficParams::size_weights, "",
            "relative weight of each message size; empty = equal weights")
      .count("traffic.processes_per_node", &TrafficParams::processes_per_node, "processes",
             "processes per node; a session is a pair of processes")
      .count("traffic.sessions_per_node", &TrafficParams::sessions_per_node, "sessions",
             "if > 0, each node draws this many sessions up front and reuses them")
      .count("traffic.shift", &TrafficParams::shift, "nodes", "distance of the shift pattern")
      .list("traffic.hotspot.nodes", &TrafficParams::hotspot_nodes, "", "hot nodes of the hotspot pattern")
      .number("traffic.hotspot.fraction", &TrafficParams::hotspot_fraction, "fraction",
              "share of messages sent to a hot node")
      .count("traffic.max_backlog_packets", &TrafficParams::max_backlog_packets, "packets",
             "a node whose send queue is this long refuses new offers")
      .count("traffic.messages", &TrafficParams::messages, "messages",
             "messages measured: offered over all nodes once warm-up is over, the sample of the latency and "
             "throughput figures; the run first offers traffic.warmup_messages more, so it delivers both "
             "(statistic messages_measured; docs/running.md#counts)")
      .count("traffic.warmup_messages", &TrafficParams::warmup_messages, "messages",
             "messages offered over all nodes before measurement starts, on top of traffic.messages");
  return set;
}

}  // namespace

const ParameterSet<TrafficParams>& traffic_parameters() {
  static const ParameterSet<TrafficParams> set = declare();
  return set;
}

void validate(const TrafficParams& params, uint32_t nodes) {
  const PatternEntry& entry = pattern_entry(params.pattern);
  if (!entry.fits(nodes)) {
    throw ConfigError("traffic.pattern", "'" + params.pattern + "' needs " + entry.requirement + ", got " +
                                             std::to_string(nodes) + " nodes");
  }
  if (params.injection != "bernoulli" && params.injection != "poisson") {
    throw ConfigError("traffic.injection", "unknown process '" + params.injection + "'; known: bernoulli, poisson");
  }
  if (!(params.load > 0.0) || !std::isfinite(params.load)) {
    throw ConfigError("traffic.load", "must be a positive fraction of the link rate");
  }
  if (params.injection == "bernoulli" && params.load > 1.0) {
    throw ConfigError("traffic.load", "a Bernoulli source injects at most once per slot: load must be <= 1");
  }
  if (params.sizes_bytes.empty() || std::ranges::any_of(params.sizes_bytes, [](uint32_t s) { return s == 0; })) {
    throw ConfigError("traffic.sizes_bytes", "needs at least one size, each > 0 bytes");
  }
  if ((!params.size_weights.empty() && params.size_weights.size() != params.sizes_bytes.size()) ||
      std::ranges::any_of(params.size_weights, [](double w) { return !(w > 0.0) || !std::isfinite(w); })) {
    throw ConfigError("traffic.size_weights", "needs one positive weight per entry of traffic.sizes_bytes");
  }
  if (params.processes_per_node == 0) throw ConfigError("traffic.processes_per_node", "must be at least 1");
  if (params.pattern == "hotspot") {
    if (params.hotspot_nodes.empty()) throw ConfigError("traffic.hotspot.nodes", "needs at least one node");
    for (uint32_t n : params.hotspot_nodes) {
      if (n >= nodes) {
        throw ConfigError("traffic.hotspot.nodes",
                          "node " + std::to_string(n) + " is out of range (0.." + std::to_string(nodes - 1) + ")");
      }
    }
    if (!(params.hotspot_fraction >= 0.0 && params.hotspot_fraction <= 1.0)) {
      throw ConfigError("traffic.hotspot.fraction", "must be within [0, 1]");
    }
  }
  if (params.pattern == "shift" && params.shift % nodes == 0) {
    throw ConfigError("traffic.shift", "a shift of " + std::to_string(params.shift) + " on " + std::to_string(nodes) +
                                           " nodes sends every message to its own node; choose one that is not a "
                                           "multiple of the node count");
  }
  if (params.messages == 0) throw ConfigError("traffic.messages", "must be at least 1");
  if (params.max_backlog_packets == 0) throw ConfigError("traffic.max_backlog_packets", "must be at least 1");
}

SyntheticTraffic::SyntheticTraffic(const sc_core::sc_module_name& name, EventKernel& kernel,
                                   const TrafficParams& params, std::vector<nic::Cic*> cards,
                                   const std::vector<double>& ps_per_byte, uint32_t mtu_bytes, uint64_t seed,
                                   DeliverySink& sink)
    : HostModel(name, kernel),
      params_(params),
      cards_(std::move(cards)),
      pattern_(pattern_entry(params.pattern).fn),
      mtu_bytes_(mtu_bytes),
      sink_(sink) {
  validate(params_, static_cast<uint32_t>(cards_.size()));
  if (params_.size_weights.empty()) params_.size_weights.assign(params_.sizes_bytes.size(), 1.0);
  const double total_weight = std::accumulate(params_.size_weights.begin(), params_.size_weights.end(), 0.0);
  double cumulative = 0.0;
  double mean_size = 0.0;
  for (size_t i = 0; i < params_.sizes_bytes.size(); ++i) {
    cumulative += params_.size_weights[i] / total_weight;
    size_cdf_.push_back(cumulative);
    mean_size += params_.size_weights[i] / total_weight * params_.sizes_bytes[i];
  }
  assert(ps_per_byte.size() == cards_.size() && "a link rate per node");
  for (const double node_ps_per_byte : ps_per_byte) slot_ticks_.push_back(mean_size * node_ps_per_byte);

  const auto nodes = static_cast<uint32_t>(cards_.size());
  fixed_sessions_.resize(nodes);
  for (uint32_t n = 0; n < nodes; ++n) {
    rngs_.emplace_back(mix_seed(seed, n));
    for (uint32_t s = 0; s < params_.sessions_per_node; ++s) {
      fixed_sessions_[n].push_back(draw_session(n, rngs_[n]));
    }
  }
}

void SyntheticTraffic::start_of_simulation() {
  for (uint32_t n = 0; n < cards_.size(); ++n) schedule(gap(n, rngs_[n]), 0, n);
}

void SyntheticTraffic::handle(const ModuleEvent& event) {
  if (finished()) return;
  inject(event.arg, event.at);
  if (finished()) {
    sink_.on_sources_done(event.at);
  } else {
    schedule(event.at + gap(event.arg, rngs_[event.arg]), 0, event.arg);
  }
}

// Bernoulli: one chance per slot of one mean-size message's serialization
// time on the node's link, so the gap is a geometric number of slots.
// Poisson: exponential gaps with the same mean.
Tick SyntheticTraffic::gap(uint32_t node, Rng& rng) const {
  const double p = params_.load;
  double slots = 0.0;
  if (params_.injection == "poisson") {
    slots = rng.exponential(1.0 / p);
  } else {
    slots = p >= 1.0 ? 1.0 : 1.0 + std::floor(std::log1p(-rng.uniform01()) / std::log1p(-p));
  }
  return static_cast<Tick>(std::llround(slots * slot_ticks_[node]));
}

SyntheticTraffic::Session SyntheticTraffic::draw_session(uint32_t node, Rng& rng) {
  const auto nodes = static_cast<uint32_t>(cards_.size());
  const uint32_t destination = pattern_(node, nodes, params_, rng);
  const uint32_t per_node = params_.processes_per_node;
  const auto source_process = static_cast<uint32_t>(node * per_node + rng.below(per_node));
  const auto destination_process = static_cast<uint32_t>(destination * per_node + rng.below(per_node));
  return Session{destination, source_process, destination_process};
}

uint32_t SyntheticTraffic::draw_size(Rng& rng) const {
  if (size_cdf_.size() == 1) return params_.sizes_bytes[0];
  const double u = rng.uniform01();
  const auto it = std::upper_bound(size_cdf_.begin(), size_cdf_.end(), u);
  const size_t index = std::min<size_t>(static_cast<size_t>(it - size_cdf_.begin()), size_cdf_.size() - 1);
  return params_.sizes_bytes[index];
}

void SyntheticTraffic::inject(uint32_t node, Tick now) {
  Rng& rng = rngs_[node];
  const Session session = params_.sessions_per_node > 0 ? fixed_sessions_[node][rng.below(params_.sessions_per_node)]
                                                        : draw_session(node, rng);
  const uint32_t bytes = draw_size(rng);
  const bool measured = offered_ >= params_.warmup_messages;
  ++offered_;
  nic::Cic& card = *cards_[node];
  if (card.send_backlog() >= params_.max_backlog_packets) {
    sink_.on_offer_refused(bytes, measured, now);
    return;
  }
  const nic::MessageRequest message{session.source_process,
                                    session.destination_process,
                                    NodeId(session.destination),
                                    bytes,
                                    next_message_++,
                                    measured};
  const uint32_t packets = std::max<uint32_t>(1, (bytes + mtu_bytes_ - 1) / mtu_bytes_);
  sink_.on_handover(message, packets, now);
  card.submit(message, now);
}

}  // namespace ibsec::hosts
