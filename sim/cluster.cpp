#include "sim/cluster.h"

#include <chrono>
#include <optional>
#include <set>

#include "core/errors.h"
#include "core/piped_output.h"
#include "hosts/trace_replay.h"
#include "network/link_rate.h"
#include "sim/fabric_description.h"
#include "sim/memory_estimate.h"
#include "traces/trace_checker.h"

namespace ibsec::sim {
namespace {

// Simulated time per kernel hand-back while running: short enough to notice a
// drain that never ends, long enough to cost nothing.
constexpr Tick kRunSlice = 100 * kTicksPerUs;

// The whole trace is checked before the replay starts, so that a bad trace
// fails before elaboration with its file, line and field; the replay then
// streams it again from the start. A trace that several jobs replay is
// checked once; the check also finds the largest message, for the memory estimate.
std::unique_ptr<traces::TraceReader> open_checked_trace(const std::string& path, std::set<std::string>& checked,
                                                        uint64_t& largest_message) {
  if (checked.insert(path).second) {
    traces::TraceReader checking(path);
    traces::check_whole_trace(
        checking, [&](const traces::TraceEvent& e) { largest_message = std::max<uint64_t>(largest_message, e.bytes); });
  }
  return std::make_unique<traces::TraceReader>(path);
}

// Process ids are 32-bit, and one is kept free as "no process".
constexpr uint64_t kMaxProcesses = UINT32_MAX - 1;

uint64_t largest_size(const std::vector<uint32_t>& sizes) {
  return sizes.empty() ? 0 : *std::ranges::max_element(sizes);
}

// The topology the configuration was checked with (shared, not copied: a
// 1 024-node fat tree's tables are megabytes), or built now for one made by hand.
std::shared_ptr<const network::Topology> topology_of(const SimConfig& config) {
  return config.topology
             ? config.topology
             : std::make_shared<const network::Topology>(network::build_topology(config.network.topology_params()));
}

// The same as one word, for a VCD signal name: "node3", "switch0_port3".
std::string vcd_word(const network::Endpoint& end) {
  if (end.kind == network::Endpoint::Kind::kNode) return "node" + std::to_string(end.index);
  return "switch" + std::to_string(end.index) + "_port" + std::to_string(end.port.value());
}

}  // namespace

// The memory check comes before anything is built, switches included.
Cluster::Cluster(const SimConfig& config) : config_(config), topology_(topology_of(config)) {
  if (!config_.trace.replays()) {
    const uint64_t processes = uint64_t{topology_->nodes} * config_.traffic.processes_per_node;
    if (processes > kMaxProcesses) {
      throw ConfigError("traffic.processes_per_node", std::to_string(processes) + " processes: at most " +
                                                          std::to_string(kMaxProcesses) + " are supported");
    }
    check_memory_for(processes, largest_size(config_.traffic.sizes_bytes));
    build_switches();
    build_cards(static_cast<uint32_t>(processes));
    host_ = std::make_unique<hosts::SyntheticTraffic>("traffic", kernel_, config_.traffic, cards_, node_ps_per_byte(),
                                                      config_.nic.mtu_bytes, config_.seed, statistics_);
  } else {
    std::vector<std::unique_ptr<traces::TraceReader>> jobs;
    uint64_t processes = 0;
    uint64_t largest_message = 0;
    std::set<std::string> checked;
    for (const std::string& file : config_.trace.job_files()) {
      jobs.push_back(open_checked_trace(file, checked, largest_message));
      processes += jobs.back()->header().processes;
    }
    const std::string key = config_.trace.jobs.empty() ? "trace.file" : "trace.jobs";
    if (processes > kMaxProcesses) {
      throw ConfigError(key, "the traces hold " + std::to_string(processes) + " processes together; at most " +
                                 std::to_string(kMaxProcesses) + " are supported");
    }
    check_memory_for(processes, largest_message);
    build_switches();
    build_cards(static_cast<uint32_t>(processes));
    host_ = std::make_unique<hosts::TraceReplay>("replay", kernel_, std::move(jobs), cards_, config_.nic.mtu_bytes,
                                                 config_.replay, config_.scheduling, statistics_);
  }
  wire();
}

Cluster::Cluster(const SimConfig& config, std::vector<hosts::ScriptedMessage> script)
    : config_(config), topology_(topology_of(config)) {
  build_switches();
  build_cards(topology_->nodes * config_.traffic.processes_per_node);
  auto host = std::make_unique<hosts::ScriptedTraffic>("script", kernel_, std::move(script), cards_,
                                                       config_.nic.mtu_bytes, statistics_);
  scripted_ = host.get();
  host_ = std::move(host);
  wire();
}

Cluster::~Cluster() = default;

void Cluster::check_memory_for(uint64_t processes, uint64_t largest_message) const {
  if (config_.ignore_memory_estimate) return;
  check_memory(estimate_memory(config_, *topology_, processes, largest_message), machine_memory_bytes());
}

void Cluster::build_switches() {
  switch_storage_.emplace(topology_->switches.size());
  for (size_t s = 0; s < topology_->switches.size(); ++s) {
    const auto& spec = topology_->switches[s];
    const std::string name = "switch_" + std::to_string(s);
    switches_.push_back(&switch_storage_->emplace_back(name.c_str(), kernel_, pool_, spec.ports, spec.forwarding,
                                                       config_.network.switches(spec.port_rate), spec.lane_map,
                                                       spec.choices));
  }
}

void Cluster::build_cards(uint32_t total_processes) {
  nic::CicParams params = config_.nic;
  params.total_processes = total_processes;
  if (params.functional_crypto) payloads_ = std::make_unique<network::PacketPayloads>(params.mtu_bytes);
  card_storage_.emplace(topology_->nodes);
  for (uint32_t n = 0; n < topology_->nodes; ++n) {
    const std::string name = "cic_" + std::to_string(n);
    cards_.push_back(&card_storage_->emplace_back(name.c_str(), kernel_, pool_, next_packet_id_, NodeId(n), params,
                                                  payloads_.get()));
  }
}

std::vector<double> Cluster::node_ps_per_byte() const {
  std::vector<double> rates;
  rates.reserve(topology_->nodes);
  for (uint32_t node = 0; node < topology_->nodes; ++node) {
    const auto own = topology_->rate_at({network::Endpoint::Kind::kNode, node});
    rates.push_back(config_.network.rate(own).serialization.ps_per_byte());
  }
  return rates;
}

// A card's link is the cluster's; a switch keeps the links it sends on (Switch::wire_output).
network::CreditLink& Cluster::add_link(const network::LinkParams& params, const network::Endpoint& from,
                                       network::PacketReceiver& to, PortId to_port) {
  network::CreditLink& link = from.kind == network::Endpoint::Kind::kNode
                                  ? card_links_->emplace_back(params, *cards_[from.index], PortId(0), to, to_port)
                                  : switches_[from.index]->wire_output(from.port, params, to, to_port);
  links_.push_back(&link);
  return link;
}

network::PacketReceiver& Cluster::receiver_at(const network::Endpoint& end) {
  if (end.kind == network::Endpoint::Kind::kNode) return *cards_[end.index];
  return *switches_[end.index];
}

void Cluster::build_attacker() {
  if (!config_.attack) return;
  capture_ = std::make_unique<attack::SnoopCapture>(config_.attack->capture_file);
  const attack::AttackerContext context{pool_, *payloads_, next_packet_id_, cards_.front()->total_processes(),
                                        config_.nic.security.encrypts()};
  attacker_ = std::make_unique<attack::Attacker>("attacker", kernel_, *config_.attack, context, capture_.get());
}

bool Cluster::attacked(attack::AttackSite::Kind kind, uint32_t index, uint16_t port) const {
  if (!attacker_) return false;
  const attack::AttackSite& site = config_.attack->site;
  return site.kind == kind && site.index == index &&
         (kind != attack::AttackSite::Kind::kSwitchPort || site.port == port);
}

network::CreditLink& Cluster::add_link_via(bool attacked, const network::LinkParams& params,
                                           const network::Endpoint& from, network::PacketReceiver& to, PortId to_port) {
  if (!attacked) return add_link(params, from, to, to_port);
  network::CreditLink& link = add_link(params, from, *attacker_, to_port);
  attacker_->tap(link, to, to_port);
  attacker_tapped_ = true;
  return link;
}

void Cluster::wire() {
  using Site = attack::AttackSite::Kind;
  build_attacker();
  card_links_.emplace(cards_.size());
  const network::LinkParams fabric_params = config_.network.link();
  std::vector<network::CreditLink*> card_out(cards_.size());
  std::vector<network::CreditLink*> card_in(cards_.size());
  for (const LinkEnds& ends : network::links_of(*topology_)) {
    const network::Endpoint& from = ends.from;
    const network::Endpoint& to = ends.to;
    const std::optional<network::CableRate> rate = topology_->rate_at(from);
    const network::LinkParams params = rate ? config_.network.link(rate) : fabric_params;
    if (from.kind == network::Endpoint::Kind::kNode) {
      network::CreditLink& link =
          add_link_via(attacked(Site::kNodeOut, from.index), params, from, *switches_[to.index], to.port);
      switches_[to.index]->attach_input(to.port, &link);
      card_out[from.index] = &link;
    } else {
      const bool tapped = attacked(Site::kSwitchPort, from.index, from.port.value()) ||
                          (to.kind == network::Endpoint::Kind::kNode && attacked(Site::kNodeIn, to.index));
      network::CreditLink& link = add_link_via(tapped, params, from, receiver_at(to), to.port);
      if (to.kind == network::Endpoint::Kind::kNode) {
        card_in[to.index] = &link;
      } else {
        switches_[to.index]->attach_input(to.port, &link);
      }
    }
    link_ends_.push_back(ends);
  }
  for (uint32_t n = 0; n < cards_.size(); ++n) cards_[n]->attach(card_out[n], card_in[n], host_.get());
  if (attacker_ && !attacker_tapped_) {
    std::string message = config_.attack->site.text();
    message += " is no cable of this topology (" + std::to_string(topology_->nodes) + " nodes, ";
    message += std::to_string(topology_->switches.size()) + " switches)";
    throw ConfigError("attack.link", message);
  }
}

// Every card counter over time, for looking at a small run in a waveform
// viewer. sc_trace samples the counters in place, so the model pays nothing
// when it is off.
void Cluster::trace_cards(sc_core::sc_trace_file* file) const {
  for (const auto& card : cards_) {
    const std::string prefix = card->basename();
    const nic::CicStats& stats = card->stats();
    for (size_t i = 0; i < stats.size(); ++i) {
      if (const Counter* counter = stats.counter(i))
        sc_core::sc_trace(file, counter->sampled(), prefix + "." + stats.info(i).name);
    }
  }
}

// Every link's packets and bytes sent so far, named by its ends
// ("node3_to_switch0_port3.link_bytes"); sampled in place like the cards'
// counters, so the model pays nothing when the trace is off.
void Cluster::trace_links(sc_core::sc_trace_file* file) const {
  for (size_t i = 0; i < links_.size(); ++i) {
    const std::string prefix = vcd_word(link_ends_[i].from) + "_to_" + vcd_word(link_ends_[i].to);
    const network::LinkStats& stats = links_[i]->stats();
    sc_core::sc_trace(file, stats.packets.sampled(), prefix + ".link_packets");
    sc_core::sc_trace(file, stats.bytes.sampled(), prefix + ".link_bytes");
  }
}

std::string Cluster::link_name(size_t link) const { return sim::link_name(link_ends_[link]); }

RunOutcome Cluster::run(void (*progress)(const Cluster&, Tick now)) {
  using WallClock = std::chrono::steady_clock;
  if (!config_.output.event_log.empty()) {
    packet_log_ = std::make_unique<PacketLog>(config_.output.event_log);
    statistics_.log_to(packet_log_.get());
  }
  sc_core::sc_trace_file* vcd = nullptr;
  std::unique_ptr<PipedOutput> vcd_output;  // SystemC writes the VCD through it: atomic, its write errors seen
  if (!config_.output.vcd.empty()) {
    vcd_output = std::make_unique<PipedOutput>(vcd_file_path(config_.output.vcd), "sim.vcd", "trace.vcd");
    std::string base = vcd_output->pipe_path();
    base.resize(base.size() - 4);  // SystemC appends .vcd
    // Keep SystemC's informational note about the timescale off the terminal.
    sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    vcd = sc_core::sc_create_vcd_trace_file(base.c_str());
    vcd->set_time_unit(1, sc_core::SC_PS);  // the model's resolution
    trace_cards(vcd);
    trace_links(vcd);
  }
  auto last_report = WallClock::now();
  RunOutcome outcome;
  Tick sources_done_at = kNever;
  // A VCD trace samples values at SystemC's time steps, so then SystemC
  // advances time instant by instant; otherwise the kernel does, without it.
  if (vcd == nullptr) kernel_.drive_from_caller();
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // finish elaboration, let sources schedule
  while (kernel_.pending()) {
    const Tick now = kernel_.run_for(kRunSlice);
    if (sources_done_at == kNever && host_->finished()) sources_done_at = now;
    if (host_->deadlocked()) break;  // timers would tick on without end
    if (sources_done_at != kNever && now - sources_done_at > config_.drain_timeout) break;
    if (progress != nullptr && WallClock::now() - last_report > std::chrono::seconds(1)) {
      progress(*this, now);
      last_report = WallClock::now();
    }
  }
  if (vcd != nullptr) {
    sc_core::sc_close_vcd_trace_file(vcd);
    vcd_output->commit();
  }
  if (packet_log_) packet_log_->close();
  if (capture_) capture_->close();
  outcome.end = statistics_.last_delivery();
  outcome.packets_stuck = packets_inside();
  outcome.drained = outcome.packets_stuck == 0 && host_->finished();
  return outcome;
}

size_t Cluster::packets_inside() const { return pool_.in_use(); }

uint64_t Cluster::credits_missing() const {
  uint64_t missing = 0;
  for (const network::CreditLink* link : links_) missing += link->credits_missing();
  return missing;
}

}  // namespace ibsec::sim
