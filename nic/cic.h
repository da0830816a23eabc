// The cluster interconnect card (CIC) of one node. Both directions are
// in-order pipelines of three stages on the card's 270 MHz clock:
//
//   send:    host queue -> key look-up -> GCM encrypt  -> link (credits)
//   receive: rx buffer  -> key look-up -> GCM decrypt  -> host
//
// The two look-up stages share the session key cache (SKC), the prefetch
// buffer and the external key memory's single port; each direction has its
// own GCM engines. By default a look-up blocks its stage until the key is on
// the card, so a miss holds up the packets behind it in that direction; with
// nic.lookup.outstanding_misses > 1 the stage holds that many packets, and a
// packet whose key is here moves on past those still waiting for theirs
// (docs/cic.md).
//
// With a prefetch buffer, the card also prefetches (§3.3): it takes the
// process that last handed it a message to be the one on the CPU, and when a
// packet arrives for another local process it loads that process's recently
// evicted keys into the buffer, using the key memory only when no look-up
// needs it. Which keys, and in what order, is the Prefetcher's
// (nic/prefetcher.h); what became of attacked packets, the AttackTally's.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/event_module.h"
#include "core/parameters.h"
#include "core/statistics.h"
#include "network/credit_link.h"
#include "network/packet.h"
#include "network/packet_payloads.h"
#include "nic/attack_tally.h"
#include "nic/card_crypto_stats.h"
#include "nic/gcm_unit.h"
#include "nic/host_interface.h"
#include "nic/key_lookup.h"
#include "nic/key_memory.h"
#include "nic/packet_fifo.h"
#include "nic/prefetcher.h"
#include "nic/security_mode.h"
#include "nic/session_table.h"
#include "nic/shadow_caches.h"
#include "nic/stack_distances.h"
#include "nic/stage_ring.h"

