#include "nic/card_crypto.h"

#include <algorithm>

#include "nic/host_interface.h"
#include "nic/packet_protection.h"
#include "nic/synthetic_payload.h"

namespace ibsec::nic {
CardCrypto::CardCrypto(NodeId card, const CardCryptoParams& params, network::PacketPayloads& payloads)
    : params_(params), payloads_(payloads), keys_(params.seed, params.key_bytes), wrap_(keys_.card_key(card).bytes()) {}

void CardCrypto::write_payload(const network::Packet& packet, network::PacketHandle handle) {
  SyntheticPayload::fill(packet.key, packet.source_process, packet.sequence,
                         payloads_.payload(handle, packet.payload_bytes));
}

// The session's key exchange, modelled as done before its first use: the
// key is wrapped into key memory and its version noted on-chip.
const crypto::WrappedKey& CardCrypto::record_for(SessionKeyId slot) {
  auto found = key_memory_.find(slot);
  if (found != key_memory_.end()) return found->second;
  versions_[slot] = kKeyVersion;
  return key_memory_.emplace(slot, wrap_.wrap(slot, kKeyVersion, keys_.session_key(slot))).first->second;
}

void CardCrypto::key_read(SessionKeyId key) {
  const crypto::WrappedKey& record = record_for(key);
  const uint64_t version = versions_.at(key);
  ++stats_.key_unwraps;
  if (verified_again(key, record, version)) return;
  crypto::UnwrapResult unwrapped = wrap_.unwrap(key, record, version);
  if (unwrapped.status != crypto::UnwrapStatus::ok) {
    ++stats_.key_unwrap_failures;
    on_card_.erase(key);  // never use a key that did not verify, nor an older one
    verified_.erase(key);
    return;
  }
  on_card_.insert_or_assign(key, std::move(*unwrapped.key));
  verified_.insert_or_assign(key, VerifiedRecord{record, version});
}

// AES-GCM is deterministic: a record byte for byte the one that verified
// under the same expected version verifies again to the same key. The card
// does the unwrap every time (and it is counted); the simulator skips
// recomputing it, which halves the cost of a miss in wall time.
bool CardCrypto::verified_again(SessionKeyId key, const crypto::WrappedKey& record, uint64_t version) const {
  const auto found = verified_.find(key);
  return found != verified_.end() && found->second.version == version &&
         std::ranges::equal(found->second.record.bytes(), record.bytes());
}

crypto::WrappedKey* CardCrypto::key_memory_record(SessionKeyId slot) {
  const auto found = key_memory_.find(slot);
  return found == key_memory_.end() ? nullptr : &found->second;
}

bool CardCrypto::seal(const network::Packet& packet, network::PacketHandle handle) {
  const auto key = on_card_.find(packet.key);
  if (key == on_card_.end()) {
    ++stats_.packets_dropped_key;
    return false;
  }
  const std::span<uint8_t> payload = payloads_.payload(handle, packet.payload_bytes);
  ciphers_.cipher_for(packet.key, key->second)
      .seal(packet_nonce(packet), packet_aad(packet), payload, payload, payloads_.tag(handle));
  ++stats_.packets_sealed;
  return true;
}

ReceiveVerdict CardCrypto::receive(const network::Packet& packet, network::PacketHandle handle) {
  if (packet.payload_bytes > payloads_.max_payload_bytes()) {  // no card sends that: malformed
    ++stats_.packets_dropped_auth;
    return ReceiveVerdict::kDropAuth;
  }
  if (!params_.encrypts) {
    check_payload(packet, handle);  // plaintext: nothing protects it
    return ReceiveVerdict::kDeliver;
  }
  const ReceiveVerdict verdict = open(packet, handle);
  switch (verdict) {
    case ReceiveVerdict::kDeliver:
      ++stats_.packets_opened;
      check_payload(packet, handle);
      break;
    case ReceiveVerdict::kDropAuth:
      ++stats_.packets_dropped_auth;
      break;
    case ReceiveVerdict::kDropReplay:
      ++stats_.packets_dropped_replay;
      break;
    case ReceiveVerdict::kDropNoKey:
      ++stats_.packets_dropped_key;
      break;
  }
  return verdict;
}

// Cheap checks first; the window moves only once the tag has verified, so a
// forged packet cannot push genuine ones out of it.
ReceiveVerdict CardCrypto::open(const network::Packet& packet, network::PacketHandle handle) {
  if (packet.key != session_key(packet.source_process, packet.destination_process, params_.total_processes)) {
    return ReceiveVerdict::kDropAuth;
  }
  ReplayWindow& window =
      windows_.try_emplace(session_direction(packet.source_process, packet.destination_process), params_.replay_window)
          .first->second;
  if (window.check(packet.sequence) != ReplayVerdict::kFresh) return ReceiveVerdict::kDropReplay;
  const auto key = on_card_.find(packet.key);
  if (key == on_card_.end()) return ReceiveVerdict::kDropNoKey;
  const std::span<uint8_t> payload = payloads_.payload(handle, packet.payload_bytes);
  if (!ciphers_.cipher_for(packet.key, key->second)
           .open(packet_nonce(packet), packet_aad(packet), payload, payloads_.tag(handle), payload)) {
    return ReceiveVerdict::kDropAuth;
  }
  window.accept(packet.sequence);
  return ReceiveVerdict::kDeliver;
}

void CardCrypto::check_payload(const network::Packet& packet, network::PacketHandle handle) {
  if (!SyntheticPayload::matches(packet.key, packet.source_process, packet.sequence,
                                 payloads_.payload(handle, packet.payload_bytes))) {
    ++stats_.payload_mismatches;
  }
}

}  // namespace ibsec::nic
