// A card's queue of packets waiting for a pipeline stage, chained through
// the packets themselves (Packet::next_waiting): it has no storage of its
// own, so pushing touches the packet before (handled a moment ago) and
// popping the packet leaving, whose fields the stage reads next anyway. A
// std::deque kept two lines of its own and a 512-byte block per queue.
#pragma once

#include <cassert>
#include <cstddef>

#include "network/packet.h"

namespace ibsec::nic {

class PacketFifo {
 public:
  [[nodiscard]] bool empty() const { return head_.is_none(); }
  [[nodiscard]] size_t size() const { return size_; }
  [[nodiscard]] network::PacketHandle front() const { return head_; }

  void push_back(network::PacketPool& pool, network::PacketHandle packet) {
    pool[packet].next_waiting = network::PacketHandle::none();
    (empty() ? head_ : pool[tail_].next_waiting) = packet;
    tail_ = packet;
    ++size_;
  }
  network::PacketHandle pop_front(network::PacketPool& pool) {
    assert(!empty() && "pop from an empty packet queue");
    const network::PacketHandle packet = head_;
    head_ = pool[packet].next_waiting;
    --size_;
    return packet;
  }

 private:
  network::PacketHandle head_ = network::PacketHandle::none();
  network::PacketHandle tail_ = network::PacketHandle::none();
  size_t size_ = 0;
};

}  // namespace ibsec::nic
