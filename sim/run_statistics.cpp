#include "sim/run_statistics.h"

namespace ibsec::sim {

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
  last_delivery_ = now;
  if (in_window()) throughput_.accepted_bytes += packet.payload_bytes;
  if (packet.measured) latency_.add(now - packet.handover);
  if (log_ != nullptr) log_->record(packet);
}

}  // namespace ibsec::sim
