// The card's host side: processes hand it messages, and it hands back every
// packet it has verified. Whoever models the processes (hosts/: synthetic
// sources, scripted messages, trace replay) implements HostInterface.
#pragma once

#include <cstdint>

#include "core/session_pairs.h"
#include "core/time.h"
#include "core/types.h"
#include "network/packet.h"

namespace ibsec::nic {

struct MessageRequest {
  uint32_t source_process = 0;  // cluster-wide process ids
  uint32_t destination_process = 0;
  NodeId destination{0};
  uint32_t bytes = 0;
  uint32_t message = 0;  // host's id, echoed in every packet
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

using ibsec::ProcessPair;
using ibsec::session_key;
using ibsec::session_pair;

}  // namespace ibsec::nic
