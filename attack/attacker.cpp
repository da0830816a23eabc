#include "attack/attacker.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#include "core/session_pairs.h"

namespace ibsec::attack {
namespace {

enum EventKind : uint32_t { kReplaySend };

// Header fields a tamper may flip: each is one the receiving card acts on,
// none decides the route (a real switch drops what it cannot route, which
// would hide the card's checks).
enum class HeaderField { kSequence, kMessage, kSourceProcess, kLastOfMessage };
constexpr uint64_t kHeaderFields = 4;

// How far ahead of the packet it copies an injected packet's sequence number
// lies: fresh for the receiver's replay window, as a forger would choose.
constexpr uint64_t kInjectSequenceSpread = 1U << 16;

}  // namespace

Attacker::Attacker(const sc_core::sc_module_name& name, EventKernel& kernel, const AttackParams& params,
                   AttackerContext context, SnoopSink* sink)
    : EventDrivenModule(name, kernel), params_(params), context_(context), sink_(sink), rng_(params.seed) {}

void Attacker::tap(CreditLink& link, PacketReceiver& receiver, PortId receiver_port) {
  link_ = &link;
  receiver_ = &receiver;
  receiver_port_ = receiver_port;
}

bool Attacker::targets(const Packet& packet) const {
  return params_.victims.empty() ||
         std::ranges::find(params_.victims, packet.destination.value()) != params_.victims.end();
}

// Captures and copies are taken before the packet is altered, so that a
// replay or spoof carries what the sender sent. The actions draw from one
// stream in a fixed order: a run is reproducible from its seed.
void Attacker::on_packet_head(PortId /*port*/, PacketHandle handle, Tick head_at) {
  const Packet& packet = context_.pool[handle];  // not used past the first action: they may move the pool
  ++stats_.packets_seen;
  learn(packet);
  const Tick behind = head_at + link_->serialization(packet.wire_bytes);
  if (targets(packet)) {
    if (chance(params_.snoop)) snoop(handle, head_at);
    const bool kept = chance(params_.replay);
    if (kept) capture_for_replay(handle, head_at);
    if (chance(params_.spoof)) spoof(handle, behind);
    if (chance(params_.inject)) inject(handle, behind);
    // A packet kept for replay is left intact: were it lost to tampering,
    // its replay would be the first copy to arrive, which any receiver
    // rightly accepts, and would count as a replay that got through.
    if (chance(params_.tamper) && !kept) tamper(handle);
  }
  receiver_->on_packet_head(receiver_port_, handle, head_at);
}

void Attacker::handle(const ModuleEvent& event) {
  if (event.kind == kReplaySend) send_own(PacketHandle(event.arg), event.at);
}

void Attacker::learn(const Packet& packet) {
  for (const auto& [process, node] :
       {std::pair{packet.source_process, packet.source}, std::pair{packet.destination_process, packet.destination}}) {
    if (identities_.emplace(process, node).second) identity_order_.push_back(process);
  }
}

void Attacker::snoop(PacketHandle handle, Tick at) {
  ++stats_.snooped;
  if (sink_ == nullptr) return;
  const Packet& packet = context_.pool[handle];
  const std::span<const uint8_t> tag =
      context_.tagged ? std::span<const uint8_t>(context_.payloads.tag(handle)) : std::span<const uint8_t>();
  sink_->snooped(packet, context_.payloads.payload(handle, packet.payload_bytes), tag, at);
}

void Attacker::tamper(PacketHandle handle) {
  Packet& packet = context_.pool[handle];
  TamperField field = params_.tamper_field;
  if (field == TamperField::kAny) {
    const std::array choices{TamperField::kHeader, TamperField::kPayload, TamperField::kTag};
    field = choices[rng_.below(context_.tagged ? 3 : 2)];
  }
  if (field == TamperField::kTag && !context_.tagged) field = TamperField::kPayload;  // NoSecurity: no tag
  if (field == TamperField::kPayload && packet.payload_bytes == 0) field = TamperField::kHeader;
  switch (field) {
    case TamperField::kPayload:
      flip_bit(context_.payloads.payload(handle, packet.payload_bytes));
      break;
    case TamperField::kTag:
      flip_bit(context_.payloads.tag(handle));
      break;
    default:
      tamper_header(packet);
      break;
  }
  packet.attack = AttackKind::kTamper;
  ++stats_.attacked[static_cast<size_t>(AttackKind::kTamper)];
}

void Attacker::tamper_header(Packet& packet) {
  auto field = static_cast<HeaderField>(rng_.below(kHeaderFields));
  if (field == HeaderField::kSourceProcess && context_.total_processes < 2) field = HeaderField::kSequence;
  switch (field) {
    case HeaderField::kSequence:
      packet.sequence ^= 1U << rng_.below(16);
      break;
    case HeaderField::kMessage:
      packet.message ^= 1U << rng_.below(16);
      break;
    case HeaderField::kSourceProcess: {
      // Another process that exists: a bit flip could name one that does not.
      const uint64_t shift = 1 + rng_.below(context_.total_processes - 1);
      packet.source_process = static_cast<uint32_t>((packet.source_process + shift) % context_.total_processes);
      break;
    }
    case HeaderField::kLastOfMessage:
      packet.last_of_message = !packet.last_of_message;
      break;
  }
}

void Attacker::flip_bit(std::span<uint8_t> bytes) {
  const uint64_t bit = rng_.below(bytes.size() * 8);
  bytes[bit / 8] ^= static_cast<uint8_t>(1U << (bit % 8));
}

// A packet of the attacker's with the header of `original`.
PacketHandle Attacker::made_from(PacketHandle original, AttackKind kind, Tick at) {
  const PacketHandle handle = context_.pool.acquire();
  Packet& made = context_.pool[handle];  // read `original` only now: acquiring may move the pool
  made = context_.pool[original];
  made.id = context_.next_packet_id++;
  made.handover = at;
  made.measured = false;
  made.attack = kind;
  return handle;
}

// A copy of `original`, header, payload and tag, as a packet of the attacker's.
PacketHandle Attacker::copy(PacketHandle original, AttackKind kind, Tick at) {
  const PacketHandle handle = made_from(original, kind, at);
  const uint32_t bytes = context_.pool[handle].payload_bytes;
  // The copy's slot first: growing the payload store moves every slot.
  const std::span<uint8_t> to = context_.payloads.payload(handle, bytes);
  const std::span<uint8_t> tag_to = context_.payloads.tag(handle);
  std::memcpy(to.data(), context_.payloads.payload(original, bytes).data(), to.size());
  std::memcpy(tag_to.data(), context_.payloads.tag(original).data(), tag_to.size());
  return handle;
}

void Attacker::capture_for_replay(PacketHandle handle, Tick at) {
  const PacketHandle captured = copy(handle, AttackKind::kReplay, at);
  schedule(at + params_.replay_delay, kReplaySend, captured.value());
}

// A header like the one just seen (same session and route, so it reaches
// the same card and key), a sequence number ahead of it, and bytes and a tag
// the forger made up: the attacker holds no key.
void Attacker::inject(PacketHandle seen, Tick head_at) {
  const PacketHandle handle = made_from(seen, AttackKind::kInject, head_at);
  Packet& forged = context_.pool[handle];
  forged.sequence = static_cast<uint32_t>(forged.sequence + 1 + rng_.below(kInjectSequenceSpread));
  for (uint8_t& byte : context_.payloads.payload(handle, forged.payload_bytes))
    byte = static_cast<uint8_t>(rng_.next_u64());
  for (uint8_t& byte : context_.payloads.tag(handle)) byte = static_cast<uint8_t>(rng_.next_u64());
  send_own(handle, head_at);
}

// The packet as sent, claiming to come from another process seen on the
// wire, with that process's session key id so that nothing in the header
// gives it away.
void Attacker::spoof(PacketHandle handle, Tick head_at) {
  const Packet& genuine = context_.pool[handle];
  std::vector<uint32_t> candidates;
  for (const uint32_t process : identity_order_) {
    if (process != genuine.source_process && process != genuine.destination_process) candidates.push_back(process);
  }
  if (candidates.empty()) {
    ++stats_.spoofs_without_identity;
    return;
  }
  const uint32_t claimed = candidates[rng_.below(candidates.size())];
  const PacketHandle made = copy(handle, AttackKind::kSpoof, head_at);
  Packet& spoofed = context_.pool[made];
  spoofed.source_process = claimed;
  spoofed.source = identities_.at(claimed);
  spoofed.key = session_key(claimed, spoofed.destination_process, context_.total_processes);
  send_own(made, head_at);
}

void Attacker::send_own(PacketHandle handle, Tick head_at) {
  Packet& packet = context_.pool[handle];
  if (!link_->take_credits(packet.lane, packet.wire_bytes, now())) {
    ++stats_.not_sent_no_credits;
    context_.pool.release(handle);
    return;
  }
  ++stats_.attacked[static_cast<size_t>(packet.attack)];
  packet.tail_at = head_at + link_->serialization(packet.wire_bytes);  // on the tapped link, as a sender's would
  receiver_->on_packet_head(receiver_port_, handle, head_at);
}

nlohmann::ordered_json Attacker::report(const nic::AttackOutcomes& outcomes, const std::string& security,
                                        uint64_t snooped_plaintext) const {
  nlohmann::ordered_json kinds = nlohmann::ordered_json::object();
  uint64_t attacked = 0;
  uint64_t detected = 0;
  uint64_t delivered = 0;
  for (size_t k = 1; k < kAttackKinds; ++k) {
    kinds[attack_name(static_cast<AttackKind>(k))] = {
        {"attacked", stats_.attacked[k]}, {"detected", outcomes.detected[k]}, {"delivered", outcomes.delivered[k]}};
    attacked += stats_.attacked[k];
    detected += outcomes.detected[k];
    delivered += outcomes.delivered[k];
  }
  return {{"link", params_.site.text()},
          {"security", security},
          {"packets_seen", stats_.packets_seen},
          {"kinds", kinds},
          {"attacked", attacked},
          {"detected", detected},
          {"delivered_despite_attack", delivered},
          {"false_drops", outcomes.false_drops},
          {"replays_ahead_of_original", outcomes.replays_ahead_of_original},
          {"snooped", stats_.snooped},
          {"snooped_plaintext", snooped_plaintext},
          {"not_sent_no_credits", stats_.not_sent_no_credits},
          {"spoofs_without_identity", stats_.spoofs_without_identity},
          {"capture_file", params_.capture_file}};
}

}  // namespace ibsec::attack
