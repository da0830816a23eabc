#include "sim/run_statistics.h"

namespace ibsec::sim {
namespace {

double ns(Tick t) { return ns_from_ticks(t); }
// A latency figure, or null when no packet was measured (not a false 0 ns).
nlohmann::json latency_ns(const LatencyHistogram& h, double value_ns) {
  return h.count() == 0 ? nlohmann::json() : nlohmann::json(value_ns);
}

}  // namespace

void RunStatistics::open_window(Tick now) {
  if (window_open_) return;
  window_open_ = true;
  throughput_.window_start = now;
}

void RunStatistics::on_sources_done(Tick now) {
  if (window_closed_) return;
  open_window(now);
  window_closed_ = true;
  throughput_.window_end = now;
}

void RunStatistics::on_handover(const nic::MessageRequest& message, uint32_t packets, Tick now) {
  packets_handed_over_ += packets;
  ++messages_handed_over_;
  if (!message.measured) return;
  open_window(now);
  measured_handed_over_ += packets;
  if (in_window()) throughput_.offered_bytes += message.bytes;
}

void RunStatistics::on_offer_refused(uint32_t payload_bytes, bool measured, Tick now) {
  if (!measured) return;
  open_window(now);
  ++offers_refused_;
  if (in_window()) throughput_.offered_bytes += payload_bytes;
}

void RunStatistics::on_delivered(const network::Packet& packet, Tick now) {
  ++packets_delivered_;
  if (packet.last_of_message) {
    ++messages_delivered_;
    if (packet.measured) ++messages_measured_;
  }
  last_delivery_ = now;
  if (in_window()) throughput_.accepted_bytes += packet.payload_bytes;
  if (packet.measured) {
    latency_.add(now - packet.handover);
    packet_latency_.add(now - packet.lookup_started);
  }
  if (log_ != nullptr) log_->record(packet);
}

std::vector<Statistic> RunStatistics::report(uint32_t nodes, double ps_per_byte, double capacity_nodes, uint64_t stuck,
                                             bool drained) const {
  const LatencyHistogram& lat = latency_;
  const LatencyHistogram& pkt = packet_latency_;
  // Throughput as a fraction of what the nodes' links could carry in the window.
  const Throughput& tp = throughput_;
  const double window = static_cast<double>(tp.window_end - tp.window_start);
  const double capacity_bytes = window / ps_per_byte * capacity_nodes;
  return {
      {"packets_handed_over", "packets", "packets the hosts gave their cards", packets_handed_over_},
      {"packets_delivered", "packets", "packets verified and handed to the destination host", packets_delivered_},
      {"messages_handed_over", "network messages",
       "network messages the hosts gave their cards: in a replay the point-to-point sends to another process, the "
       "messages collectives expand into and the rendezvous control messages (docs/running.md#counts)",
       messages_handed_over_},
      {"messages_delivered", "network messages",
       "network messages whose last packet was verified and handed to the destination host", messages_delivered_},
      {"messages_measured", "network messages",
       "delivered network messages offered after warm-up: with synthetic traffic traffic.messages less the offers "
       "refused, in a replay every one",
       messages_measured_},
      {"packets_measured", "packets", "delivered packets offered after warm-up (latency sample)", lat.count()},
      {"packets_in_network_at_end", "packets", "handed over but not delivered when the run stopped", stuck},
      {"drained", "", "every packet handed over was delivered", drained},
      {"offers_refused", "messages", "measured offers refused because the send queue was full", offers_refused_},
      {"latency_mean_ns", "ns",
       "message-level latency: hand-over to the sending card to verified at the receiver (includes waiting behind "
       "the message's earlier packets), mean",
       latency_ns(lat, lat.mean() / 1000.0)},
      {"latency_min_ns", "ns", "minimum latency", latency_ns(lat, ns(lat.min()))},
      {"latency_p50_ns", "ns", "median latency (histogram, within 0.8 %)", latency_ns(lat, ns(lat.quantile(0.50)))},
      {"latency_p95_ns", "ns", "95th percentile latency", latency_ns(lat, ns(lat.quantile(0.95)))},
      {"latency_p99_ns", "ns", "99th percentile latency", latency_ns(lat, ns(lat.quantile(0.99)))},
      {"latency_max_ns", "ns", "maximum latency", latency_ns(lat, ns(lat.max()))},
      {"packet_latency_mean_ns", "ns",
       "per-packet latency: entering the sending card's look-up stage to verified at the receiver, mean",
       latency_ns(pkt, pkt.mean() / 1000.0)},
      {"packet_latency_p50_ns", "ns", "median per-packet latency (histogram, within 0.8 %)",
       latency_ns(pkt, ns(pkt.quantile(0.50)))},
      {"packet_latency_p95_ns", "ns", "95th percentile per-packet latency", latency_ns(pkt, ns(pkt.quantile(0.95)))},
      {"packet_latency_p99_ns", "ns", "99th percentile per-packet latency", latency_ns(pkt, ns(pkt.quantile(0.99)))},
      {"packet_latency_max_ns", "ns", "maximum per-packet latency", latency_ns(pkt, ns(pkt.max()))},
      {"offered_throughput", "fraction", "offered payload per node / link data rate, in the window",
       ratio(static_cast<double>(tp.offered_bytes), capacity_bytes)},
      {"accepted_throughput", "fraction", "delivered payload per node / link data rate, in the window",
       ratio(static_cast<double>(tp.accepted_bytes), capacity_bytes)},
      {"accepted_gbps_per_node", "Gb/s", "delivered payload per node in the window",
       ratio(static_cast<double>(tp.accepted_bytes) * 8.0, window / 1000.0 * nodes)},
      {"measurement_window_us", "us", "from the first to the last measured offer", window / 1.0e6},
  };
}

}  // namespace ibsec::sim
