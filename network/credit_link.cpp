#include "network/credit_link.h"

#include <algorithm>
#include <cassert>

namespace ibsec::network {

CreditLink::CreditLink(const LinkParams& params, LinkSender& sender, PortId sender_port, PacketReceiver& receiver,
                       PortId receiver_port)
    : serialization_(params.serialization),
      sender_(&sender),
      credits_per_lane_(params.credits_per_lane),
      sender_port_(sender_port),
      lanes_(static_cast<uint8_t>(params.lanes)) {
  assert(params.lanes >= 1 && params.lanes <= UINT8_MAX && "lanes are checked against InfiniBand's 15");
  line_.propagation = params.propagation;
  line_.receiver = &receiver;
  line_.receiver_port = receiver_port;
  line_.credits_inline = params.lanes <= kInlineLanes;
  if (!line_.credits_inline) more_credits_ = std::make_unique<uint32_t[]>(params.lanes);
  for (uint32_t lane = 0; lane < params.lanes; ++lane) credits(static_cast<uint8_t>(lane)) = params.credits_per_lane;
  stats_.credits_missing.read_from<&CreditLink::credits_missing>(*this);
}

void CreditLink::pop_return() {
  if (!line_.spilled) {
    line_.first_return = (line_.first_return + 1) % kInlineReturns;
    --line_.inline_count;
    return;
  }
  if (++spilled_->head == spilled_->queue.size()) {
    spilled_->queue.clear();
    spilled_->head = 0;
    line_.spilled = false;
  }
}

void CreditLink::push_return(const CreditReturn& entry) {
  if (line_.spilled) {
    spilled_->queue.push_back(entry);
    return;
  }
  if (line_.inline_count < kInlineReturns) {
    inline_return(line_.inline_count) = entry;
    ++line_.inline_count;
    return;
  }
  // One more than the line holds: all go to the queue kept apart, oldest first.
  if (!spilled_) spilled_ = std::make_unique<SpilledReturns>();
  for (uint8_t i = 0; i < kInlineReturns; ++i) {
    spilled_->queue.push_back(inline_return(i));
  }
  spilled_->queue.push_back(entry);
  line_.inline_count = 0;
  line_.first_return = 0;
  line_.spilled = true;
}

uint64_t CreditLink::credits_missing() const {
  uint64_t missing = 0;
  for (uint32_t lane = 0; lane < lanes_; ++lane) {
    missing += credit_limit() - credits_when_drained(VirtualLane(static_cast<uint8_t>(lane)));
  }
  return missing;
}

void CreditLink::absorb_returns(Tick now) {
  while (!returns_empty() && front_return().at <= now) {
    credits(front_return().lane) += front_return().credits;
    pop_return();
  }
}

bool CreditLink::can_send(VirtualLane lane, uint32_t wire_bytes, Tick now) {
  if (busy_until_ > now) return false;
  absorb_returns(now);
  if (credits(lane.value()) >= credits_for(wire_bytes)) return true;
  ++stats_.credit_stalls;
  if (!line_.stalled) {
    stalled_since_ = now;
    line_.stalled = true;
  }
  line_.sender_waiting = true;
  // Credits already on their way: wake the sender when the first lands.
  if (!returns_empty()) {
    line_.sender_waiting = false;
    sender_->on_credits_returned(sender_port_, front_return().at);
  }
  return false;
}

bool CreditLink::take_credits(VirtualLane lane, uint32_t wire_bytes, Tick now) {
  absorb_returns(now);
  const uint32_t needed = credits_for(wire_bytes);
  if (credits(lane.value()) < needed) return false;
  credits(lane.value()) -= needed;
  return true;
}

Tick CreditLink::send(PacketHandle handle, Packet& packet, Tick now, Tick tail_not_before) {
  assert(busy_until_ <= now);
  credits(packet.lane.value()) -= credits_for(packet.wire_bytes);
  const Tick duration = serialization(packet.wire_bytes);
  const Tick start = tail_not_before > now + duration ? tail_not_before - duration : now;
  busy_until_ = start + duration;
  packet.tail_at = busy_until_ + line_.propagation;
  ++stats_.packets;
  stats_.bytes += packet.wire_bytes;
  stats_.busy += duration;
  if (line_.stalled) {
    stats_.credit_stall_time += now - stalled_since_;
    line_.stalled = false;
  }
  line_.receiver->on_packet_head(line_.receiver_port, handle, start + line_.propagation);
  return busy_until_;
}

void CreditLink::return_credits(VirtualLane lane, uint32_t wire_bytes, Tick freed_at, Tick now) {
  // The returns that have landed by now are the sender's at whatever time
  // it next looks (never before now), so they are taken in here rather than
  // then: a return in flight is then mostly alone, kept in the credit line,
  // and a second one does not move them all to the queue kept apart.
  absorb_returns(now);
  const Tick arrives = freed_at + line_.propagation;
  push_return(CreditReturn{arrives, credits_for(wire_bytes), lane.value()});
  if (line_.sender_waiting) {
    line_.sender_waiting = false;
    sender_->on_credits_returned(sender_port_, arrives);
  }
}

uint32_t CreditLink::credits_when_drained(VirtualLane lane) const {
  uint32_t drained = credits(lane.value());
  for (uint8_t i = 0; i < line_.inline_count; ++i) {
    const CreditReturn& entry = inline_return(i);
    if (entry.lane == lane.value()) drained += entry.credits;
  }
  if (line_.spilled) {
    for (size_t i = spilled_->head; i < spilled_->queue.size(); ++i) {
      if (spilled_->queue[i].lane == lane.value()) drained += spilled_->queue[i].credits;
    }
  }
  return drained;
}

}  // namespace ibsec::network
