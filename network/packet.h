// A packet as the fabric and the cards see it. Packets live in a pool owned by
// the run and travel by handle, so the hot path moves 4-byte handles and never
// allocates.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/slot_pool.h"
#include "core/time.h"
#include "core/types.h"

namespace ibsec::network {

using PacketHandle = StrongId<struct PacketHandleTag, uint32_t>;

// What an attacker on a link did to a packet (attack/attacker.h). The cards
// never read it: it is the simulator's ground truth, so that a run can count
// which attacked packets were stopped and which genuine ones were lost.
enum class AttackKind : uint8_t { kNone, kTamper, kInject, kReplay, kSpoof };
inline constexpr size_t kAttackKinds = 5;
// True for packets the attacker made rather than altered: no host sent them.
constexpr bool forged(AttackKind kind) { return kind != AttackKind::kNone && kind != AttackKind::kTamper; }

// InfiniBand flow-control credits count 64-byte blocks (IBA vol. 1, 7.9.4).
inline constexpr uint32_t kCreditBytes = 64;
constexpr uint32_t credits_for(uint32_t wire_bytes) { return (wire_bytes + kCreditBytes - 1) / kCreditBytes; }

// What a switch hop reads and writes comes first, in the packet's first
// cache line (each packet starts one): where it goes, its size, its lane,
// when its tail arrives, and its id for oldest-first arbitration.
struct alignas(64) Packet {
  Tick tail_at = 0;  // its last byte reaches the far end of the link it is on now (CreditLink::send)
  NodeId destination{0};
  uint32_t wire_bytes = 0;       // payload + headers (+ security fields)
  VirtualLane lane{0};           // on the link it is on now; a switch's lane map may change it per hop
  VirtualLane service_level{0};  // the lane its card chose, kept end to end as InfiniBand's SL is
  bool measured = false;         // handed over inside the measurement window
  bool last_of_message = true;
  AttackKind attack = AttackKind::kNone;
  // The output the switch its head has reached sends it on, when that
  // switch's table decides it (Switch::on_packet_head).
  uint16_t table_output = 0;
  uint64_t id = 0;          // unique in the run, in hand-over order
  Tick handover = 0;        // host gave it to the sending card
  Tick lookup_started = 0;  // entered the sending card's look-up stage (per-packet latency)
  Tick delivered = 0;       // verified and handed to the receiving host
  SessionKeyId key{0};      // one key per pair of communicating processes
  uint32_t sequence = 0;    // per session and direction
  NodeId source{0};
  uint32_t source_process = 0;  // cluster-wide process ids
  uint32_t destination_process = 0;
  uint32_t payload_bytes = 0;
  uint32_t message = 0;  // host's message id, for reassembly
  // The next packet in the card queue this one waits in (nic/packet_fifo.h).
  PacketHandle next_waiting = PacketHandle::none();
};
static_assert(sizeof(Packet) == 128, "a packet is two cache lines, the first what a switch hop reads");

// Every packet of a run, reused once delivered or dropped.
using PacketPool = SlotPool<Packet, PacketHandle>;

}  // namespace ibsec::network
