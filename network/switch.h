// A packet-level InfiniBand switch: input buffers per port and virtual lane,
// virtual cut-through (a packet moves on as soon as its header has been
// routed, if the output is free and the next buffer has room for all of it),
// and a crossbar whose outputs are granted round-robin over (input, lane), or
// to the oldest packet waiting (SwitchParams::oldest_first).
// A packet waits in the buffer of the lane it arrived on and leaves on the
// lane the switch's lane map gives (SwitchSpec::lane_map; without one, the
// same lane): the credits it takes downstream are that lane's, the credits
// it hands back upstream the arrival lane's.
//
// Timing: a packet whose head arrives at t can start on its output port at
// t + traversal latency at the earliest, and its tail leaves no earlier than
// the traversal latency after the tail arrived (Packet::tail_at), which holds
// back a packet going onto a faster link (docs/network.md, "Links of
// different rates"). An input port feeds one output at a time and is busy
// until the tail has gone through (with a crossbar speedup, SwitchParams::
// speedup, until it has crossed). With adaptive routing a packet whose
// destination has several ports takes the least costly: the fewest packets
// waiting for it (plus one if it is sending), weighed by path length where
// the set says (UGAL), ties going round-robin; the choice is made once, when
// its head is routed. The switch wakes only when a
// packet has been routed, or when a waiting request can next be served (its
// output or input frees, or credits come back), never merely because a
// transfer ended.
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "core/event_module.h"
#include "core/sparse_array.h"
#include "network/credit_link.h"
#include "network/packet.h"
#include "network/topology.h"

namespace ibsec::network {

struct SwitchParams {
  Tick traversal_latency = 0;
  uint32_t lanes = 1;
  uint32_t credits_per_lane = 64;  // input buffer per lane; bounds the packets it can hold
  bool virtual_output_queues = false;
  // Which waiting packet an output takes: round-robin over (input, lane), or
  // the oldest (the lowest packet id, given in hand-over order).
  bool oldest_first = false;
  // How much faster than its link an input port moves a packet across the
  // crossbar. At 1 the input is busy until the packet's tail has left the
  // output; above 1 it is free after 1/speedup of the serialization (no
  // earlier than the tail's arrival), and the output holds the rest of the
  // packet while it sends it: a combined input/output-queued switch with
  // one packet of output buffer.
  double speedup = 1.0;
};

struct SwitchStats : StatGroupOf<SwitchStats> {
  Counter packets_forwarded{
      *this,
      {"switch_hops_total", "packets", "packets forwarded by switches (each switch a packet crosses counts it)"}};
  Counter adaptive_choices{*this,
                           {"adaptive_choices", "packets",
                            "packets a switch sent on a port other than its forwarding table's, chosen by adaptive "
                            "routing for having fewer packets waiting (network.adaptive_routing)"}};
  Counter nonminimal_routes{*this,
                            {"nonminimal_routes", "packets",
                             "packets a switch sent on a longer path than its shortest, UGAL's detour through another "
                             "group (network.adaptive_routing=ugal)"}};
};

class Switch final : public EventDrivenModule, public PacketReceiver, public LinkSender {
 public:
  // `lane_map` as SwitchSpec::lane_map: empty, or an output lane by (input, output, arrival lane).
  Switch(const sc_core::sc_module_name& name, EventKernel& kernel, PacketPool& pool, uint16_t ports,
         const Forwarding& forwarding, const SwitchParams& params, std::vector<uint8_t> lane_map = {},
         PortChoices choices = {});

  // Wiring, done once while the cluster is assembled. The switch keeps the
  // link each wired output port sends on (Output::link).
  CreditLink& wire_output(PortId port, const LinkParams& params, PacketReceiver& receiver, PortId receiver_port);
  void attach_input(PortId port, CreditLink* upstream) { input_of(port.value()).upstream = upstream; }

  void on_packet_head(PortId port, PacketHandle packet, Tick head_at) override;
  void on_credits_returned(PortId port, Tick at) override;

  [[nodiscard]] const SwitchStats& stats() const { return stats_; }
  // The most packets an input port's buffer held at once, in any one of its virtual lanes.
  [[nodiscard]] uint32_t input_high_water(PortId port) const;

 private:
  friend class EventDrivenModule;  // calls handle and settle directly (call_directly)
  enum EventKind : uint32_t { kRouted, kRetry };

  static constexpr uint32_t kNoSlot = UINT32_MAX;
  static constexpr uint16_t kNoOutput = UINT16_MAX;
  static constexpr size_t kInlineRequests = 4;

