#include "network/switch.h"

#include <algorithm>
#include <cassert>

namespace ibsec::network {
namespace {

// Event kinds carry the port in their upper bits; the packet or a second port
// goes in the argument.
constexpr uint32_t kKindBits = 8;
constexpr uint32_t encode(uint32_t kind, uint32_t port) { return kind | (port << kKindBits); }
constexpr uint32_t kind_of(uint32_t encoded) { return encoded & ((1U << kKindBits) - 1); }
constexpr uint32_t port_of(uint32_t encoded) { return encoded >> kKindBits; }

}  // namespace

Switch::Switch(const sc_core::sc_module_name& name, EventKernel& kernel, PacketPool& pool, uint16_t ports,
               const Forwarding& forwarding, const SwitchParams& params, std::vector<uint8_t> lane_map,
               PortChoices choices)
    : EventDrivenModule(name, kernel),
      params_(params),
      ports_state_(std::make_unique<Port[]>(ports)),
      pool_(pool),
      forwarding_(forwarding),
      adaptive_(!choices.empty()),
      has_lane_map_(!lane_map.empty()),
      ports_(ports),
      slots_(nullptr),
      lane_map_data_(std::move(lane_map)),
      more_lanes_(params.lanes > kInlineLanes ? static_cast<size_t>(ports) * (params.lanes - kInlineLanes) : 0),
      queues_(params.virtual_output_queues ? static_cast<size_t>(ports) * params.lanes * ports : 0),
      choices_(std::move(choices)),
      load_(choices_.empty() ? 0 : ports),
      slot_storage_(static_cast<size_t>(ports) * params.lanes * params.credits_per_lane) {
  slots_ = slot_storage_.data();
  call_directly<Switch>();
  assert(static_cast<size_t>(ports) * params.lanes * params.credits_per_lane < kNoSlot && "slot indices are 32 bits");
  assert(ports < kNoOutput && "an output index leaves one value for none");
  assert((lane_map_data_.empty() || lane_map_data_.size() == static_cast<size_t>(ports) * ports * kLaneMapLanes) &&
         "a lane map has an entry per input, output and lane");
}

// The routed event, a traversal latency from now, writes the input's line
// and, on a table route, the output's and its link's (at an address
// computed, not read: Output): asking the memory for them now lets them
// come while other modules run, instead of one after the other then.
// A prefetch is only a hint; it reads and changes nothing the model sees.
// A table route depends on the destination alone, so it is looked up here,
// once, and kept in the packet for the routed event.
void Switch::on_packet_head(PortId port, PacketHandle packet, Tick head_at) {
  __builtin_prefetch(&input_of(port.value()), 1);
  if (!adaptive_) {
    Packet& p = pool_[packet];
    p.table_output = forwarding_[p.destination.value()].value();
    __builtin_prefetch(&output_of(p.table_output), 1);
    output_of(p.table_output).link.prefetch_for_sending();
  }
  schedule(head_at + params_.traversal_latency, encode(kRouted, port.value()), packet.value());
}

// A routed packet's hop reads the packet first, and its input's line (the
// kernel's look-ahead, EventKernel::look_ahead).
void Switch::hint(const ModuleEvent& event) const {
  if (kind_of(event.kind) != kRouted) return;
  __builtin_prefetch(&pool_[PacketHandle(event.arg)]);
  __builtin_prefetch(&input_of(port_of(event.kind)), 1);
}

CreditLink& Switch::wire_output(PortId port, const LinkParams& params, PacketReceiver& receiver, PortId receiver_port) {
  Output& out = output_of(port.value());
  assert(!out.wired && "an output port is wired once");
  std::construct_at(&out.link, params, *this, port, receiver, receiver_port);
  out.wired = true;
  return out.link;
}

void Switch::on_credits_returned(PortId port, Tick at) { schedule(at, encode(kRetry, port.value())); }

// A slot comes from the buffer's free chain, most recently freed first (so a
// lightly used buffer keeps to its first slots); with none freed, every slot
// taken so far is held, and they are the buffer's first `held`. A buffer's
// k-th slot sits beside every other buffer's k-th (Switch::slots_).
bool Switch::push(uint32_t input, uint32_t lane_index, Queue& q, const Queued& entry) {
  LaneBuffer& lane = lane_buffer(input, lane_index);
  // Credits bound the packets upstream may send: each takes at least one.
  assert(lane.held < params_.credits_per_lane && "input buffer overrun: credit accounting is broken");
  uint32_t slot = lane.free_head;
  if (slot != kNoSlot) {
    lane.free_head = slots_[slot].next;
  } else {
    slot = lane.held * buffer_count() + buffer_index(input, lane_index);
  }
  slots_[slot] = entry;  // next: none, it is the queue's last
  lane.high_water = std::max(lane.high_water, ++lane.held);
  const bool was_empty = q.head == kNoSlot;
  (was_empty ? q.head : slots_[q.tail].next) = slot;
  q.tail = slot;
  return was_empty;
}

uint32_t Switch::input_high_water(PortId port) const {
  uint32_t high = 0;
  for (uint32_t lane = 0; lane < params_.lanes; ++lane) {
    high = std::max(high, lane_buffer(port.value(), lane).high_water);
  }
  return high;
}

void Switch::pop(uint32_t input, uint32_t lane_index, Queue& q) {
  const uint32_t slot = q.head;
  q.head = slots_[slot].next;
  if (q.head == kNoSlot) q.tail = kNoSlot;
  LaneBuffer& lane = lane_buffer(input, lane_index);
  slots_[slot].next = lane.free_head;
  lane.free_head = slot;
  --lane.held;
}

void Switch::handle(const ModuleEvent& event) {
  const uint32_t port = port_of(event.kind);
  if (kind_of(event.kind) == kRetry) {
    mark_dirty(static_cast<uint16_t>(port));
    return;
  }
  const PacketHandle handle(event.arg);
  const Packet& packet = pool_[handle];
  const uint8_t lane = packet.lane.value();
  const uint16_t output = adaptive_ ? route(packet, static_cast<uint16_t>(port), event.at) : packet.table_output;
  if (adaptive_) ++load_[output].waiting;
  // Arbitration and the grant read these links next; the slot is written meanwhile.
  output_of(output).link.prefetch_for_sending();
  input_of(port).upstream->prefetch_for_returns();
  if (push(port, lane, queue(port, lane, output),
           Queued{handle.value(), output, static_cast<uint16_t>(packet.wire_bytes), kNoSlot})) {
    request(static_cast<uint16_t>(port), lane, output);
  }
}

uint16_t Switch::route(const Packet& packet, uint16_t input, Tick now) {
  const uint16_t table = forwarding_[packet.destination.value()].value();
  const uint16_t set = choices_.set_for(packet.destination.value(), input, packet.lane.value());
  if (set == 0) return table;
  const uint16_t chosen = least_costly(set, now);
  if (chosen != table) ++stats_.adaptive_choices;
  return chosen;
}

// A port's cost is the packets waiting for it, plus one if it is sending,
// plus one, times the switches its path crosses where the set says (UGAL:
// a longer path must be that much less busy); the lowest wins. Among equals
// the first from a point that moves on with every choice, so that equal
// ports share the load and a run stays deterministic.
uint16_t Switch::least_costly(uint16_t set, Tick now) {
  const std::vector<PortId>& ports = choices_.sets[set];
  const std::vector<uint8_t>& hops = choices_.hops[set];
  const auto count = static_cast<uint32_t>(ports.size());
  const uint32_t first = next_choice_++ % count;
  uint32_t best = first;
  uint64_t best_cost = UINT64_MAX;
  uint8_t shortest = UINT8_MAX;
  for (uint32_t k = 0; k < count; ++k) {
    const uint32_t i = (first + k) % count;
    const uint16_t port = ports[i].value();
    const uint64_t occupancy = load_[port].waiting + (load_[port].link_busy_until > now ? 1 : 0);
    const uint64_t cost = hops.empty() ? occupancy : (occupancy + 1) * hops[i];
    if (cost < best_cost) {
      best = i;
      best_cost = cost;
    }
    if (!hops.empty()) shortest = std::min(shortest, hops[i]);
  }
  if (!hops.empty() && hops[best] > shortest) ++stats_.nonminimal_routes;
  return ports[best].value();
}

void Switch::request(uint16_t input, uint8_t lane, uint16_t output) {
  output_of(output).requests.push_back(Request{input, lane});
  mark_dirty(output);
}

void Switch::mark_dirty(uint16_t output) {
  Output& out = output_of(output);
  if (out.dirty) return;
  out.dirty = true;
  out.next_dirty = kNoOutput;
  (dirty_tail_ == kNoOutput ? dirty_head_ : output_of(dirty_tail_).next_dirty) = output;
  dirty_tail_ = output;
}

void Switch::retry_at(uint16_t output, Tick at, Tick now) {
  Output& out = output_of(output);
  if (out.retry_at > now && out.retry_at <= at) return;  // an earlier retry is already queued
  out.retry_at = at;
  schedule(at, encode(kRetry, output));
}

void Switch::settle(Tick now) {
  // Grants can dirty further outputs (a new head requests elsewhere, or an
  // output already arbitrated again), which join the list's end.
  while (dirty_head_ != kNoOutput) {
    const uint16_t output = dirty_head_;
    dirty_head_ = output_of(output).next_dirty;
    if (dirty_head_ == kNoOutput) dirty_tail_ = kNoOutput;
    output_of(output).dirty = false;
    arbitrate(output, now);
  }
}

void Switch::arbitrate(uint16_t output, Tick now) {
  Output& out = output_of(output);
  if (out.requests.empty()) return;
  if (out.link.busy_until() > now) {
    retry_at(output, out.link.busy_until(), now);
    return;
  }
  const uint32_t slots = buffer_count();
  size_t best = out.requests.size();
  uint64_t best_rank = UINT64_MAX;
  Tick input_frees = kNever;
  for (size_t r = 0; r < out.requests.size(); ++r) {
    const Request& request = out.requests[r];
    if (const Tick busy_until = input_of(request.input).busy_until; busy_until > now) {
      input_frees = std::min(input_frees, busy_until);
      continue;
    }
    const uint32_t buffer = buffer_index(request.input, request.lane);
    const Queued& head = slots_[queue(request.input, request.lane, output).head];
    // The lowest rank wins: the distance from the round-robin pointer (no need to read the queue), or the age of
    // the packet at the queue's head.
    const uint64_t rank =
        params_.oldest_first ? pool_[PacketHandle(head.packet)].id : (buffer + slots - out.next_grant) % slots;
    if (rank >= best_rank) continue;
    const VirtualLane lane(out_lane(request.input, output, request.lane));
    assert(lane.value() < params_.lanes && "a lane map gives a lane the fabric does not have");
    if (!out.link.can_send(lane, head.wire_bytes, now)) continue;
    best = r;
    best_rank = rank;
  }
  if (best != out.requests.size()) {
    grant(output, best, now);
    if (!out.requests.empty()) retry_at(output, out.link.busy_until(), now);
  } else if (input_frees != kNever) {
    retry_at(output, input_frees, now);
  }
}

// With a crossbar speedup a packet has left its input after 1/speedup of its
// serialization on the output, but never before its tail has arrived.
Tick Switch::crossed_at(uint16_t output, uint32_t wire_bytes, Tick tail_in, Tick now) const {
  const auto serialization = static_cast<double>(output_of(output).link.serialization(wire_bytes));
  return std::max(tail_in, now + static_cast<Tick>(std::llround(serialization / params_.speedup)));
}

void Switch::grant(uint16_t output, size_t request_index, Tick now) {
  Output& out = output_of(output);
  const Request request = out.requests[request_index];
  out.requests[request_index] = out.requests.back();
  out.requests.pop_back();
  const uint32_t buffer = buffer_index(request.input, request.lane);
  out.next_grant = (buffer + 1) % buffer_count();

  Queue& queue = this->queue(request.input, request.lane, output);
  const PacketHandle handle(slots_[queue.head].packet);
  pop(request.input, request.lane, queue);
  if (adaptive_) --load_[output].waiting;
  if (queue.head != kNoSlot) this->request(request.input, request.lane, slots_[queue.head].output);

  Packet& packet = pool_[handle];
  const uint32_t wire_bytes = packet.wire_bytes;
  // It leaves on its output lane; the buffer it frees is its arrival lane's.
  packet.lane = VirtualLane(out_lane(request.input, output, request.lane));
  const Tick tail_in = packet.tail_at;
  // Its tail leaves no earlier than one traversal after it arrived (with
  // equal rates never later than now + serialization, so it starts now).
  // `packet` is not read after send: an attacker on the link may grow the pool.
  const Tick tail_out = out.link.send(handle, packet, now, tail_in + params_.traversal_latency);
  if (adaptive_) load_[output].link_busy_until = tail_out;
  const Tick crossed = params_.speedup > 1.0 ? crossed_at(output, wire_bytes, tail_in, now) : tail_out;
  Input& in = input_of(request.input);
  in.busy_until = crossed;
  in.upstream->return_credits(VirtualLane(request.lane), wire_bytes, crossed, now);
  ++stats_.packets_forwarded;
}

}  // namespace ibsec::network
