// One direction of a cable: serialization at the link rate, a propagation
// delay, and InfiniBand credit-based flow control per virtual lane. The
// sending side owns the link and its credit counters; the receiving side
// hands credits back as buffer space frees. Returned credits wait in a
// timestamped FIFO and are absorbed lazily when the sender next looks, so a
// credit return costs no kernel event unless the sender is stalled on it.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "core/statistics.h"
#include "core/time.h"
#include "core/types.h"
#include "network/link_rate.h"
#include "network/packet.h"

namespace ibsec::network {

// Whatever sits at the far end of a link: a switch input port or a card.
class PacketReceiver {
 public:
  virtual ~PacketReceiver() = default;
  // The packet's first byte arrives on `port` at `head_at`; its last byte
  // at Packet::tail_at, one serialization time of the link later.
  virtual void on_packet_head(PortId port, PacketHandle packet, Tick head_at) = 0;
};

// Whatever feeds a link: told when credits it was stalled on come back.
class LinkSender {
 public:
  virtual ~LinkSender() = default;
  virtual void on_credits_returned(PortId port, Tick at) = 0;
};

struct LinkParams {
  SerializationRate serialization{1000, 1};  // 4x SDR: 1 ns per byte
  Tick propagation = 0;                      // cable, plus FEC where the generation has it
  uint32_t lanes = 1;
  uint32_t credits_per_lane = 64;  // receiver buffer per lane, in 64-byte credits
};

struct LinkStats : StatGroupOf<LinkStats> {
  Counter packets{*this, {"link_packets", "packets", "packets sent on a link", Merge::kSum, Shown::kInternal}};
  Counter bytes{*this, {"link_bytes", "bytes", "bytes sent on a link", Merge::kSum, Shown::kInternal}};
  Counter busy{*this, {"link_busy", "ps", "serialization time of a link", Merge::kSum, Shown::kInternal}};
  Counter credit_stalls{
      *this, {"credit_stalls", "packets", "times a sender waited for credits", Merge::kSum, Shown::kInternal}};
  Counter credit_stall_time{*this,
                            {"credit_stall_time", "ps",
                             "time from a sender's first refusal for want of credits until the link next started a "
                             "packet, summed",
                             Merge::kSum, Shown::kInternal}};
  Gauge credits_missing{
      *this, {"credits_missing_at_end", "credits", "64-byte credits not back at their sender after the run"}};

  static const std::vector<DerivedStatistic>& derived() {
    static const std::vector<DerivedStatistic> list{
        {"link_utilization_mean", "fraction", "serialization time / simulated time, mean over links",
         [](const StatTotals& t) { return t.busy_fraction("link_busy"); }},
        {"link_utilization_max", "fraction", "serialization time / simulated time, busiest link",
         [](const StatTotals& t) {
           return ratio(static_cast<double>(t.max("link_busy")), static_cast<double>(std::max<Tick>(t.elapsed(), 1)));
         }},
    };
    return list;
  }
};

class CreditLink {
 public:
  CreditLink(const LinkParams& params, LinkSender& sender, PortId sender_port, PacketReceiver& receiver,
             PortId receiver_port);

  [[nodiscard]] Tick serialization(uint32_t wire_bytes) const { return params_.serialization.ticks(wire_bytes); }
  [[nodiscard]] Tick busy_until() const { return busy_until_; }

  // True if the link is idle and the receiver has room for the whole packet
  // (virtual cut-through). When it is credits that are missing, the sender is
  // told through on_credits_returned once some come back.
  bool can_send(VirtualLane lane, uint32_t wire_bytes, Tick now);
  // Takes the credits for a packet that enters the link without its sender
  // (an attacker's, attack/attacker.h), so that the receiver's buffer is
  // never overrun; false, taking nothing, when they are not there at `now`.
  bool take_credits(VirtualLane lane, uint32_t wire_bytes, Tick now);
  // Starts sending at `now` (can_send must hold), or later if the tail must
  // not leave before `tail_not_before` (a switch cutting through onto a
  // faster link: docs/network.md, "Links of different rates"); the link is
  // the packet's from `now`. Sets packet.tail_at to when the tail reaches
  // the receiver; returns when the tail has left, i.e. when the link is free
  // again.
  Tick send(PacketHandle handle, Packet& packet, Tick now, Tick tail_not_before = 0);
  // The receiver freed the buffer space of a packet at `freed_at`; the
  // credits reach the sender one propagation delay later. Calls must come in
  // non-decreasing `freed_at` order (one receiver port drains in order).
  void return_credits(VirtualLane lane, uint32_t wire_bytes, Tick freed_at);

  // Credits the sender can use once every return sent so far has arrived.
  [[nodiscard]] uint32_t credits_when_drained(VirtualLane lane) const;
  [[nodiscard]] uint32_t credit_limit() const { return params_.credits_per_lane; }
  // Credits, over all lanes, that will not be back even once every return has arrived.
  [[nodiscard]] uint64_t credits_missing() const;
  [[nodiscard]] const LinkStats& stats() const { return stats_; }

 private:
  struct CreditReturn {
    Tick at;
    uint8_t lane;
    uint32_t credits;
  };
  // Returns in flight, oldest first, in a vector whose consumed prefix is
  // dropped once it is half the vector: the one or two returns in flight at
  // light load stay inside the link object (a deque's map and block were two
  // more cache lines a hop), and a long queue still costs O(1) a return.
  class ReturnQueue {
   public:
    [[nodiscard]] bool empty() const { return head_ == items_.size(); }
    [[nodiscard]] const CreditReturn& front() const { return items_[head_]; }
    void pop_front();
    void push_back(const CreditReturn& entry);
    [[nodiscard]] auto begin() const { return items_.begin() + head_; }
    [[nodiscard]] auto end() const { return items_.end(); }

   private:
    boost::container::small_vector<CreditReturn, 2> items_;
    uint32_t head_ = 0;
  };
  void absorb_returns(Tick now);

  // What a packet or a credit return reads comes first, so that a hop
  // touches the link's first cache lines only.
  Tick busy_until_ = 0;
  LinkParams params_;
  PacketReceiver& receiver_;
  LinkSender& sender_;
  PortId sender_port_;
  PortId receiver_port_;
  bool sender_waiting_ = false;
  static constexpr Tick kNotStalled = std::numeric_limits<Tick>::max();
  Tick stalled_since_ = kNotStalled;  // the first refusal for want of credits since the last packet started
  boost::container::small_vector<uint32_t, 2> credits_;  // per lane, available at the sender
  ReturnQueue in_flight_;
  LinkStats stats_;
};

}  // namespace ibsec::network
