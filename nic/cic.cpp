#include "nic/cic.h"

#include <algorithm>
#include <stdexcept>

#include "nic/card_crypto.h"

namespace ibsec::nic {
namespace {

// A share of the look-ups, or null when there were none (NoSecurity): a rate
// of 0 would read as "every look-up missed".
nlohmann::json per_lookup(const StatTotals& t, uint64_t count) {
  const uint64_t lookups = t.sum("key_lookups");
  return lookups == 0 ? nlohmann::json() : nlohmann::json(ratio(count, lookups));
}

// The share of the run a direction had packets waiting for its look-up stage
// because of one bottleneck, over all cards.
DerivedStatistic stall_share(const char* name, const char* counter, const char* description) {
  return {name, "fraction", description,
          [counter](const StatTotals& t) { return nlohmann::json(t.busy_fraction(counter)); }};
}

}  // namespace

const std::vector<DerivedStatistic>& CicStats::derived() {
  static const std::vector<DerivedStatistic> list{
      {"skc_hit_rate", "fraction",
       "(SKC hits + prefetch-buffer hits) / look-ups (the paper's definition); null without look-ups",
       [](const StatTotals& t) { return per_lookup(t, t.sum("skc_hits") + t.sum("buffer_hits")); }},
      {"skc_only_hit_rate", "fraction", "SKC hits / look-ups; null without look-ups",
       [](const StatTotals& t) { return per_lookup(t, t.sum("skc_hits")); }},
      {"prefetch_buffer_hit_rate", "fraction", "prefetch-buffer hits / look-ups; null without look-ups",
       [](const StatTotals& t) { return per_lookup(t, t.sum("buffer_hits")); }},
      stall_share(
          "send_stall_lookup_fraction", "send_stalled_lookup",
          "share of time packets waited to enter the look-up stage because of send: the look-up port (SKC access)"),
      stall_share("send_stall_key_memory_fraction", "send_stalled_key_memory",
                  "share of time packets waited to enter the look-up stage because of send: look-ups waiting for the "
                  "key memory (outstanding misses or memory slots)"),
      stall_share("send_stall_gcm_fraction", "send_stalled_gcm",
                  "share of time packets waited to enter the look-up stage because of send: the GCM engines"),
      stall_share("send_stall_link_fraction", "send_stalled_link",
                  "share of time packets waited to enter the look-up stage because of send: the link (credits or "
                  "serialization)"),
      stall_share(
          "receive_stall_lookup_fraction", "receive_stalled_lookup",
          "share of time packets waited to enter the look-up stage because of receive: the look-up port (SKC access)"),
      stall_share("receive_stall_key_memory_fraction", "receive_stalled_key_memory",
                  "share of time packets waited to enter the look-up stage because of receive: look-ups waiting for "
                  "the key memory (outstanding misses or memory slots)"),
      stall_share("receive_stall_gcm_fraction", "receive_stalled_gcm",
                  "share of time packets waited to enter the look-up stage because of receive: the GCM engines"),
  };
  return list;
}

Cic::Cic(const sc_core::sc_module_name& name, EventKernel& kernel, network::PacketPool& pool, uint64_t& next_packet_id,
         NodeId node, const CicParams& params, network::PacketPayloads* payloads)
    : EventDrivenModule(name, kernel),
      pool_(pool),
      next_packet_id_(next_packet_id),
      params_(params),
      node_(node),
      tx_(params, {}),
      rx_(params, {}),
      next_sequence_(params.total_processes),
      arrivals_(params.total_processes),
      lookup_issue_interval_(params.security.path == KeyPath::kCache
                                 ? params.clock.ticks(params.clock.cycles_covering(params.skc_access))
                                 : params.clock.period()),
      memory_(params.key_memory_access, params.key_memory_requests_in_flight) {
  call_directly<Cic>();
  tx_.stalled = {nullptr, &stats_.send_stalled_lookup, &stats_.send_stalled_key_memory, &stats_.send_stalled_gcm,
                 &stats_.send_stalled_link};
  rx_.stalled = {nullptr, &stats_.receive_stalled_lookup, &stats_.receive_stalled_key_memory,
                 &stats_.receive_stalled_gcm, nullptr};
  if (params_.security.path == KeyPath::kCache) {
    KeyCacheConfig skc = params_.skc;
    skc.entries = params_.security.skc_entries;
    lookup_.emplace(skc, params_.security.prefetch_entries);
  }
  if (params_.security.prefetch_entries > 0 && lookup_) {
    const uint32_t list =
        params_.prefetch_list_entries > 0 ? params_.prefetch_list_entries : params_.security.prefetch_entries;
    prefetcher_ = std::make_unique<Prefetcher>(list, params_.total_processes);
  }
  if (params_.stack_distances) stack_distances_.emplace();
  for (const std::string& policy : params_.shadow_policies) {
    shadow_caches_.emplace_back(policy, params_.security.skc_entries, params_.skc.seed);
  }
  if (params_.functional_crypto) {
    if (payloads == nullptr) throw std::invalid_argument("Cic: functional crypto needs the packets' payload buffer");
    const CardCryptoParams crypto{params_.key_seed, params_.session_key_bytes, params_.total_processes,
                                  params_.security.encrypts(), params_.replay_window_packets};
    crypto_ = std::make_unique<CardCrypto>(node, crypto, *payloads);
  }
}

Cic::~Cic() = default;

const CardCryptoStats* Cic::crypto_stats() const { return crypto_ ? &crypto_->stats() : nullptr; }

void Cic::attach(network::CreditLink* out, network::CreditLink* in_upstream, HostInterface* host) {
  out_ = out;
  in_upstream_ = in_upstream;
  host_ = host;
}

void Cic::submit(const MessageRequest& message, Tick now) {
  const uint32_t mtu = params_.mtu_bytes;
  // In 64 bits: a message near 4 GiB would wrap to a single packet in 32.
  const auto packets = static_cast<uint32_t>(std::max<uint64_t>(1, (uint64_t{message.bytes} + mtu - 1) / mtu));
  const SessionKeyId key = session_key(message.source_process, message.destination_process, params_.total_processes);
  uint32_t& sequence = next_sequence_(message.source_process, message.destination_process);
  if (prefetcher_) prefetcher_->handed_over(ProcessId(message.source_process));
  const uint32_t overhead = params_.header_bytes + (params_.security.encrypts() ? params_.security_bytes : 0);
  for (uint32_t i = 0; i < packets; ++i) {
    const network::PacketHandle handle = pool_.acquire();
    network::Packet& p = pool_[handle];
    p.id = next_packet_id_++;
    p.handover = now;
    p.key = key;
    p.sequence = sequence++;
    p.source = node_;
    p.destination = message.destination;
    p.source_process = message.source_process;
    p.destination_process = message.destination_process;
    p.payload_bytes = i + 1 < packets ? mtu : message.bytes - i * mtu;
    p.wire_bytes = p.payload_bytes + overhead;
    p.message = message.message;
    p.lane = VirtualLane(static_cast<uint8_t>(key.value() % params_.lanes));
    p.service_level = p.lane;
    p.measured = message.measured;
    p.last_of_message = i + 1 == packets;
    if (crypto_) crypto_->write_payload(p, handle);
    tx_.waiting.push_back(pool_, handle);
  }
  stats_.max_send_backlog.raise_to(tx_.waiting.size());
  wake_later(tx_, kAdvanceSend, params_.clock.next_edge(now));
}

void Cic::on_packet_head(PortId /*port*/, network::PacketHandle packet, Tick /*head_at*/) {
  const network::Packet& p = pool_[packet];
  arrivals_.prefetch(p.destination_process, p.source_process);
  schedule(params_.clock.next_edge(p.tail_at), kTailArrived, packet.value());
}

void Cic::on_credits_returned(PortId /*port*/, Tick at) { wake_later(tx_, kAdvanceSend, params_.clock.next_edge(at)); }

void Cic::handle(const ModuleEvent& event) {
  const Tick now = event.at;
  switch (event.kind) {
    case kAdvanceSend:
      advance(tx_, kAdvanceSend, now);
      break;
    case kTailArrived:
      if (prefetcher_) on_arrival(pool_[network::PacketHandle(event.arg)], now);
      rx_.waiting.push_back(pool_, network::PacketHandle(event.arg));
      advance(rx_, kAdvanceReceive, now);
      break;
    case kPrefetchPump:
      prefetch_wake_ = kNever;
      pump_prefetches(now);
      break;
    case kPrefetchLoaded:
      prefetch_loaded(now);
      break;
    case kAdvanceReceive:
      advance(rx_, kAdvanceReceive, now);
      break;
    default:
      break;
  }
}

void Cic::wake_later(Pipeline& pipe, EventKind kind, Tick at) {
  if (at >= pipe.wake_at) return;
  pipe.wake_at = at;
  schedule(at, kind);
}

void Cic::advance(Pipeline& pipe, EventKind kind, Tick now) {
  if (pipe.wake_at <= now) pipe.wake_at = kNever;
  if (pipe.stall.first != kNoStall) count_stall(pipe, now);
  while (step(pipe, kind, now)) {
  }
  if (pipe.waiting.empty()) {
    pipe.stall.first = kNoStall;  // nothing waits: count_stall looks no further
  } else {
    pipe.stall = stall_reason(pipe, kind, now);
  }
  const Tick next = next_progress(pipe, kind, now);
  if (next != kNever) wake_later(pipe, kind, params_.clock.next_edge(next));
}

// Adds the time since the last advance to the reason found then.
inline void Cic::count_stall(Pipeline& pipe, Tick now) {
  const Stall& stall = pipe.stall;
  if (now <= stall.since) return;
  const Tick split = std::clamp(stall.first_until, stall.since, now);
  if (Counter* first = pipe.stalled[stall.first]) *first += split - stall.since;
  if (Counter* then = pipe.stalled[stall.then]) *then += now - split;
}

// Why the packets waiting for the look-up stage cannot enter it now, and
// until when that holds as far as is known (a blocking stage: its packet waits
// for its key, then for an engine).
inline Cic::Stall Cic::stall_reason(const Pipeline& pipe, EventKind kind, Tick now) const {
  const bool stage_full = pipe.in_lookup.size() >= params_.lookup_outstanding_misses;
  if (!stage_full) {
    if (pipe.lookup_free_at <= now) return {};
    if (params_.lookup_outstanding_misses > 1) return {.since = now, .first = kLookupPort};
    // A blocking stage is held until its last packet starts in an engine.
    return {.since = now,
            .first_until = pipe.last_key_ready,
            .first = pipe.last_from_memory ? kKeyMemory : kLookupPort,
            .then = kGcmEngines};
  }
  const bool keys_here = std::ranges::any_of(pipe.in_lookup, [now](const InLookup& e) { return e.key_ready <= now; });
  if (!keys_here) {
    const bool misses = std::ranges::any_of(pipe.in_lookup, [](const InLookup& e) { return e.from_memory; });
    return {.since = now, .first = misses ? kKeyMemory : kLookupPort};
  }
  // Keys are here but the GCM stage is full: its head waits for an engine or for the link.
  const bool head_done = !pipe.in_gcm.empty() && pipe.in_gcm.front().done <= now;
  return {.since = now, .first = head_done && kind == kAdvanceSend ? kLink : kGcmEngines};
}

// Moves packets forward by at most one place per stage, last stage first so
// that a stage frees before the one behind it looks.
inline bool Cic::step(Pipeline& pipe, EventKind kind, Tick now) {
  bool progressed = false;
  if (!pipe.in_gcm.empty() && pipe.in_gcm.front().done <= now && emit(pipe, kind, now)) {
    pipe.in_gcm.pop_front();
    progressed = true;
  }
  if (params_.lookup_outstanding_misses == 1) {
    progressed |= step_blocking(pipe, now);
  } else {
    progressed |= step_overlapped(pipe, now);
  }
  if (!pipe.waiting.empty() && pipe.lookup_free_at <= now &&
      pipe.in_lookup.size() < params_.lookup_outstanding_misses) {
    enter_lookup(pipe, kind, now);
    progressed = true;
  }
  return progressed;
}

// The blocking stage: its one packet enters the GCM stage at once, stamped
// with its future start time (when its key is here and an engine is free), and
// the stage takes the next packet only then. Nothing else competes for the
// engines, so waking up at the key's arrival would only cost a kernel event.
// Look-ups, which share the SKC with the other direction, and the link, which
// shares credits with the network, are done only at their true time.
inline bool Cic::step_blocking(Pipeline& pipe, Tick /*now*/) {
  if (pipe.in_lookup.empty() || pipe.in_gcm.full()) return false;
  const InLookup entry = pipe.in_lookup.front();
  pipe.in_lookup.pop_front();
  const Tick start = params_.security.encrypts()
                         ? pipe.gcm.clock().next_edge(std::max(entry.key_ready, pipe.gcm.accepts_from()))
                         : entry.key_ready;
  enter_gcm(pipe, entry.packet, start);
  pipe.lookup_free_at = start;
  pipe.last_key_ready = entry.key_ready;
  pipe.last_from_memory = entry.from_memory;
  return true;
}

// The non-blocking stage: the first packet (in entry order) whose key is here
// moves on; packets still waiting for a key stay behind. A later packet of
// the same session has its key no earlier than an earlier one (a look-up
// merges with the read already on its way), so each session leaves in order.
bool Cic::step_overlapped(Pipeline& pipe, Tick now) {
  if (pipe.in_gcm.full()) return false;
  const auto ready = std::ranges::find_if(pipe.in_lookup, [now](const InLookup& e) { return e.key_ready <= now; });
  if (ready == pipe.in_lookup.end()) return false;
  const network::PacketHandle handle = ready->packet;
  pipe.in_lookup.erase(ready);
  const Tick start =
      params_.security.encrypts() ? pipe.gcm.clock().next_edge(std::max(now, pipe.gcm.accepts_from())) : now;
  enter_gcm(pipe, handle, start);
  return true;
}

inline void Cic::enter_lookup(Pipeline& pipe, EventKind kind, Tick now) {
  const network::PacketHandle handle = pipe.waiting.pop_front(pool_);
  network::Packet& packet = pool_[handle];
  if (kind == kAdvanceSend) packet.lookup_started = now;
  const KeyArrival key = params_.security.encrypts() ? key_ready_at(packet.key, now) : KeyArrival{now, false};
  pipe.in_lookup.push_back(InLookup{handle, key.ready, key.from_memory});
  // A non-blocking stage starts a look-up a cycle (an SKC access); a blocking one waits for its packet to leave.
  if (params_.lookup_outstanding_misses > 1 && params_.security.encrypts()) {
    pipe.lookup_free_at = now + lookup_issue_interval_;
  }
}

// One datapath: packets leave the GCM stage in the order they entered it.
inline void Cic::enter_gcm(Pipeline& pipe, network::PacketHandle handle, Tick start) {
  Tick done = params_.security.encrypts() ? pipe.gcm.start(pool_[handle].payload_bytes, start) : start;
  if (!pipe.in_gcm.empty()) done = std::max(done, pipe.in_gcm.back().done);
  pipe.in_gcm.push_back(InGcm{handle, done});
}

bool Cic::emit(Pipeline& pipe, EventKind kind, Tick now) {
  const network::PacketHandle handle = pipe.in_gcm.front().packet;
  if (kind == kAdvanceReceive) {
    deliver(handle, now);
    return true;
  }
  network::Packet& packet = pool_[handle];
  if (!out_->can_send(packet.lane, packet.wire_bytes, now)) return false;
  const bool last = packet.last_of_message;
  const uint32_t message = packet.message;
  // Sealed as it leaves: nothing after this point may change what the tag covers.
  if (crypto_ && params_.security.encrypts() && !crypto_->seal(packet, handle)) {
    pool_.release(handle);  // no verified key: the card sends nothing rather than something unprotected
  } else {
    out_->send(handle, packet, now);
    ++stats_.packets_sent;
  }
  if (last) host_->on_message_sent(message, now);
  return true;
}

// When something in `pipe` can next move, or kNever if it waits for credits
// (the link calls back) or is empty.
inline Tick Cic::next_progress(const Pipeline& pipe, EventKind kind, Tick now) const {
  Tick next = kNever;
  if (!pipe.in_gcm.empty()) {
    const Tick done = pipe.in_gcm.front().done;
    if (done > now) {
      next = done;
    } else if (kind == kAdvanceSend && out_->busy_until() > now) {
      next = out_->busy_until();
    }
  }
  if (!pipe.waiting.empty() && pipe.in_lookup.size() < params_.lookup_outstanding_misses && pipe.lookup_free_at > now) {
    next = std::min(next, pipe.lookup_free_at);
  }
  if (params_.lookup_outstanding_misses > 1 && !pipe.in_gcm.full()) {
    for (const InLookup& entry : pipe.in_lookup) {
      if (entry.key_ready > now) next = std::min(next, entry.key_ready);
    }
  }
  return next;
}

Cic::KeyArrival Cic::key_ready_at(SessionKeyId key, Tick now) {
  ++stats_.lookups;
  if (stack_distances_) stack_distances_->record(key);
  for (ShadowCaches& caches : shadow_caches_) caches.record(key);
  if (params_.security.path == KeyPath::kExternalMemory) {
    ++stats_.misses;
    return {read_key_memory(key, now), true};
  }
  std::erase_if(pending_keys_, [now](const PendingKey& p) { return p.ready <= now; });
  for (const PendingKey& pending : pending_keys_) {
    if (pending.key == key) {
      ++stats_.misses;
      ++stats_.merged_misses;
      return {pending.ready, true};
    }
  }
  const Tick probed = now + params_.clock.ticks(params_.clock.cycles_covering(params_.skc_access));
  const KeyLookup::Result result = lookup_->lookup(key);
  if (result.evicted && prefetcher_) prefetcher_->evicted(*result.evicted);
  switch (result.outcome) {
    case LookupOutcome::kSkcHit:
      ++stats_.skc_hits;
      return {probed, false};
    case LookupOutcome::kBufferHit:
      ++stats_.buffer_hits;
      return {probed, false};
    case LookupOutcome::kMiss:
      break;
  }
  ++stats_.misses;
  // A key still queued for prefetching is now fetched on demand.
  if (prefetcher_ && prefetcher_->cancel(key)) ++stats_.prefetches_cancelled;
  const Tick ready = read_key_memory(key, probed);
  pending_keys_.push_back(PendingKey{key, ready});
  return {ready, true};
}

// One key memory read. With functional crypto the record read is unwrapped
// and verified here, within the read's time: the GCM unit decrypts a 16-byte
// key in about 14 cycles (52 ns), small next to the 2.5 us read, and the
// key is not usable before the read ends anyway (docs/crypto.md).
inline Tick Cic::read_key_memory(SessionKeyId key, Tick now) {
  if (crypto_) crypto_->key_read(key);
  return memory_.access(now);
}

// A packet for a process other than the one taken to be running is the
// coschedulers' hint that it will run soon (Prefetcher).
void Cic::on_arrival(const network::Packet& packet, Tick now) {
  if (!prefetcher_->arrived_for(ProcessId(packet.destination_process), *lookup_)) return;
  ++stats_.prefetch_triggers;
  pump_prefetches(now);
}

// Prefetches use the key memory's port only when it is idle, one key at a
// time, so a demand miss waits for at most one prefetch in progress.
void Cic::pump_prefetches(Tick now) {
  if (!prefetcher_->has_queued()) return;
  if (memory_.free_at() > now) {
    if (memory_.free_at() < prefetch_wake_) {
      prefetch_wake_ = memory_.free_at();
      schedule(prefetch_wake_, kPrefetchPump);
    }
    return;
  }
  const SessionKeyId key = *prefetcher_->start_next();
  const Tick ready = read_key_memory(key, now);
  pending_keys_.push_back(PendingKey{key, ready});  // a look-up meanwhile waits for it
  ++stats_.prefetches_issued;
  schedule(ready, kPrefetchLoaded);
}

void Cic::prefetch_loaded(Tick now) {
  lookup_->prefetch(prefetcher_->finish());
  pump_prefetches(now);
}

void Cic::deliver(network::PacketHandle handle, Tick now) {
  network::Packet& packet = pool_[handle];
  if (crypto_ && crypto_->receive(packet, handle) != ReceiveVerdict::kDeliver) {
    drop_received(handle, now);
    return;
  }
  if (packet.attack != network::AttackKind::kNone && !attacks_.delivered(packet, crypto_ && crypto_->encrypts())) {
    free_received(handle, now);  // forged: no host sent it
    return;
  }
  count_reordering(packet);
  packet.delivered = now;
  ++stats_.packets_received;
  in_upstream_->return_credits(packet.lane, packet.wire_bytes, now, now);
  host_->on_packet_delivered(packet, now);
  pool_.release(handle);
}

void Cic::count_reordering(const network::Packet& packet) {
  Arrivals& session = arrivals_(packet.destination_process, packet.source_process);
  if (packet.sequence >= session.next_expected) {
    session.next_expected = packet.sequence + 1;
    return;
  }
  ++stats_.out_of_order;
  stats_.reordering_extent_max.raise_to(session.next_expected - packet.sequence);
  if (!session.reordered) ++stats_.reordered_sessions;
  session.reordered = true;
}

// A packet that failed its checks frees its buffer space, and never reaches
// the host nor the session's sequence bookkeeping.
void Cic::drop_received(network::PacketHandle handle, Tick now) {
  attacks_.dropped(pool_[handle]);
  free_received(handle, now);
}

// The packet's buffer space goes back upstream as credits, and its pool slot is free.
void Cic::free_received(network::PacketHandle handle, Tick now) {
  const network::Packet& packet = pool_[handle];
  in_upstream_->return_credits(packet.lane, packet.wire_bytes, now, now);
  pool_.release(handle);
}

}  // namespace ibsec::nic
