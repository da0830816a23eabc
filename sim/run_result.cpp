// The result document of one run. Everything in it is a function of the
// configuration and seed (no wall-clock figures), so that a run repeated with
// the same inputs writes a byte-identical file.
#include <algorithm>

#include <systemc>

#include "core/statistics.h"
#include "network/link_rate.h"
#include "sim/cluster.h"

namespace ibsec::sim {
namespace {

double ratio(double num, double den) { return den > 0.0 ? num / den : 0.0; }
double ns(Tick t) { return ns_from_ticks(t); }
// A latency figure, or null when no packet was measured (not a false 0 ns).
nlohmann::json latency_ns(const LatencyHistogram& h, double value_ns) {
  return h.count() == 0 ? nlohmann::json() : nlohmann::json(value_ns);
}

struct CardTotals {
  nic::CicStats cic;
  nic::PrefetchBufferStats buffer;
  uint64_t buffer_left = 0;  // prefetched keys still unused in the buffers at the end
  nic::KeyMemoryStats memory;
  Tick gcm_busy = 0;
  nic::CardCryptoStats crypto;  // functional crypto only
};

CardTotals sum_cards(const std::vector<std::unique_ptr<nic::Cic>>& cards) {
  CardTotals t;
  for (const auto& card : cards) {
    const auto& s = card->stats();
    t.cic.packets_sent += s.packets_sent;
    t.cic.packets_received += s.packets_received;
    t.cic.lookups += s.lookups;
    t.cic.skc_hits += s.skc_hits;
    t.cic.buffer_hits += s.buffer_hits;
    t.cic.misses += s.misses;
    t.cic.merged_misses += s.merged_misses;
    t.cic.out_of_order += s.out_of_order;
    t.cic.max_send_backlog = std::max(t.cic.max_send_backlog, s.max_send_backlog);
    t.cic.prefetch_triggers += s.prefetch_triggers;
    t.cic.prefetches_issued += s.prefetches_issued;
    t.cic.prefetches_cancelled += s.prefetches_cancelled;
    if (const nic::PrefetchBufferStats* b = card->prefetch_stats()) {
      t.buffer.prefetches += b->prefetches;
      t.buffer.hits += b->hits;
      t.buffer.wasted += b->wasted;
    }
    t.buffer_left += card->prefetch_buffer_size();
    const auto& m = card->key_memory_stats();
    t.memory.accesses += m.accesses;
    t.memory.queued += m.queued;
    t.memory.total_wait += m.total_wait;
    t.memory.max_wait = std::max(t.memory.max_wait, m.max_wait);
    t.memory.busy += m.busy;
    t.gcm_busy += card->gcm_busy();
    if (const nic::CardCryptoStats* c = card->crypto_stats()) t.crypto += *c;
  }
  return t;
}

// Only runs with nic.crypto.mode = functional have these, so that a timing
// run's result stays what it was.
std::vector<Statistic> crypto_statistics(const nic::CardCryptoStats& c) {
  return {
      {"packets_sealed", "packets", "packets encrypted and tagged by their sending card (functional crypto)",
       c.packets_sealed},
      {"packets_opened", "packets", "packets whose tag verified and that were decrypted at the receiving card",
       c.packets_opened},
      {"packets_dropped_auth", "packets", "received packets dropped: tag, ciphertext, header or key id did not verify",
       c.packets_dropped_auth},
      {"packets_dropped_replay", "packets", "received packets dropped: sequence number duplicate or below the window",
       c.packets_dropped_replay},
      {"packets_dropped_key", "packets", "packets dropped because their session key failed to unwrap",
       c.packets_dropped_key},
      {"key_unwraps", "keys", "key memory records unwrapped and verified on a read", c.key_unwraps},
      {"key_unwrap_failures", "keys", "key memory records that failed to unwrap (tampered, moved or rolled back)",
       c.key_unwrap_failures},
      {"payload_mismatches", "packets", "delivered payloads unlike what was sent (must be 0 with security)",
       c.payload_mismatches},
  };
}

}  // namespace

// What the attacker did and what the receiving cards made of it
// (docs/attacks.md). Attacked packets still in the network at the end are
// neither detected nor delivered.
nlohmann::ordered_json Cluster::attack_report() const {
  nic::AttackOutcomes outcomes;
  for (const auto& card : cards_) outcomes += card->attack_outcomes();
  const attack::AttackerStats& a = attacker_->stats();
  nlohmann::ordered_json kinds = nlohmann::ordered_json::object();
  uint64_t attacked = 0;
  uint64_t detected = 0;
  uint64_t delivered = 0;
  for (size_t k = 1; k < network::kAttackKinds; ++k) {
    kinds[attack::attack_name(static_cast<network::AttackKind>(k))] = {
        {"attacked", a.attacked[k]}, {"detected", outcomes.detected[k]}, {"delivered", outcomes.delivered[k]}};
    attacked += a.attacked[k];
    detected += outcomes.detected[k];
    delivered += outcomes.delivered[k];
  }
  return {{"link", config_.attack->site.text()},
          {"security", config_.nic.security.name()},
          {"packets_seen", a.packets_seen},
          {"kinds", kinds},
          {"attacked", attacked},
          {"detected", detected},
          {"delivered_despite_attack", delivered},
          {"false_drops", outcomes.false_drops},
          {"snooped", a.snooped},
          {"snooped_plaintext", capture_->plaintext_exposed()},
          {"not_sent_no_credits", a.not_sent_no_credits},
          {"spoofs_without_identity", a.spoofs_without_identity},
          {"capture_file", config_.attack->capture_file}};
}

nlohmann::ordered_json Cluster::result(const RunOutcome& outcome) const {
  const RunStatistics& st = statistics_;
  const LatencyHistogram& lat = st.latency();
  const CardTotals cards = sum_cards(cards_);
  const double nodes = topology_.nodes;
  const double elapsed = static_cast<double>(std::max<Tick>(outcome.end, 1));
  const auto& rate = network::link_rate(config_.network.link_rate);

  // Throughput as a fraction of what the nodes' links could carry in the window.
  const Throughput& tp = st.throughput();
  const double window = static_cast<double>(tp.window_end - tp.window_start);
  const double capacity_bytes = window / static_cast<double>(rate.ticks_per_byte) * nodes;

  Tick link_busy_max = 0;
  Tick link_busy_sum = 0;
  for (const auto& link : links_) {
    link_busy_max = std::max(link_busy_max, link.stats().busy);
    link_busy_sum += link.stats().busy;
  }
  uint64_t forwarded = 0;
  for (const auto& sw : switches_) forwarded += sw->stats().packets_forwarded;

  const double lookups = static_cast<double>(cards.cic.lookups);
  const nlohmann::ordered_json scheduling = host_->scheduler_report();
  const uint64_t context_switches = scheduling.is_null() ? 0 : scheduling["context_switches"].get<uint64_t>();
  const double delivered = static_cast<double>(st.packets_delivered());
  std::vector<Statistic> stats{
      {"packets_handed_over", "packets", "packets the hosts gave their cards", st.packets_handed_over()},
      {"packets_delivered", "packets", "packets verified and handed to the destination host", st.packets_delivered()},
      {"packets_measured", "packets", "delivered packets offered after warm-up (latency sample)", lat.count()},
      {"packets_in_network_at_end", "packets", "handed over but not delivered when the run stopped",
       outcome.packets_stuck},
      {"drained", "", "every packet handed over was delivered", outcome.drained},
      {"offers_refused", "messages", "measured offers refused because the send queue was full", st.offers_refused()},
      {"latency_mean_ns", "ns", "hand-over at the sender to verified at the receiver, mean", latency_ns(lat, lat.mean() / 1000.0)},
      {"latency_min_ns", "ns", "minimum latency", latency_ns(lat, ns(lat.min()))},
      {"latency_p50_ns", "ns", "median latency (histogram, within 0.8 %)", latency_ns(lat, ns(lat.quantile(0.50)))},
      {"latency_p95_ns", "ns", "95th percentile latency", latency_ns(lat, ns(lat.quantile(0.95)))},
      {"latency_p99_ns", "ns", "99th percentile latency", latency_ns(lat, ns(lat.quantile(0.99)))},
      {"latency_max_ns", "ns", "maximum latency", latency_ns(lat, ns(lat.max()))},
      {"offered_throughput", "fraction", "offered payload per node / link data rate, in the window",
       ratio(static_cast<double>(tp.offered_bytes), capacity_bytes)},
      {"accepted_throughput", "fraction", "delivered payload per node / link data rate, in the window",
       ratio(static_cast<double>(tp.accepted_bytes), capacity_bytes)},
      {"accepted_gbps_per_node", "Gb/s", "delivered payload per node in the window",
       ratio(static_cast<double>(tp.accepted_bytes) * 8.0, window / 1000.0 * nodes)},
      {"measurement_window_us", "us", "from the first to the last measured offer", window / 1.0e6},
      {"key_lookups", "lookups", "session-key look-ups at senders and receivers", cards.cic.lookups},
      {"skc_hit_rate", "fraction", "(SKC hits + prefetch-buffer hits) / look-ups (the paper's definition)",
       ratio(static_cast<double>(cards.cic.skc_hits + cards.cic.buffer_hits), lookups)},
      {"skc_only_hit_rate", "fraction", "SKC hits / look-ups", ratio(static_cast<double>(cards.cic.skc_hits), lookups)},
      {"prefetch_buffer_hit_rate", "fraction", "prefetch-buffer hits / look-ups",
       ratio(static_cast<double>(cards.cic.buffer_hits), lookups)},
      {"key_misses", "lookups", "look-ups that waited for the external key memory", cards.cic.misses},
      {"prefetch_triggers", "arrivals", "packets for a process the card took to be off its CPU (prefetch hint)",
       cards.cic.prefetch_triggers},
      {"prefetches_issued", "keys", "key memory reads started to fill prefetch buffers", cards.cic.prefetches_issued},
      {"prefetches_loaded", "keys", "prefetched keys placed in a buffer (not already in the SKC)",
       cards.buffer.prefetches},
      {"prefetches_used", "keys", "prefetched keys a look-up found in the buffer", cards.buffer.hits},
      {"prefetches_wasted", "keys", "prefetched keys dropped unused to make room", cards.buffer.wasted},
      {"prefetches_unused_at_end", "keys", "prefetched keys still in the buffers, unused, at the end",
       cards.buffer_left},
      {"prefetches_cancelled", "keys", "queued prefetches a look-up needed first (fetched on demand)",
       cards.cic.prefetches_cancelled},
      {"key_misses_merged", "lookups", "misses whose key was already being fetched", cards.cic.merged_misses},
      {"key_memory_accesses", "accesses", "external key memory accesses", cards.memory.accesses},
      {"key_memory_queued_fraction", "fraction", "accesses that found the memory port busy",
       ratio(static_cast<double>(cards.memory.queued), static_cast<double>(cards.memory.accesses))},
      {"key_memory_wait_mean_ns", "ns", "queueing before an access starts, mean over accesses",
       ratio(ns(cards.memory.total_wait), static_cast<double>(cards.memory.accesses))},
      {"key_memory_wait_max_ns", "ns", "longest queueing before an access", ns(cards.memory.max_wait)},
      {"key_memory_utilization", "fraction", "memory port busy time / (cards x simulated time)",
       ratio(static_cast<double>(cards.memory.busy), nodes * elapsed)},
      {"gcm_busy_fraction", "fraction", "GCM units' input busy time / (2 units x cards x simulated time)",
       ratio(static_cast<double>(cards.gcm_busy), 2.0 * nodes * elapsed)},
      {"link_utilization_mean", "fraction", "serialization time / simulated time, mean over links",
       ratio(static_cast<double>(link_busy_sum), elapsed * static_cast<double>(links_.size()))},
      {"link_utilization_max", "fraction", "serialization time / simulated time, busiest link",
       ratio(static_cast<double>(link_busy_max), elapsed)},
      {"switch_hops_total", "packets", "packets forwarded by all switches", forwarded},
      {"out_of_order_packets", "packets", "deliveries whose session sequence number was not the next one",
       cards.cic.out_of_order},
      {"credits_missing_at_end", "credits", "64-byte credits not back at their sender after the run",
       credits_missing()},
      {"max_send_backlog", "packets", "longest send queue at any card", cards.cic.max_send_backlog},
      {"context_switches", "switches", "times a CPU started a process other than the one it ran last",
       context_switches},
      {"simulated_time_us", "us", "simulated time at the last delivery", elapsed / 1.0e6},
      {"kernel_activations", "activations", "SystemC method activations over the run", kernel_.activations},
      {"kernel_activations_per_packet", "activations", "kernel activations / delivered packets",
       ratio(static_cast<double>(kernel_.activations), delivered)},
      {"module_events_per_packet", "events", "module queue entries handled / delivered packets",
       ratio(static_cast<double>(kernel_.events), delivered)},
  };

  if (config_.nic.functional_crypto) {
    for (Statistic& s : crypto_statistics(cards.crypto)) stats.push_back(std::move(s));
  }

  nlohmann::ordered_json doc;
  doc["ibsec_version"] = IBSEC_VERSION;
  doc["systemc_version"] = sc_core::sc_release();
  doc["seed"] = config_.seed;
  doc["config"] = config_.resolved;
  // The SKC access time used: nic.skc.access_ns may say "cacti", and a hit costs it rounded up to card cycles.
  doc["skc_access"] = {{"access_ns", config_.nic.skc_access_origin.ns},
                       {"cycles", config_.nic.clock.cycles_covering(config_.nic.skc_access).count()},
                       {"source", config_.nic.skc_access_origin.source}};
  doc["topology"] = {{"name", topology_.name}, {"nodes", topology_.nodes}, {"switches", topology_.switches.size()},
                     {"links", links_.size()}};
  nlohmann::ordered_json statistics = nlohmann::ordered_json::object();
  write_statistics(statistics, stats);
  doc["statistics"] = statistics;
  if (attacker_) doc["attack"] = attack_report();
  if (auto host = host_->report(); !host.is_null()) doc["replay"] = std::move(host);
  if (!scheduling.is_null()) doc["scheduler"] = scheduling;
  nlohmann::ordered_json histogram = nlohmann::ordered_json::array();
  for (const auto& b : lat.buckets()) histogram.push_back({ns(b.low), ns(b.high), b.count});
  doc["latency_histogram_ns"] = {{"columns", {"low_ns", "high_ns", "packets"}}, {"buckets", histogram}};
  return doc;
}

}  // namespace ibsec::sim
