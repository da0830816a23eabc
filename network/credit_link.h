// One direction of a cable: serialization at the link rate, a propagation
// delay, and InfiniBand credit-based flow control per virtual lane. The
// sending side owns the link and its credit counters; the receiving side
// hands credits back as buffer space frees. Returned credits wait in a
// timestamped FIFO and are absorbed lazily when the sender next looks (or
// when the receiver hands back more), so a credit return costs no kernel
// event unless the sender is stalled on it.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

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

// Laid out by who reads what in a hop: the first line is what the sender
// reads and writes to start a packet (busy time, rate, the counts it adds);
// the last is what the credits need (each lane's credits, the returns in
// flight, the receiver), read by the sender's can_send and send and written
// by the receiver's return_credits, so that a hop touches two lines of the
// link it leaves on and one of the link it came in on.
class alignas(64) CreditLink {
 public:
  CreditLink(const LinkParams& params, LinkSender& sender, PortId sender_port, PacketReceiver& receiver,
             PortId receiver_port);
  CreditLink(const CreditLink&) = delete;
  CreditLink& operator=(const CreditLink&) = delete;

  [[nodiscard]] Tick serialization(uint32_t wire_bytes) const { return serialization_.ticks(wire_bytes); }
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
  // The receiver freed the buffer space of a packet at `freed_at` (no
  // earlier than `now`); the credits reach the sender one propagation delay
  // later. Calls must come in non-decreasing `freed_at` order (one receiver
  // port drains in order).
  void return_credits(VirtualLane lane, uint32_t wire_bytes, Tick freed_at, Tick now);

  // Ask the memory for the lines can_send and send read, or for the one
  // return_credits writes, ahead of the call (hints: they change nothing).
  void prefetch_for_sending() const {
    __builtin_prefetch(this, 1);
    __builtin_prefetch(&line_, 1);
  }
  void prefetch_for_returns() const { __builtin_prefetch(&line_, 1); }

  // Credits the sender can use once every return sent so far has arrived.
  [[nodiscard]] uint32_t credits_when_drained(VirtualLane lane) const;
  [[nodiscard]] uint32_t credit_limit() const { return credits_per_lane_; }
  // Credits, over all lanes, that will not be back even once every return has arrived.
  [[nodiscard]] uint64_t credits_missing() const;
  [[nodiscard]] const LinkStats& stats() const { return stats_; }

 private:
  struct CreditReturn {
    Tick at;
    uint32_t credits;
    uint8_t lane;
  };
  // The returns in flight while more than the credit line holds are: the
  // queue's entries from `head` on.
  struct SpilledReturns {
    std::vector<CreditReturn> queue;
    size_t head = 0;
  };
  // Lanes whose credits are kept in the link's credit line; more are kept apart.
  static constexpr uint32_t kInlineLanes = 2;
  static constexpr Tick kNotStalled = std::numeric_limits<Tick>::max();

  // The returns a link keeps in its credit line: at light load one or two
  // are in flight at a time (a receiver hands back a second while the first
  // is still on the cable when two packets leave its port back to back).
  static constexpr uint8_t kInlineReturns = 2;

  // The credit line: one cache line that can_send, send and return_credits
  // read, apart from the busy time and the statistics.
  struct alignas(64) CreditLine {
    Tick propagation = 0;  // cable, plus FEC where the generation has it
    PacketReceiver* receiver = nullptr;
    uint32_t inline_credits[kInlineLanes] = {};  // per lane, available at the sender, with credits_inline
    // The returns in flight, oldest first: up to kInlineReturns here, from
    // `first_return` on, as a ring; when one more comes they all move to
    // the link's `spilled_` queue until it drains.
    CreditReturn returns[kInlineReturns]{};
    PortId receiver_port{0};
    uint8_t first_return = 0;
    uint8_t inline_count = 0;
    bool credits_inline = true;  // else every lane's credits are in the link's `more_credits_`
    bool spilled = false;
    bool sender_waiting = false;
    bool stalled = false;  // refused for want of credits since the last packet started (stalled_since_)
  };
  static_assert(sizeof(CreditLine) == 64, "the credit line is one cache line");

  uint32_t& credits(uint8_t lane) { return line_.credits_inline ? line_.inline_credits[lane] : more_credits_[lane]; }
  [[nodiscard]] uint32_t credits(uint8_t lane) const { return const_cast<CreditLink*>(this)->credits(lane); }
  // The i-th oldest of the returns kept in the credit line.
  CreditReturn& inline_return(uint8_t i) { return line_.returns[(line_.first_return + i) % kInlineReturns]; }
  [[nodiscard]] const CreditReturn& inline_return(uint8_t i) const {
    return const_cast<CreditLink*>(this)->inline_return(i);
  }
  [[nodiscard]] bool returns_empty() const { return line_.inline_count == 0 && !line_.spilled; }
  [[nodiscard]] const CreditReturn& front_return() const {
    return line_.spilled ? spilled_->queue[spilled_->head] : inline_return(0);
  }
  void pop_return();
  void push_return(const CreditReturn& entry);
  void absorb_returns(Tick now);

  // The sender's line: busy time, rate, and the counts send adds (the
  // statistics' first counters).
  Tick busy_until_ = 0;
  SerializationRate serialization_;
  LinkStats stats_;
  // Cold: read when a sender stalls, when many returns are in flight, or
  // with more lanes than the credit line holds.
  LinkSender* sender_;
  Tick stalled_since_ = kNotStalled;  // the first refusal for want of credits since the last packet started
  std::unique_ptr<SpilledReturns> spilled_;
  std::unique_ptr<uint32_t[]> more_credits_;
  uint32_t credits_per_lane_;  // receiver buffer per lane, in 64-byte credits
  PortId sender_port_;
  uint8_t lanes_;
  CreditLine line_;
};
static_assert(sizeof(CreditLink) == 192, "a link is three cache lines: the sender's, the statistics' rest, credits'");

}  // namespace ibsec::network
