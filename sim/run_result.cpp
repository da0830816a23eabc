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
#include "sim/cluster.h"
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

}  // namespace

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
  append(stats, groups_of(links_, [](const auto& link) { return &link.stats(); }), elapsed);
  append(stats, groups_of(switches_, [](const auto& sw) { return &sw->stats(); }), elapsed);
  append(stats, groups_of(std::vector{host_.get()}, [](const auto* host) { return host->scheduler_stats(); }), elapsed);
  if (config_.nic.functional_crypto) {
    append(stats, groups_of(cards_, [](const auto& card) { return card->crypto_stats(); }), elapsed);
  }
  return stats;
}

nlohmann::ordered_json Cluster::result(const RunOutcome& outcome) const {
  const double delivered = static_cast<double>(statistics_.packets_delivered());
  const Tick ticks_per_byte = network::link_rate(config_.network.link_rate).ticks_per_byte;
  std::vector<Statistic> stats =
      statistics_.report(topology_->nodes, ticks_per_byte, outcome.packets_stuck, outcome.drained);
  for (Statistic& s : component_statistics(outcome.end)) stats.push_back(std::move(s));
  const std::vector<Statistic> run_tail{
      {"simulated_time_us", "us", "simulated time at the last delivery",
       static_cast<double>(std::max<Tick>(outcome.end, 1)) / 1.0e6},
      {"kernel_activations", "activations", "SystemC method activations over the run", kernel_.activations},
      {"kernel_activations_per_packet", "activations", "kernel activations / delivered packets",
       ratio(static_cast<double>(kernel_.activations), delivered)},
      {"module_events_per_packet", "events", "module queue entries handled / delivered packets",
       ratio(static_cast<double>(kernel_.events), delivered)},
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
  doc["topology"] = {{"name", topology_->name},
                     {"nodes", topology_->nodes},
                     {"switches", topology_->switches.size()},
                     {"links", links_.size()}};
  nlohmann::ordered_json statistics = nlohmann::ordered_json::object();
  write_statistics(statistics, stats);
  doc["statistics"] = statistics;
  doc["warnings"] = warnings_json(run_warnings({.offered_throughput = statistics["offered_throughput"].get<double>(),
                                                .accepted_throughput = statistics["accepted_throughput"].get<double>(),
                                                .offers_refused = statistics_.offers_refused(),
                                                .drained = outcome.drained,
                                                .packets_stuck = outcome.packets_stuck,
                                                .packets_measured = statistics_.latency().count()}));
  if (attacker_) {
    nic::AttackOutcomes outcomes;
    for (const auto& card : cards_) outcomes += card->attack_outcomes();
    doc["attack"] = attacker_->report(outcomes, config_.nic.security.name(), capture_->plaintext_exposed());
  }
  if (auto host = host_->report(); !host.is_null()) doc["replay"] = std::move(host);
  if (auto scheduling = host_->scheduler_report(); !scheduling.is_null()) doc["scheduler"] = std::move(scheduling);
  nlohmann::ordered_json histogram = nlohmann::ordered_json::array();
  for (const auto& b : statistics_.latency().buckets()) {
    histogram.push_back({ns_from_ticks(b.low), ns_from_ticks(b.high), b.count});
  }
  doc["latency_histogram_ns"] = {{"columns", {"low_ns", "high_ns", "packets"}}, {"buckets", histogram}};
  return doc;
}

}  // namespace ibsec::sim