namespace ibsec::nic {

// The SKC access time used and where it came from, for the result file.
struct SkcAccessOrigin {
  double ns = 3.0;
  std::string source = "nic.skc.access_ns";  // or the CACTI table row it was read from
};

// The SKC geometry CACTI is asked about with nic.skc.access_ns = "cacti".
struct CactiChoice {
  uint32_t block_bytes = 32;  // one line per session key entry (key, identifier, state)
  uint32_t tech_nm = 45;
  std::string table;  // empty: the shipped table
};

// The card's parameters; their keys, units and checks are declared in
// card_parameters.cpp, with these initial values as the defaults. Those
// every packet reads come first, so that they share a cache line.
struct CicParams {
  SecurityMode security = SecurityMode::skc(6);
  Clock clock = Clock::from_mhz(270.0);
  uint32_t lookup_outstanding_misses = 1;  // 1: a miss blocks its direction's look-up stage
  uint32_t mtu_bytes = 256;                // payload per packet
  uint32_t header_bytes = 26;              // LRH 8 + BTH 12 + ICRC 4 + VCRC 2
  uint32_t security_bytes = 24;            // key id 4 + sequence number 4 + GCM tag 16
  uint32_t lanes = 1;
  uint32_t total_processes = 1;
  KeyCacheConfig skc;  // entries are taken from `security`
  Tick skc_access = 3 * kTicksPerNs;
  SkcAccessOrigin skc_access_origin;
  CactiChoice cacti;
  Tick key_memory_access = 2500 * kTicksPerNs;
  uint32_t key_memory_requests_in_flight = 1;  // 1: the paper's single FIFO port
  GcmTiming gcm;
  std::optional<Clock> gcm_clock;  // none: the card clock
  uint32_t gcm_engines = 1;        // per direction
  bool gcm_pipelined = false;
  uint32_t prefetch_list_entries = 0;  // keys remembered per process; 0 = as many as the buffer holds
  // nic.crypto.mode = functional: real AES-GCM on synthetic payloads, beside
  // unchanged timing (docs/crypto.md, "In the card").
  bool functional_crypto = false;
  uint32_t session_key_bytes = 16;
  uint32_t replay_window_packets = 64;  // RFC 4303's default window
  uint64_t key_seed = 1;
  // nic.lookup.stack_distances: keep each card's LRU stack distances (docs/sizing.md).
  bool stack_distances = false;
  // nic.lookup.shadow_policies: replacement policies whose SKCs of every size see the card's look-ups.
  std::vector<std::string> shadow_policies;
};

// nic.* : the card's parameters (card_parameters.cpp).
const ParameterSet<CicParams>& card_parameters();

class CardCrypto;

// What a card counts; hit rates are derived over all cards (cic.cpp).
struct CicStats : StatGroupOf<CicStats> {
  Counter packets_sent{*this,
                       {"packets_sent", "packets", "packets the card put on its link", Merge::kSum, Shown::kInternal}};
  Counter packets_received{
      *this, {"packets_received", "packets", "packets the card took off its link", Merge::kSum, Shown::kInternal}};
  Counter lookups{*this, {"key_lookups", "lookups", "session-key look-ups at senders and receivers"}};
  Counter skc_hits{*this, {"skc_hits", "lookups", "look-ups found in the SKC", Merge::kSum, Shown::kInternal}};
  Counter buffer_hits{
      *this, {"buffer_hits", "lookups", "look-ups found in the prefetch buffer", Merge::kSum, Shown::kInternal}};
  Counter misses{*this, {"key_misses", "lookups", "look-ups that waited for the external key memory"}};
  Counter merged_misses{*this, {"key_misses_merged", "lookups", "misses whose key was already being fetched"}};
  Counter prefetch_triggers{
      *this,
      {"prefetch_triggers", "arrivals", "packets for a process the card took to be off its CPU (prefetch hint)"}};
  Counter prefetches_issued{*this, {"prefetches_issued", "keys", "key memory reads started to fill prefetch buffers"}};
  Counter prefetches_cancelled{
      *this, {"prefetches_cancelled", "keys", "queued prefetches a look-up needed first (fetched on demand)"}};
  // Reordering as RFC 4737 defines it: a packet is reordered if a later one
  // of its session and direction was delivered before it; its extent is how
  // many sequence numbers it came behind the next expected.
  Counter out_of_order{*this,
                       {"out_of_order_packets", "packets",
                        "deliveries behind a later packet of their session and direction (RFC 4737 reordering)"}};
  Counter reordered_sessions{
      *this, {"reordered_sessions", "sessions", "session directions with at least one out-of-order delivery"}};
  Counter reordering_extent_max{
      *this,
      {"reordering_extent_max", "packets",
       "the most sequence numbers an out-of-order delivery came behind the next expected one "
       "(RFC 4737 extent; the functional replay window spans nic.crypto.replay_window_packets)",
       Merge::kMax}};
  Counter max_send_backlog{*this, {"max_send_backlog", "packets", "longest send queue at any card", Merge::kMax}};
  // What held up a direction while packets waited to enter its look-up stage
  // (docs/cic.md, "What limits a card"); each in ps, one reason at a time.
  Counter send_stalled_lookup{
      *this, {"send_stalled_lookup", "ps", "send: look-up port busy (SKC access)", Merge::kSum, Shown::kInternal}};
  Counter send_stalled_key_memory{
      *this, {"send_stalled_key_memory", "ps", "send: look-up stage full of misses", Merge::kSum, Shown::kInternal}};
  Counter send_stalled_gcm{*this,
                           {"send_stalled_gcm", "ps", "send: packets with their keys waiting for a GCM engine",
                            Merge::kSum, Shown::kInternal}};
  Counter send_stalled_link{
      *this,
      {"send_stalled_link", "ps", "send: encrypted packets waiting for the link", Merge::kSum, Shown::kInternal}};
  Counter receive_stalled_lookup{
      *this,
      {"receive_stalled_lookup", "ps", "receive: look-up port busy (SKC access)", Merge::kSum, Shown::kInternal}};
  Counter receive_stalled_key_memory{
      *this,
      {"receive_stalled_key_memory", "ps", "receive: look-up stage full of misses", Merge::kSum, Shown::kInternal}};
  Counter receive_stalled_gcm{*this,
                              {"receive_stalled_gcm", "ps", "receive: packets with their keys waiting for a GCM engine",
                               Merge::kSum, Shown::kInternal}};

