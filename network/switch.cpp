#include "network/switch.h"

#include <cassert>

namespace ibsec::network {
namespace {

// Event kinds carry the port in their upper bits; the packet or a second port
// goes in the argument.
constexpr uint32_t kKindBits = 8;
constexpr uint32_t encode(uint32_t kind, uint32_t port) { return kind | (port << kKindBits); }

}  // namespace

Switch::Switch(const sc_core::sc_module_name& name, sim::KernelCounters& counters, PacketPool& pool, uint16_t ports,
               std::vector<PortId> forwarding, const SwitchParams& params)
    : EventDrivenModule(name, counters),
      pool_(pool),
      forwarding_(std::move(forwarding)),
      params_(params),
      inputs_(ports),
      outputs_(ports) {
  for (auto& input : inputs_) input.lanes.resize(params_.lanes);
}

void Switch::on_packet_head(PortId port, PacketHandle packet, Tick head_at) {
  schedule(head_at + params_.traversal_latency, encode(kRouted, port.value()), packet.value());
}

void Switch::on_credits_returned(PortId port, Tick at) { schedule(at, encode(kCreditsBack, port.value())); }

void Switch::handle(const sim::ModuleEvent& event) {
  const uint32_t port = event.kind >> kKindBits;
  switch (event.kind & ((1U << kKindBits) - 1)) {
    case kRouted: {
      const PacketHandle packet(event.arg);
      const uint8_t lane = pool_[packet].lane.value();
      auto& queue = inputs_[port].lanes[lane];
      queue.push_back(packet);
      if (queue.size() == 1) request_for_head(static_cast<uint16_t>(port), lane);
      break;
    }
    case kTransferDone: {
      const auto input = static_cast<uint16_t>(event.arg >> 16);
      mark_dirty(static_cast<uint16_t>(event.arg & 0xFFFF));
      // The input is free again: its waiting heads may now be granted.
      for (const auto& queue : inputs_[input].lanes) {
        if (!queue.empty()) mark_dirty(output_of(queue.front()));
      }
      break;
    }
    case kCreditsBack:
      mark_dirty(static_cast<uint16_t>(port));
      break;
    default:
      assert(false && "unknown switch event");
  }
}

uint16_t Switch::output_of(PacketHandle packet) const {
  return forwarding_[pool_[packet].destination.value()].value();
}

void Switch::request_for_head(uint16_t input, uint8_t lane) {
  const uint16_t output = output_of(inputs_[input].lanes[lane].front());
  outputs_[output].requests.push_back(Request{input, lane});
  mark_dirty(output);
}

void Switch::mark_dirty(uint16_t output) {
  if (outputs_[output].dirty) return;
  outputs_[output].dirty = true;
  dirty_.push_back(output);
}

void Switch::settle(Tick now) {
  // Grants can dirty further outputs (a new head requests elsewhere), so the
  // list may grow while it is walked.
  for (size_t i = 0; i < dirty_.size(); ++i) {
    outputs_[dirty_[i]].dirty = false;
    arbitrate(dirty_[i], now);
  }
  dirty_.clear();
}

void Switch::arbitrate(uint16_t output, Tick now) {
  Output& out = outputs_[output];
  if (out.requests.empty() || out.link->busy_until() > now) return;
  const uint32_t slots = static_cast<uint32_t>(inputs_.size()) * params_.lanes;
  size_t best = out.requests.size();
  uint32_t best_distance = slots;
  for (size_t r = 0; r < out.requests.size(); ++r) {
    const Request& request = out.requests[r];
    if (inputs_[request.input].busy_until > now) continue;
    const uint32_t slot = request.input * params_.lanes + request.lane;
    const uint32_t distance = (slot + slots - out.next_grant) % slots;
    if (distance >= best_distance) continue;
    const Packet& head = pool_[inputs_[request.input].lanes[request.lane].front()];
    if (!out.link->can_send(head.lane, head.wire_bytes, now)) continue;
    best = r;
    best_distance = distance;
  }
  if (best != out.requests.size()) grant(output, best, now);
}

void Switch::grant(uint16_t output, size_t request_index, Tick now) {
  Output& out = outputs_[output];
  const Request request = out.requests[request_index];
  out.requests[request_index] = out.requests.back();
  out.requests.pop_back();
  out.next_grant = (request.input * params_.lanes + request.lane + 1) % (inputs_.size() * params_.lanes);

  Input& in = inputs_[request.input];
  auto& queue = in.lanes[request.lane];
  const PacketHandle handle = queue.front();
  queue.pop_front();
  if (!queue.empty()) request_for_head(request.input, request.lane);

  const Packet& packet = pool_[handle];
  const Tick tail_out = out.link->send(handle, packet, now);
  in.busy_until = tail_out;
  in.upstream->return_credits(packet.lane, packet.wire_bytes, tail_out);
  ++stats_.packets_forwarded;
  schedule(tail_out, kTransferDone, (static_cast<uint32_t>(request.input) << 16) | output);
}

size_t Switch::buffered_packets() const {
  size_t n = 0;
  for (const auto& input : inputs_) {
    for (const auto& queue : input.lanes) n += queue.size();
  }
  return n;
}

}  // namespace ibsec::network