  // A routed packet in an input buffer, with what arbitration needs to know
  // so that it never has to look at the packet itself, and the next packet
  // of its queue (or the next free slot). Plain integers, so that the slots
  // can be left unwritten until a packet takes one (Switch::slots_).
  struct Queued {
    uint32_t packet;  // its PacketHandle's value
    uint16_t output;
    uint16_t wire_bytes;
    uint32_t next;  // kNoSlot: none
  };
  static_assert(std::is_trivially_default_constructible_v<Queued>);
  // The packets of one queue (the lane's FIFO, or one of its virtual output
  // queues), chained through Queued::next.
  struct Queue {
    uint32_t head = kNoSlot;
    uint32_t tail = kNoSlot;
  };
  // An (input, lane) buffer: credits_per_lane slots, the freed ones chained,
  // and its packets in arrival order unless they queue by output.
  struct LaneBuffer {
    uint32_t free_head = kNoSlot;
    uint32_t held = 0;
    uint32_t high_water = 0;  // the most it held
    Queue fifo;
  };
  // Lanes whose buffers are kept in their input's cache line; more are kept apart.
  static constexpr uint32_t kInlineLanes = 2;
  // An input port, one cache line: busy while a packet crosses from it; the
  // link it is fed by; the buffers of its first lanes. A hop pushes into
  // the buffer, arbitration reads the busy time, and the grant pops and
  // hands credits back upstream, all on this line.
  struct alignas(64) Input {
    Tick busy_until = 0;
    CreditLink* upstream = nullptr;
    LaneBuffer lanes[kInlineLanes];
  };
  static_assert(sizeof(Input) == 64, "an input fills one cache line");
  struct Request {
    uint16_t input;
    uint8_t lane;
  };
  // An output port: one cache line, which arbitration reads whole, then the
  // link the port sends on, in the lines after it. A hop's output and link
  // are then one address computed from the switch's ports, asked for
  // together, where a pointer to the link in the output's line made the
  // link's lines wait for the output's. The link is built when the port is
  // wired.
  struct alignas(64) Output {
    Output() {}  // NOLINT(modernize-use-equals-default): the link is left unconstructed until wired
    ~Output() {
      if (wired) std::destroy_at(&link);
    }
    Output(const Output&) = delete;
    Output& operator=(const Output&) = delete;

    // Heads of input lanes that want this output: at light load none or one,
    // so they live in the output itself.
    boost::container::small_vector<Request, kInlineRequests> requests;
    Tick retry_at = 0;                // a kRetry is queued for this time (if > now)
    uint32_t next_grant = 0;          // round-robin pointer over input * lanes + lane
    bool dirty = false;               // in the switch's list of outputs to arbitrate
    bool wired = false;               // `link` is built
    uint16_t next_dirty = kNoOutput;  // the next in that list
    union {
      CreditLink link;  // built by wire_output
    };
  };
  static_assert(sizeof(Output) == 64 + sizeof(CreditLink), "an output is one cache line and its link's");
  // A port: its input's line, then its output's line and link. Five lines,
  // an odd number: at four (the output and link alone), every port's
  // output, link and credit lines fell in the same three quarters of the
  // cache's sets, a line a hop more missed (cachegrind, 1 MiB).
  struct Port {
    Input input;
    Output output;
  };
  static_assert(sizeof(Port) % 128 == 64, "a port is an odd number of cache lines");
  Input& input_of(uint32_t port) { return ports_state_[port].input; }
  [[nodiscard]] const Input& input_of(uint32_t port) const { return ports_state_[port].input; }
  Output& output_of(uint32_t port) { return ports_state_[port].output; }
  [[nodiscard]] const Output& output_of(uint32_t port) const { return ports_state_[port].output; }

  void handle(const ModuleEvent& event) override;
  void hint(const ModuleEvent& event) const;
  void settle(Tick now) override;

