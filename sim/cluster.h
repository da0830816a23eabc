// The whole simulated machine: one card per node, the switches of the chosen
// topology, the cables between them, synthetic traffic at every host, and the
// statistics. Built from a checked SimConfig; run once (SystemC elaborates
// one design per process).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attack/attacker.h"
#include "attack/snoop_capture.h"
#include "core/event_module.h"
#include "core/staggered_array.h"
#include "hosts/host_model.h"
#include "hosts/scripted_traffic.h"
#include "hosts/synthetic_traffic.h"
#include "network/credit_link.h"
#include "network/links.h"
#include "network/packet_payloads.h"
#include "network/switch.h"
#include "network/topology.h"
#include "nic/cic.h"
#include "sim/config.h"
#include "sim/run_statistics.h"

namespace ibsec::sim {

using network::LinkEnds;

struct RunOutcome {
  bool drained = true;         // everything handed over was delivered
  uint64_t packets_stuck = 0;  // still inside the network when the run stopped
  Tick end = 0;                // simulated time at the end
};

class Cluster {
 public:
  // Hosts run the synthetic sources the configuration describes, or replay
  // trace.file when it is set.
  explicit Cluster(const SimConfig& config);
  // Hosts hand over exactly the scripted messages (traffic.* is ignored).
  Cluster(const SimConfig& config, std::vector<hosts::ScriptedMessage> script);
  ~Cluster();
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  // Runs until the sources are done and the network has drained (or the drain
  // timeout passes). `progress` (may be null) is called about once a second of
  // wall time with the simulated time so far.
  RunOutcome run(void (*progress)(const Cluster&, Tick now) = nullptr);

  // The result document: config echo, versions, seed, statistics, histogram.
  [[nodiscard]] nlohmann::ordered_json result(const RunOutcome& outcome) const;

  [[nodiscard]] const network::Topology& topology() const { return *topology_; }
  [[nodiscard]] const RunStatistics& statistics() const { return statistics_; }
  [[nodiscard]] const KernelCounters& kernel() const { return kernel_.counters(); }
  [[nodiscard]] const std::vector<nic::Cic*>& cards() const { return cards_; }
  [[nodiscard]] const std::vector<network::CreditLink*>& links() const { return links_; }
  // The ends of links()[i], and its name as docs/topology.md names them ("node 3 -> switch 0 port 3").
  [[nodiscard]] const LinkEnds& link_ends(size_t link) const { return link_ends_[link]; }
  [[nodiscard]] std::string link_name(size_t link) const;
  // The per-component tables config.output.detail asks for (sim.detail), over `outcome.end`.
  [[nodiscard]] std::vector<DetailTable> detail_tables(const RunOutcome& outcome) const;
  [[nodiscard]] uint64_t credits_missing() const;  // credits not back at their sender
  [[nodiscard]] size_t packets_inside() const;
  [[nodiscard]] const hosts::HostModel& host() const { return *host_; }
  // Null without attack.link.
  [[nodiscard]] const attack::Attacker* attacker() const { return attacker_.get(); }
  [[nodiscard]] const attack::SnoopCapture* capture() const { return capture_.get(); }
  // The scripted host, if the cluster was built with a script.
  [[nodiscard]] const hosts::ScriptedTraffic* scripted() const { return scripted_; }

 private:
  // Refuses a run the machine's memory cannot hold (unless the config says to try anyway).
  void check_memory_for(uint64_t processes, uint64_t largest_message) const;
  void build_switches();
  void build_cards(uint32_t total_processes);  // session keys are per pair of processes
  void wire();
  void trace_cards(sc_core::sc_trace_file* file) const;
  void trace_links(sc_core::sc_trace_file* file) const;
  [[nodiscard]] DetailTable link_table(Tick elapsed) const;
  [[nodiscard]] DetailTable switch_table(Tick elapsed) const;
  [[nodiscard]] DetailTable card_table(Tick elapsed) const;
  // The link whose serialization time is the longest (the first of equals).
  [[nodiscard]] size_t busiest_link() const;
  // Adds its name after link_utilization_max.
  void name_busiest_link(std::vector<Statistic>& stats) const;
  // By node: its own link's serialization, ps a byte (the fabric's unless
  // the topology gives the node's cable a rate of its own).
  [[nodiscard]] std::vector<double> node_ps_per_byte() const;
  // What the receiving cards' checks did with altered and genuine packets, over every card.
  [[nodiscard]] nic::AttackOutcomes attack_outcomes() const;
  network::CreditLink& add_link(const network::LinkParams& params, const network::Endpoint& from,
                                network::PacketReceiver& to, PortId to_port);
  network::PacketReceiver& receiver_at(const network::Endpoint& end);
  void build_attacker();
  // Links `from` to `to`, through the attacker when `attacked`.
  network::CreditLink& add_link_via(bool attacked, const network::LinkParams& params, const network::Endpoint& from,
                                    network::PacketReceiver& to, PortId to_port);
  [[nodiscard]] bool attacked(attack::AttackSite::Kind kind, uint32_t index, uint16_t port = 0) const;
  // Every component's statistics group, combined over its instances.
  [[nodiscard]] std::vector<Statistic> component_statistics(Tick elapsed) const;

  SimConfig config_;
  std::shared_ptr<const network::Topology> topology_;
  EventKernel kernel_{"kernel"};  // before every module: each takes its place in it
  network::PacketPool pool_;
  uint64_t next_packet_id_ = 0;
  std::unique_ptr<network::PacketPayloads> payloads_;              // functional crypto only: the packets' bytes
  std::optional<StaggeredArray<nic::Cic>> card_storage_;           // the cards themselves, an odd number of lines apart
  std::vector<nic::Cic*> cards_;                                   // by node
  std::optional<StaggeredArray<network::Switch>> switch_storage_;  // the switches themselves
  std::vector<network::Switch*> switches_;                         // by index
  std::optional<StaggeredArray<network::CreditLink>> card_links_;  // the cards' own; the switches keep theirs
  std::vector<network::CreditLink*> links_;                        // every link, in links_of's order
  std::vector<LinkEnds> link_ends_;                                // beside links_, index for index
  RunStatistics statistics_;
  std::unique_ptr<PacketLog> packet_log_;
  std::unique_ptr<hosts::HostModel> host_;
  std::unique_ptr<attack::SnoopCapture> capture_;
  std::unique_ptr<attack::Attacker> attacker_;
  bool attacker_tapped_ = false;
  const hosts::ScriptedTraffic* scripted_ = nullptr;
};

}  // namespace ibsec::sim
