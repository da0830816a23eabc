// What a run measures, gathered as packets are handed over and delivered.
// Latency is DESIGN.md's: from hand-over to the sending card until the last
// byte has arrived and been verified at the receiving card. Only messages
// offered inside the measurement window (after warm-up) count.
#pragma once

#include <cstdint>

#include <vector>

#include "core/latency_histogram.h"
#include "core/statistics.h"
#include "core/time.h"
#include "hosts/synthetic_traffic.h"
#include "sim/packet_log.h"

namespace ibsec::sim {

struct Throughput {
  Tick window_start = 0;
  Tick window_end = 0;
  uint64_t offered_bytes = 0;   // payload offered in the window, refused or not
  uint64_t accepted_bytes = 0;  // payload delivered in the window, any packet
};

class RunStatistics final : public hosts::DeliverySink {
 public:
  void on_handover(const nic::MessageRequest& message, uint32_t packets, Tick now) override;
  void on_offer_refused(uint32_t payload_bytes, bool measured, Tick now) override;
  void on_delivered(const network::Packet& packet, Tick now) override;
  void on_sources_done(Tick now) override;
  // Every delivery is also written here (may be null).
  void log_to(PacketLog* log) { log_ = log; }

  [[nodiscard]] const LatencyHistogram& latency() const { return latency_; }
  [[nodiscard]] const LatencyHistogram& packet_latency() const { return packet_latency_; }
  [[nodiscard]] const Throughput& throughput() const { return throughput_; }
  [[nodiscard]] uint64_t packets_handed_over() const { return packets_handed_over_; }
  [[nodiscard]] uint64_t packets_delivered() const { return packets_delivered_; }
  [[nodiscard]] uint64_t messages_handed_over() const { return messages_handed_over_; }
  [[nodiscard]] uint64_t messages_delivered() const { return messages_delivered_; }
  [[nodiscard]] uint64_t messages_measured() const { return messages_measured_; }
  [[nodiscard]] uint64_t measured_packets_handed_over() const { return measured_handed_over_; }
  [[nodiscard]] uint64_t offers_refused() const { return offers_refused_; }
  [[nodiscard]] Tick last_delivery() const { return last_delivery_; }

  // The run-level lines of the result: hand-overs and deliveries, latency,
  // throughput as a fraction of what the nodes' links carry. A byte takes
  // `ps_per_byte` at the fabric's rate; `capacity_nodes` is the nodes' link
  // data rates summed in units of that rate (`nodes` when every node's cable
  // runs at it). `stuck` packets were still inside at the end; `drained`:
  // every packet was delivered.
  [[nodiscard]] std::vector<Statistic> report(uint32_t nodes, double ps_per_byte, double capacity_nodes, uint64_t stuck,
                                              bool drained) const;

 private:
  void open_window(Tick now);
  [[nodiscard]] bool in_window() const { return window_open_ && !window_closed_; }

  PacketLog* log_ = nullptr;
  LatencyHistogram latency_;
  LatencyHistogram packet_latency_;  // from the sending card's look-up stage on
  Throughput throughput_;
  uint64_t packets_handed_over_ = 0;
  uint64_t packets_delivered_ = 0;
  uint64_t messages_handed_over_ = 0;
  uint64_t messages_delivered_ = 0;  // last packets of messages delivered
  uint64_t messages_measured_ = 0;   // of those, the messages offered after warm-up
  uint64_t measured_handed_over_ = 0;
  uint64_t offers_refused_ = 0;
  Tick last_delivery_ = 0;
  bool window_open_ = false;
  bool window_closed_ = false;
};

}  // namespace ibsec::sim
