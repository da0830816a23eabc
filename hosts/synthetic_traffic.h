// Synthetic traffic, for load sweeps and checking the fabric against theory:
// every node's host injects messages at an offered load, to destinations
// picked by a named pattern, between processes so that the session-key
// caches see a controllable number of sessions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/parameters.h"
#include "core/random.h"
#include "core/time.h"
#include "hosts/host_model.h"
#include "nic/cic.h"
#include "nic/host_interface.h"

namespace ibsec::hosts {

// traffic.* : declared in synthetic_traffic.cpp with these initial values as
// the defaults.
struct TrafficParams {
  std::string pattern = "uniform";      // uniform, bit-complement, transpose, shift, hotspot
  std::string injection = "bernoulli";  // bernoulli | poisson
  double load = 0.05;                   // offered payload bytes / the node's own link data rate
  std::vector<uint32_t> sizes_bytes{256};
  std::vector<double> size_weights;  // one per size; empty = equal weights
  uint32_t processes_per_node = 1;
  uint32_t sessions_per_node = 0;  // 0: a fresh (process, process) pair per message
  uint32_t shift = 1;              // for the shift pattern
  std::vector<uint32_t> hotspot_nodes{0};
  double hotspot_fraction = 0.2;
  uint32_t max_backlog_packets = 256;  // a saturated source stops offering beyond this
  uint64_t messages = 100000;          // to hand over, summed over nodes, after warm-up
  uint64_t warmup_messages = 10000;
};

const ParameterSet<TrafficParams>& traffic_parameters();

// Checks the parameters against the node count; throws ConfigError("traffic.*").
void validate(const TrafficParams& params, uint32_t nodes);

// Receives every delivered packet; the run's statistics implement it.
class DeliverySink {
 public:
  virtual ~DeliverySink() = default;
  virtual void on_handover(const nic::MessageRequest& message, uint32_t packets, Tick now) = 0;
  virtual void on_offer_refused(uint32_t payload_bytes, bool measured, Tick now) = 0;
  virtual void on_delivered(const network::Packet& packet, Tick now) = 0;
  // The sources have offered their last message.
  virtual void on_sources_done(Tick now) = 0;
};

class SyntheticTraffic final : public HostModel {
 public:
  SyntheticTraffic(const sc_core::sc_module_name& name, EventKernel& kernel, const TrafficParams& params,
                   std::vector<nic::Cic*> cards, const std::vector<double>& ps_per_byte, uint32_t mtu_bytes,
                   uint64_t seed, DeliverySink& sink);

  void on_packet_delivered(const network::Packet& packet, Tick now) override { sink_.on_delivered(packet, now); }

  [[nodiscard]] bool finished() const override { return offered_ >= params_.warmup_messages + params_.messages; }

 private:
  struct Session {
    uint32_t destination;
    uint32_t source_process;
    uint32_t destination_process;
  };
  using PatternFn = uint32_t (*)(uint32_t source, uint32_t nodes, const TrafficParams& params, Rng& rng);

  void start_of_simulation() override;
  void handle(const ModuleEvent& event) override;
  void inject(uint32_t node, Tick now);
  [[nodiscard]] Tick gap(uint32_t node, Rng& rng) const;
  Session draw_session(uint32_t node, Rng& rng);
  uint32_t draw_size(Rng& rng) const;

  TrafficParams params_;
  std::vector<nic::Cic*> cards_;
  std::vector<Rng> rngs_;  // one stream per node
  std::vector<std::vector<Session>> fixed_sessions_;
  std::vector<double> size_cdf_;
  PatternFn pattern_;
  std::vector<double> slot_ticks_;  // by node: mean payload serialization time on its own link
  uint32_t mtu_bytes_;
  uint64_t offered_ = 0;
  uint32_t next_message_ = 0;
  DeliverySink& sink_;
};

}  // namespace ibsec::hosts