  static const std::vector<DerivedStatistic>& derived();
};

class Cic final : public EventDrivenModule, public network::PacketReceiver, public network::LinkSender {
 public:
  // `payloads`: the packets' bytes, required with params.functional_crypto, else unused.
  Cic(const sc_core::sc_module_name& name, EventKernel& kernel, network::PacketPool& pool, uint64_t& next_packet_id,
      NodeId node, const CicParams& params, network::PacketPayloads* payloads = nullptr);
  ~Cic() override;

  void attach(network::CreditLink* out, network::CreditLink* in_upstream, HostInterface* host);

  // Host side: segments the message into packets and queues them to send.
  void submit(const MessageRequest& message, Tick now);
  [[nodiscard]] size_t send_backlog() const { return tx_.waiting.size(); }

  // Link side.
  void on_packet_head(PortId port, network::PacketHandle packet, Tick head_at) override;
  void on_credits_returned(PortId port, Tick at) override;

  [[nodiscard]] const CicStats& stats() const { return stats_; }
  [[nodiscard]] uint32_t total_processes() const { return params_.total_processes; }
  [[nodiscard]] const KeyMemoryStats& key_memory_stats() const { return memory_.stats(); }
  // Null without a prefetch buffer.
  [[nodiscard]] const PrefetchBufferStats* prefetch_stats() const {
    return lookup_ && lookup_->buffer() ? &lookup_->buffer()->stats() : nullptr;
  }
  // The send and the receive direction's units.
  [[nodiscard]] std::array<const GcmUnitStats*, 2> gcm_stats() const { return {&tx_.gcm.stats(), &rx_.gcm.stats()}; }
  // Null in timing mode.
  [[nodiscard]] const CardCryptoStats* crypto_stats() const;
  // Null unless nic.lookup.stack_distances.
  [[nodiscard]] const StackDistanceProfile* stack_distances() const {
    return stack_distances_ ? &*stack_distances_ : nullptr;
  }
  // One per nic.lookup.shadow_policies entry, in that order (empty without).
  [[nodiscard]] const std::vector<ShadowCaches>& shadow_caches() const { return shadow_caches_; }
  [[nodiscard]] CardCrypto* crypto() { return crypto_.get(); }
  // What became of attacked packets this card received (attack/attacker.h).
  [[nodiscard]] const AttackOutcomes& attack_outcomes() const { return attacks_.outcomes(); }

 private:
  friend class EventDrivenModule;  // calls handle and settle directly (call_directly)
  enum EventKind : uint32_t { kAdvanceSend, kAdvanceReceive, kTailArrived, kPrefetchPump, kPrefetchLoaded };

  struct InGcm {
    network::PacketHandle packet;
    Tick done;
  };
  struct InLookup {
    network::PacketHandle packet;
    Tick key_ready;
    bool from_memory;  // a miss: the key comes from the key memory
  };
  // Why a direction's waiting packets cannot enter its look-up stage.
  enum Bottleneck : uint8_t { kNoStall, kLookupPort, kKeyMemory, kGcmEngines, kLink, kBottlenecks };
  // The reason from `since` on: `first` until `first_until`, then `then`.
  struct Stall {
    Tick since = 0;
    Tick first_until = kNever;
    Bottleneck first = kNoStall;
    Bottleneck then = kNoStall;
  };
  // Packets the GCM stage holds at once per engine (in flight plus finished
  // ones waiting for the link). Eight covers latency / occupancy for every
  // payload size, so a pipelined engine never stalls for lack of slots.
  static constexpr size_t kGcmSlotsPerEngine = 8;
  // What every advance reads comes first; the GCM unit, which only
  // encrypting modes use, and the stall counters come last.
  struct Pipeline {
    Pipeline(const CicParams& params, std::array<Counter*, kBottlenecks> stalled)
        : in_lookup(params.lookup_outstanding_misses),
          in_gcm(kGcmSlotsPerEngine * params.gcm_engines),
          gcm(params.gcm, params.gcm_clock.value_or(params.clock), params.gcm_pipelined, params.gcm_engines),
          stalled(stalled) {}
    Tick wake_at = kNever;          // earliest advance already queued
    Tick lookup_free_at = 0;        // the look-up stage takes its next packet
    Tick last_key_ready = 0;        // blocking stage: when the last packet's key came
    bool last_from_memory = false;  // ... and whether it came from the key memory
    Stall stall;
    PacketFifo waiting;
    StageRing<InLookup, 1> in_lookup;  // in entry order, at most nic.lookup.outstanding_misses
    StageRing<InGcm, 1> in_gcm;        // in entry order, at most kGcmSlotsPerEngine per engine
    GcmUnit gcm;
    std::array<Counter*, kBottlenecks> stalled;  // where each reason's time is counted (null: not counted)
  };
  struct PendingKey {
    SessionKeyId key;
    Tick ready;
  };