  // An (input, lane) buffer's index; also its place in the round-robin order.
  [[nodiscard]] uint32_t buffer_index(uint32_t input, uint32_t lane) const { return input * params_.lanes + lane; }
  // The (input, lane) buffers: the length of the round-robin order.
  [[nodiscard]] uint32_t buffer_count() const { return uint32_t{ports_} * params_.lanes; }
  LaneBuffer& lane_buffer(uint32_t input, uint32_t lane) {
    return lane < kInlineLanes ? input_of(input).lanes[lane]
                               : more_lanes_[input * (params_.lanes - kInlineLanes) + lane - kInlineLanes];
  }
  [[nodiscard]] const LaneBuffer& lane_buffer(uint32_t input, uint32_t lane) const {
    return const_cast<Switch*>(this)->lane_buffer(input, lane);
  }
  // The queue of an (input, lane) buffer that holds packets for `output`:
  // the buffer's own FIFO, or a virtual output queue.
  Queue& queue(uint32_t input, uint32_t lane, uint16_t output) {
    return params_.virtual_output_queues ? queues_[buffer_index(input, lane) * uint32_t{ports_} + output]
                                         : lane_buffer(input, lane).fifo;
  }
  // Returns whether the queue was empty before.
  bool push(uint32_t input, uint32_t lane, Queue& queue, const Queued& entry);
  void pop(uint32_t input, uint32_t lane, Queue& queue);

  [[nodiscard]] uint16_t route(const Packet& packet, uint16_t input, Tick now);
  [[nodiscard]] uint16_t least_costly(uint16_t set, Tick now);
  void request(uint16_t input, uint8_t lane, uint16_t output);
  void mark_dirty(uint16_t output);
  void retry_at(uint16_t output, Tick at, Tick now);
  void arbitrate(uint16_t output, Tick now);
  void grant(uint16_t output, size_t request_index, Tick now);
  [[nodiscard]] Tick crossed_at(uint16_t output, uint32_t wire_bytes, Tick tail_in, Tick now) const;
  [[nodiscard]] uint8_t out_lane(uint32_t input, uint32_t output, uint8_t lane) const {
    return !has_lane_map_ ? lane
                          : lane_map_data_[(static_cast<size_t>(input) * ports_ + output) * kLaneMapLanes + lane];
  }

  // What a hop reads comes first, in the two cache lines after the base's
  // wake-up line, so that a switch hop touches three lines of the switch:
  // the first holds the base's PacketReceiver table pointer and what an
  // upstream link's call to on_packet_head reads (the parameters, the
  // ports, the pool); the second what routing, arbitration and the grant
  // read, up to the counter of packets forwarded. What adaptive routing, a
  // lane map and virtual output queues read comes after.
  SwitchParams params_;
  // The per-port arrays, here and below, as bare pointers (their lengths
  // follow from ports_ and params_).
  std::unique_ptr<Port[]> ports_state_;
  PacketPool& pool_;
  ForwardingView forwarding_;  // of the topology's Forwarding, which outlives the switch
  // !choices_.empty(), kept in one byte: without choices the hot path reads
  // only this and the forwarding (asking choices_ instead costs 1.4 % more
  // instructions on a 1 024-node fat tree, callgrind).
  bool adaptive_;
  bool has_lane_map_;  // !lane_map_data_.empty()
  uint16_t ports_;
  // Outputs to arbitrate before the switch sleeps, in the order they were
  // marked, chained through Output::next_dirty.
  uint16_t dirty_head_ = kNoOutput;
  uint16_t dirty_tail_ = kNoOutput;
  // Input buffers: credits_per_lane slots per (input, lane), all in one
  // block, each buffer's k-th slot beside the other buffers' k-th: at light
  // load every buffer uses its first, so the slots a switch's hops touch
  // share a line or two instead of a line each (a buffer's slots side by
  // side would put its first a buffer's length from the next one's). They
  // are not initialised: a slot is written when a packet takes it and read
  // only while taken or freed, so the memory of the slots no packet reaches
  // (most, at light load, with deep buffers) is never touched and never
  // made resident (SparseArray, slot_storage_, which owns them; this pointer
  // is what the hop's line holds).
  Queued* slots_;
  SwitchStats stats_;
  std::vector<uint8_t> lane_map_data_;
  std::vector<LaneBuffer> more_lanes_;  // by (input, lane - kInlineLanes), for lanes past the inline ones
  std::vector<Queue> queues_;           // virtual output queues: one per buffer and output; none with FIFOs
  PortChoices choices_;
  uint32_t next_choice_ = 0;  // where the tie-break among equally occupied ports starts
  // What adaptive routing weighs, by output, side by side so that weighing
  // a set of ports reads a line or two, not each port's link: the packets
  // in the input buffers routed to it, and a copy of its link's busy time
  // (only this switch starts packets on the link, so the copy is exact).
  struct PortLoad {
    Tick link_busy_until = 0;
    uint32_t waiting = 0;
  };
  std::vector<PortLoad> load_;        // adaptive only
  SparseArray<Queued> slot_storage_;  // owns slots_
};

}  // namespace ibsec::network
