// The card's host side: processes hand it messages, and it hands back every
// packet it has verified. Whoever models the processes (synthetic sources now,
// trace replay later) implements HostInterface.
#pragma once

#include <cstdint>

#include "core/time.h"
#include "core/types.h"
#include "network/packet.h"

namespace ibsec::nic {

struct MessageRequest {
  uint32_t source_process = 0;       // cluster-wide process ids
  uint32_t destination_process = 0;
  NodeId destination{0};
  uint32_t bytes = 0;
  uint32_t message = 0;              // host's id, echoed in every packet
  bool measured = false;
};

class HostInterface {
 public:
  virtual ~HostInterface() = default;
  // A packet has arrived, been decrypted and verified, and is in host memory.
  virtual void on_packet_delivered(const network::Packet& packet, Tick now) = 0;
  // The card has put the last packet of `message` on the link: a blocking
  // send returns (local completion). Hosts that do not model calls ignore it.
  virtual void on_message_sent(uint32_t /*message*/, Tick /*now*/) {}
};

// One key per pair of communicating processes (fine-grained scheme, §3.1):
// the same key serves both directions, so the id depends on the pair only.
constexpr SessionKeyId session_key(uint32_t process_a, uint32_t process_b, uint32_t total_processes) {
  const uint64_t lo = process_a < process_b ? process_a : process_b;
  const uint64_t hi = process_a < process_b ? process_b : process_a;
  return SessionKeyId(lo * total_processes + hi);
}

// The pair of processes a session key protects (lower id first): the inverse of session_key.
struct ProcessPair {
  uint32_t lo;
  uint32_t hi;
};
constexpr ProcessPair session_pair(SessionKeyId key, uint32_t total_processes) {
  return {static_cast<uint32_t>(key.value() / total_processes), static_cast<uint32_t>(key.value() % total_processes)};
}

}  // namespace ibsec::nic
