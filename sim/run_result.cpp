// The result document of one run. Everything in it is a function of the
// configuration and seed (no wall-clock figures), so that a run repeated with
// the same inputs writes a byte-identical file.
//
// The statistics are the run's own (deliveries, latency, throughput), then
// every component's statistics group combined over its instances with the
// derived figures its type declares, then the kernel's.
#include <algorithm>
#include <systemc>

#include "core/statistics.h"
#include "network/link_rate.h"
#include "nic/card_crypto_stats.h"
#include "sim/cluster.h"
#include "sim/fabric_description.h"
#include "sim/imported_traces.h"
#include "sim/run_warnings.h"

namespace ibsec::sim {
namespace {

template <typename G>
void append(std::vector<Statistic>& out, const std::vector<const G*>& groups, Tick elapsed) {
  for (Statistic& s : report<G>(groups, elapsed)) out.push_back(std::move(s));
}

// The group `get` returns for each item (skipping nulls: cards without a prefetch buffer).
template <typename Items, typename Get>
auto groups_of(const Items& items, Get get) {
  using Group = std::remove_cvref_t<decltype(*get(*items.begin()))>;
  std::vector<const Group*> groups;
  for (const auto& item : items) {
    if (const Group* g = get(item)) groups.push_back(g);
  }
  return groups;
}

double share_of_run(uint64_t ticks, Tick elapsed) {
  return ratio(static_cast<double>(ticks), static_cast<double>(std::max<Tick>(elapsed, 1)));
}

}  // namespace

size_t Cluster::busiest_link() const {
  size_t busiest = 0;
  for (size_t i = 1; i < links_.size(); ++i) {
    if (links_[i]->stats().busy > links_[busiest]->stats().busy) busiest = i;
  }
  return busiest;
}

// link_utilization_max says how busy the busiest link was; this says which one it was.
void Cluster::name_busiest_link(std::vector<Statistic>& stats) const {
  if (links_.empty()) return;
  const auto max = std::ranges::find(stats, std::string("link_utilization_max"), &Statistic::name);
  stats.insert(max == stats.end() ? max : max + 1,
               {"link_utilization_max_link", "", "the link of link_utilization_max, named as docs/topology.md does",
                link_name(busiest_link())});
}

DetailTable Cluster::link_table(Tick elapsed) const {
  DetailTable table("links");
  for (size_t i = 0; i < links_.size(); ++i) {
    const LinkEnds& ends = link_ends_[i];
    const network::LinkStats& stats = links_[i]->stats();
    std::vector<Statistic> row = link_identity(i, ends);
    append_group<network::LinkStats>(row, {&stats}, elapsed, "", false);
    const bool into_switch = ends.to.kind == network::Endpoint::Kind::kSwitch;
    row.push_back(
        {"utilization", "fraction", "serialization time / simulated time", share_of_run(stats.busy, elapsed)});
    row.push_back({"credit_stall_fraction", "fraction", "credit_stall_time / simulated time",
                   share_of_run(stats.credit_stall_time, elapsed)});
    row.push_back(
        {"receiver_queue_high_water", "packets",
         "most packets the receiving switch port held in one virtual lane's input buffer; empty when a card "
         "receives",
         into_switch ? nlohmann::json(switches_[ends.to.index]->input_high_water(ends.to.port)) : nlohmann::json()});
    table.add_row(row);
  }
  return table;
}

DetailTable Cluster::switch_table(Tick elapsed) const {
  std::vector<std::vector<const network::LinkStats*>> outputs(switches_.size());
  for (size_t i = 0; i < links_.size(); ++i) {
    if (link_ends_[i].from.kind == network::Endpoint::Kind::kSwitch) {
      outputs[link_ends_[i].from.index].push_back(&links_[i]->stats());
    }
  }
  DetailTable table("switches");
  for (size_t s = 0; s < switches_.size(); ++s) {
    const network::SwitchSpec& spec = topology_->switches[s];
    uint32_t high_water = 0;
    for (uint16_t p = 0; p < spec.ports; ++p)
      high_water = std::max(high_water, switches_[s]->input_high_water(PortId(p)));
    std::vector<Statistic> row = switch_identity(*topology_, static_cast<uint32_t>(s));
    append_group<network::SwitchStats>(row, {&switches_[s]->stats()}, elapsed);
    // The switch's output links: what it sent, and how busy they were (mean and busiest).
    append_group<network::LinkStats>(row, outputs[s], elapsed, "output_");
    row.push_back({"input_queue_high_water", "packets", "most packets any input port held in one virtual lane's buffer",
                   high_water});
    table.add_row(row);
  }
  return table;
}

DetailTable Cluster::card_table(Tick elapsed) const {
  DetailTable table("cards");
  for (size_t n = 0; n < cards_.size(); ++n) {
    const nic::Cic& card = *cards_[n];
    std::vector<Statistic> row{{"node", "", "the node id of the card", n}};
    append_group<nic::CicStats>(row, {&card.stats()}, elapsed);
    append_group<nic::KeyMemoryStats>(row, {&card.key_memory_stats()}, elapsed, "key_memory_");
    const auto units = card.gcm_stats();
    append_group<nic::GcmUnitStats>(row, std::vector<const nic::GcmUnitStats*>(units.begin(), units.end()), elapsed);
    if (const nic::PrefetchBufferStats* buffer = card.prefetch_stats()) {
      append_group<nic::PrefetchBufferStats>(row, {buffer}, elapsed);
    }
    if (config_.nic.functional_crypto) append_group<nic::CardCryptoStats>(row, {card.crypto_stats()}, elapsed);
    table.add_row(row);
  }
  return table;
}

std::vector<DetailTable> Cluster::detail_tables(const RunOutcome& outcome) const {
  const DetailLevel& level = config_.output.detail;
  std::vector<DetailTable> tables;
  if (level.links) tables.push_back(link_table(outcome.end));
  if (level.switches) tables.push_back(switch_table(outcome.end));
  if (level.cards) tables.push_back(card_table(outcome.end));
  return tables;
}

std::vector<Statistic> Cluster::component_statistics(Tick elapsed) const {
  std::vector<Statistic> stats;
  append(stats, groups_of(cards_, [](const auto& card) { return &card->stats(); }), elapsed);
  append(stats, groups_of(cards_, [](const auto& card) { return card->prefetch_stats(); }), elapsed);
  append(stats, groups_of(cards_, [](const auto& card) { return &card->key_memory_stats(); }), elapsed);
  std::vector<const nic::GcmUnitStats*> gcm;
  for (const auto& card : cards_) {
    for (const nic::GcmUnitStats* unit : card->gcm_stats()) gcm.push_back(unit);
  }
  append(stats, gcm, elapsed);
  append(stats, groups_of(links_, [](const network::CreditLink* link) { return &link->stats(); }), elapsed);
  name_busiest_link(stats);
  append(stats, groups_of(switches_, [](const auto& sw) { return &sw->stats(); }), elapsed);
  append(stats, groups_of(std::vector{host_.get()}, [](const auto* host) { return host->scheduler_stats(); }), elapsed);
  if (config_.nic.functional_crypto) {
    append(stats, groups_of(cards_, [](const auto& card) { return card->crypto_stats(); }), elapsed);
  }
  return stats;
}

nic::AttackOutcomes Cluster::attack_outcomes() const {
  nic::AttackOutcomes outcomes;
  for (const auto& card : cards_) outcomes += card->attack_outcomes();
  return outcomes;
}

nlohmann::ordered_json Cluster::result(const RunOutcome& outcome) const {
  const double delivered = static_cast<double>(statistics_.packets_delivered());
  const nic::AttackOutcomes outcomes = attack_outcomes();
  const double ps_per_byte = config_.network.rate().serialization.ps_per_byte();
  // Each node's link at its own rate, in units of the fabric's: exactly 1
  // each (the nodes) unless the topology gives node cables rates of their own.
  double capacity_nodes = 0.0;
  for (const double node : node_ps_per_byte()) capacity_nodes += ps_per_byte / node;
  std::vector<Statistic> stats =
      statistics_.report(topology_->nodes, ps_per_byte, capacity_nodes, outcome.packets_stuck, outcome.drained);
  for (Statistic& s : component_statistics(outcome.end)) stats.push_back(std::move(s));
  const std::vector<Statistic> run_tail{
      {"simulated_time_us", "us", "simulated time at the last delivery",
       static_cast<double>(std::max<Tick>(outcome.end, 1)) / 1.0e6},
      {"kernel_activations", "activations", "module wake-ups by the event kernel over the run", kernel().activations},
      {"kernel_activations_per_packet", "activations", "kernel activations / delivered packets",
       ratio(static_cast<double>(kernel().activations), delivered)},
      {"module_events_per_packet", "events", "module queue entries handled / delivered packets",
       ratio(static_cast<double>(kernel().events), delivered)},
  };
  stats.insert(stats.end(), run_tail.begin(), run_tail.end());

  nlohmann::ordered_json doc;
  doc["ibsec_version"] = IBSEC_VERSION;
  doc["systemc_version"] = sc_core::sc_release();
  doc["seed"] = config_.seed;
  doc["config"] = config_.resolved;
  // The SKC access time used: nic.skc.access_ns may say "cacti", and a hit costs it rounded up to card cycles.
  doc["skc_access"] = {{"access_ns", config_.nic.skc_access_origin.ns},
                       {"cycles", config_.nic.clock.cycles_covering(config_.nic.skc_access).count()},
                       {"source", config_.nic.skc_access_origin.source}};
  doc["topology"] = topology_section(*topology_, link_ends_, run_uniform_load(*topology_, link_ends_, config_.network));
  nlohmann::ordered_json statistics = nlohmann::ordered_json::object();
  write_statistics(statistics, stats);
  doc["statistics"] = statistics;
  doc["warnings"] =
      warnings_json(run_warnings({.offered_throughput = statistics["offered_throughput"].get<double>(),
                                  .accepted_throughput = statistics["accepted_throughput"].get<double>(),
                                  .offers_refused = statistics_.offers_refused(),
                                  .drained = outcome.drained,
                                  .packets_stuck = outcome.packets_stuck,
                                  .packets_measured = statistics_.latency().count(),
                                  .prefetch_buffer = std::ranges::any_of(
                                      cards_, [](const auto& card) { return card->prefetch_stats() != nullptr; }),
                                  .prefetch_triggers = statistics["prefetch_triggers"].get<uint64_t>(),
                                  .prefetches_issued = statistics["prefetches_issued"].get<uint64_t>(),
                                  .scheduler_policy = config_.resolved["scheduler"]["policy"].get<std::string>(),
                                  .replay = config_.trace.replays(),
                                  .genuine_packets_refused = outcomes.false_drops,
                                  .replay_window_packets = config_.nic.replay_window_packets}));
  const RunKind kind{.replay = config_.trace.replays(), .traffic_pattern = config_.traffic.pattern};
  for (const RunWarning& w : ignored_parameter_warnings(config_.given, kind))
    doc["warnings"].push_back({{"kind", w.kind}, {"message", w.message}});
  for (const hosts::HostWarning& w : host_->warnings())
    doc["warnings"].push_back({{"kind", w.kind}, {"message", w.message}});
  if (attacker_) {
    doc["attack"] = attacker_->report(outcomes, config_.nic.security.name(), capture_->plaintext_exposed());
  }
  if (config_.nic.stack_distances) {
    const auto profiles = groups_of(cards_, [](const auto& card) { return card->stack_distances(); });
    doc["lookup_stack_distances"] = nic::stack_distance_report(profiles);
  }
  if (!config_.nic.shadow_policies.empty()) {
    const auto caches = groups_of(cards_, [](const auto& card) { return &card->shadow_caches(); });
    doc["lookup_shadow_caches"] = nic::shadow_cache_report(caches);
  }
  if (auto host = host_->report(); !host.is_null()) doc["replay"] = std::move(host);
  if (!config_.trace.imports.empty()) doc["trace_imports"] = imported_traces_json(config_.trace.imports);
  if (auto scheduling = host_->scheduler_report(); !scheduling.is_null()) doc["scheduler"] = std::move(scheduling);
  nlohmann::ordered_json histogram = nlohmann::ordered_json::array();
  for (const auto& b : statistics_.latency().buckets()) {
    histogram.push_back({ns_from_ticks(b.low), ns_from_ticks(b.high), b.count});
  }
  doc["latency_histogram_ns"] = {{"columns", {"low_ns", "high_ns", "packets"}}, {"buckets", histogram}};
  return doc;
}

}  // namespace ibsec::sim