  void handle(const ModuleEvent& event) override;

  void advance(Pipeline& pipe, EventKind kind, Tick now);
  bool step(Pipeline& pipe, EventKind kind, Tick now);
  bool step_blocking(Pipeline& pipe, Tick now);
  bool step_overlapped(Pipeline& pipe, Tick now);
  void enter_lookup(Pipeline& pipe, EventKind kind, Tick now);
  void enter_gcm(Pipeline& pipe, network::PacketHandle handle, Tick start);
  void count_stall(Pipeline& pipe, Tick now);
  [[nodiscard]] Stall stall_reason(const Pipeline& pipe, EventKind kind, Tick now) const;
  bool emit(Pipeline& pipe, EventKind kind, Tick now);
  void wake_later(Pipeline& pipe, EventKind kind, Tick at);
  [[nodiscard]] Tick next_progress(const Pipeline& pipe, EventKind kind, Tick now) const;

  struct KeyArrival {
    Tick ready;
    bool from_memory;  // the key comes from (or is on its way from) the key memory
  };
  KeyArrival key_ready_at(SessionKeyId key, Tick now);
  void on_arrival(const network::Packet& packet, Tick now);
  void pump_prefetches(Tick now);
  void prefetch_loaded(Tick now);
  Tick read_key_memory(SessionKeyId key, Tick now);
  void deliver(network::PacketHandle handle, Tick now);
  void count_reordering(const network::Packet& packet);
  void drop_received(network::PacketHandle handle, Tick now);
  void free_received(network::PacketHandle handle, Tick now);

  // What every packet reads comes first, after the kernel's lines: where
  // packets go and come from, the parameters they read (CicParams' first
  // fields), each direction's stage state, the sessions; what only a
  // security mode, a prefetch or a stall reads comes after the statistics.
  network::PacketPool& pool_;
  uint64_t& next_packet_id_;
  network::CreditLink* out_ = nullptr;
  network::CreditLink* in_upstream_ = nullptr;
  HostInterface* host_ = nullptr;
  std::unique_ptr<CardCrypto> crypto_;      // functional mode only
  std::unique_ptr<Prefetcher> prefetcher_;  // with a prefetch buffer
  // CicParams' first fields, which every packet reads, fill this line; the
  // node id shares the send pipeline's first line, after the parameters' rest.
  CicParams params_;
  NodeId node_;
  Pipeline tx_;
  Pipeline rx_;
  SessionTable<uint32_t> next_sequence_;  // by (source process, destination)
  struct Arrivals {
    uint32_t next_expected = 0;  // one past the highest sequence number delivered
    bool reordered = false;
  };
  SessionTable<Arrivals> arrivals_;  // by (destination process, source)
  CicStats stats_;
  Tick lookup_issue_interval_;  // a non-blocking look-up stage starts one look-up per interval
  std::optional<KeyLookup> lookup_;
  KeyMemory memory_;
  std::vector<PendingKey> pending_keys_;
  Tick prefetch_wake_ = kNever;  // earliest pump already queued
  std::optional<StackDistanceProfile> stack_distances_;
  std::vector<ShadowCaches> shadow_caches_;
  AttackTally attacks_;
};

}  // namespace ibsec::nic
