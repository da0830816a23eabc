#include "network/credit_link.h"

#include <algorithm>
#include <cassert>

namespace ibsec::network {

CreditLink::CreditLink(const LinkParams& params, LinkSender& sender, PortId sender_port, PacketReceiver& receiver,
                       PortId receiver_port)
    : params_(params),
      receiver_(receiver),
      sender_(sender),
      sender_port_(sender_port),
      receiver_port_(receiver_port),
      credits_(params.lanes, params.credits_per_lane) {
  stats_.credits_missing.read_from<&CreditLink::credits_missing>(*this);
}

void CreditLink::ReturnQueue::pop_front() {
  if (++head_ == items_.size()) {
    items_.clear();
    head_ = 0;
  }
}

void CreditLink::ReturnQueue::push_back(const CreditReturn& entry) {
  if (items_.size() == items_.capacity() && 2 * head_ >= items_.size()) {
    items_.erase(items_.begin(), items_.begin() + head_);
    head_ = 0;
  }
  items_.push_back(entry);
}

uint64_t CreditLink::credits_missing() const {
  uint64_t missing = 0;
  for (uint32_t lane = 0; lane < params_.lanes; ++lane) {
    missing += credit_limit() - credits_when_drained(VirtualLane(static_cast<uint8_t>(lane)));
  }
  return missing;
}

void CreditLink::absorb_returns(Tick now) {
  while (!in_flight_.empty() && in_flight_.front().at <= now) {
    credits_[in_flight_.front().lane] += in_flight_.front().credits;
    in_flight_.pop_front();
  }
}

bool CreditLink::can_send(VirtualLane lane, uint32_t wire_bytes, Tick now) {
  if (busy_until_ > now) return false;
  absorb_returns(now);
  if (credits_[lane.value()] >= credits_for(wire_bytes)) return true;
  ++stats_.credit_stalls;
  stalled_since_ = std::min(stalled_since_, now);
  sender_waiting_ = true;
  // Credits already on their way: wake the sender when the first lands.
  if (!in_flight_.empty()) {
    sender_waiting_ = false;
    sender_.on_credits_returned(sender_port_, in_flight_.front().at);
  }
  return false;
}

bool CreditLink::take_credits(VirtualLane lane, uint32_t wire_bytes, Tick now) {
  absorb_returns(now);
  const uint32_t needed = credits_for(wire_bytes);
  if (credits_[lane.value()] < needed) return false;
  credits_[lane.value()] -= needed;
  return true;
}

Tick CreditLink::send(PacketHandle handle, Packet& packet, Tick now, Tick tail_not_before) {
  assert(busy_until_ <= now);
  credits_[packet.lane.value()] -= credits_for(packet.wire_bytes);
  const Tick duration = serialization(packet.wire_bytes);
  const Tick start = tail_not_before > now + duration ? tail_not_before - duration : now;
  busy_until_ = start + duration;
  packet.tail_at = busy_until_ + params_.propagation;
  ++stats_.packets;
  stats_.bytes += packet.wire_bytes;
  stats_.busy += duration;
  if (stalled_since_ != kNotStalled) {
    stats_.credit_stall_time += now - stalled_since_;
    stalled_since_ = kNotStalled;
  }
  receiver_.on_packet_head(receiver_port_, handle, start + params_.propagation);
  return busy_until_;
}

void CreditLink::return_credits(VirtualLane lane, uint32_t wire_bytes, Tick freed_at) {
  const Tick arrives = freed_at + params_.propagation;
  in_flight_.push_back(CreditReturn{arrives, lane.value(), credits_for(wire_bytes)});
  if (sender_waiting_) {
    sender_waiting_ = false;
    sender_.on_credits_returned(sender_port_, arrives);
  }
}

uint32_t CreditLink::credits_when_drained(VirtualLane lane) const {
  uint32_t credits = credits_[lane.value()];
  for (const auto& r : in_flight_) {
    if (r.lane == lane.value()) credits += r.credits;
  }
  return credits;
}

}  // namespace ibsec::network
