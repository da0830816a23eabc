// The MPI side of trace replay (docs/replay.md), apart from time and CPUs:
// which sends and posted receives a process waits for, how an arrived
// message meets its receive, nonblocking requests and their waits, and
// collectives expanded into rounds of point-to-point messages
// (hosts/collectives.h). Plain C++: the replay (hosts/trace_replay.h) begins
// a process's communication events here and passes on what the cards report;
// the matching answers whose wait is over.
//
// Messages meet receives by channel: (source, destination, tag, context),
// context 2 x communicator id for user point-to-point traffic and that + 1
// for collectives, whose tag is the call's number on that communicator, so a
// collective never takes a user message. Within a channel, messages and
// receives meet in the order they came (MPI's non-overtaking rule); a
// receive posted with MPI_ANY_SOURCE waits for the source that matched in
// the original run, or is matched again (hosts/message_queues.h). A
// self-message never reaches a card: the send puts it straight into the
// channel.
//
// Sends of at most the eager limit go at once (eager); a larger one is a
// rendezvous, as Open MPI's ob1 does it: the sender sends a request to send,
// the receiver answers clear to send once a matching receive is posted, and
// only then the data goes. Both control messages are header-only messages
// through the cards like any other.
//
// When things complete: a send when the card has put the last packet of its
// data on the link (local completion; for a rendezvous that is after the
// receiver's answer); a receive when the whole message is in the
// destination's memory, or at once if an eager message was there before the
// receive was posted; a collective when every round is done, a round when all
// its sends and receives are. A blocking collective's next round begins when
// its process runs again; a non-blocking one's rounds go on in the background
// (asynchronous progress), each as soon as the one before is done.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/id_vector.h"
#include "core/slot_pool.h"
#include "core/time.h"
#include "core/types.h"
#include "hosts/collectives.h"
#include "hosts/message_queues.h"
#include "traces/trace_event.h"
#include "traces/trace_header.h"

namespace ibsec::hosts {

using traces::Communicator;
using traces::TraceEvent;

// A message for the cards to carry.
struct OutgoingMessage {
  ProcessId from;
  ProcessId to;
  uint64_t bytes = 0;
  uint32_t packets = 0;
  uint32_t message = 0;  // the card echoes it in on_message_sent and in every packet
};

class MessageTransport {
 public:
  virtual ~MessageTransport() = default;
  virtual void carry(const OutgoingMessage& message, Tick now) = 0;
  // A non-blocking collective's round is done: call continue_background()
  // for it at `now`, from outside the card callback that completed it.
  virtual void continue_later(uint32_t background, Tick now) = 0;
};

// One job's processes: its rank r is process first + r.
struct MpiJob {
  ProcessId first;
  uint32_t processes = 0;
  std::map<uint32_t, Communicator> comms;

  [[nodiscard]] ProcessId process(uint32_t rank) const { return ProcessId(first.value() + rank); }
};

class MpiMatching {
 public:
  // A message of b bytes is ceil(b / mtu_bytes) packets, at least one. A send
  // of more than eager_limit_bytes is a rendezvous. `collectives` chooses
  // each collective call's algorithm. With `rematch_wildcards`, a receive
  // posted with MPI_ANY_SOURCE takes whichever message comes first
  // (hosts/message_queues.h), else the one from the source that matched in
  // the original run.
  MpiMatching(IdVector<JobId, MpiJob> jobs, uint32_t mtu_bytes, uint64_t eager_limit_bytes,
              CollectiveChoice collectives, MessageTransport& transport, bool rematch_wildcards = false);

  // Begins p's communication event `e` (any op but compute): true if it
  // completed at once, false if p now waits for it.
  bool begin(ProcessId p, const TraceEvent& e, Tick now);
  // p's wait is over: true if its event is complete, false if p waits again
  // (in the next round of a collective).
  bool go_on(ProcessId p, Tick now);

  // What the cards report. The card has put the last packet of `message` on
  // the link; returns the process whose wait this ends, or none.
  ProcessId message_sent(uint32_t message, Tick now);
  struct Delivery {
    ProcessId arrived_for = ProcessId::none();  // the whole message is in this process's memory
    ProcessId wait_over = ProcessId::none();    // the process whose wait this ends
  };
  // A packet of `message` is in the destination's memory; a control message
  // that arrives may make the matching hand over the next one at `now`.
  Delivery packet_delivered(uint32_t message, Tick now);
  // Starts the next rounds of a non-blocking collective (see
  // MessageTransport::continue_later); returns the process whose wait for
  // it this ends, or none.
  ProcessId continue_background(uint32_t background, Tick now);

  // The counts of docs/running.md#counts. What the traces ask for: the
  // application messages (point-to-point sends begun, to another process or
  // to itself) and the collective calls (one per process and call; by op,
  // blocking and non-blocking forms apart). What the cards carry: the network
  // messages (every message handed over: the point-to-point sends to another
  // process, the data messages the collectives expand into, and the
  // rendezvous control messages, two per rendezvous), and the sends that went
  // by rendezvous; a message a process sends itself needs no card.
  [[nodiscard]] uint64_t application_messages() const { return application_messages_; }
  [[nodiscard]] uint64_t self_messages() const { return self_messages_; }
  [[nodiscard]] uint64_t collective_calls() const;
  [[nodiscard]] uint64_t collective_calls(TraceOp op) const { return collective_calls_[static_cast<size_t>(op)]; }
  [[nodiscard]] uint64_t network_messages() const { return network_messages_; }
  [[nodiscard]] uint64_t collective_messages() const { return collective_messages_; }
  [[nodiscard]] uint64_t control_messages() const { return control_messages_; }
  [[nodiscard]] uint64_t rendezvous_sends() const { return rendezvous_sends_; }
  // Messages handed to the cards and not yet wholly delivered.
  [[nodiscard]] size_t messages_in_flight() const { return messages_.in_use(); }
  // Of p's current collective: the round it is in (from 0), and how many it has.
  [[nodiscard]] std::pair<size_t, size_t> collective_round(ProcessId p) const {
    return {processes_[p].round, processes_[p].rounds.size()};
  }

 private:
  using OperationId = StrongId<struct OperationIdTag, uint32_t>;
  using BackgroundId = StrongId<struct BackgroundIdTag, uint32_t>;
  using RendezvousId = StrongId<struct RendezvousIdTag, uint32_t>;

  // A send or posted receive the process may wait for, or the request of a
  // non-blocking collective; or one message of such a collective's round,
  // which its collective waits for.
  struct Operation {
    ProcessId process;
    bool done = false;     // complete, and nobody waited for it yet
    bool awaited = false;  // a blocking call, or a wait on its request
    BackgroundId background = BackgroundId::none();
  };
  // A non-blocking collective in progress.
  struct Background {
    ProcessId process;
    uint32_t comm = 0;
    uint32_t tag = 0;
    std::vector<CollectiveRound> rounds;
    size_t round = 0;
    uint32_t pending = 0;  // of the current round
    OperationId request;   // completes with the last round
  };
  static constexpr uint64_t user_context(uint32_t comm) { return 2 * uint64_t{comm}; }
  static constexpr uint64_t collective_context(uint32_t comm) { return 2 * uint64_t{comm} + 1; }
  // What a message carries: data matched when it arrives (eager), or one
  // step of a rendezvous, whose data is matched before it is sent.
  enum class Carries : uint8_t { kEager, kRequestToSend, kClearToSend, kRendezvousData };
  struct Message {
    ChannelKey key;
    Carries carries = Carries::kEager;
    RendezvousId rendezvous = RendezvousId::none();
    OperationId send_op = OperationId::none();  // completes when the card has sent the last packet
    uint32_t packets_left = 0;                  // until the destination card has delivered them all
    bool sent = false;                          // the card has put the last packet on the link
  };
  // A send above the eager limit, from its request to send until its data
  // has arrived.
  struct Rendezvous {
    ChannelKey key;
    uint64_t bytes = 0;
    OperationId send_op = OperationId::none();     // complete once the data is on the link
    OperationId receive_op = OperationId::none();  // the receive it met: complete once the data is in
  };
  // What waits in a channel before its receive: an eager message (none) or a
  // rendezvous's request to send.
  using Queues = MessageQueues<OperationId, RendezvousId>;
  struct MpiProcess {
    JobId job;
    uint32_t blocked_on = 0;                             // awaited operations still to complete
    std::unordered_map<uint32_t, OperationId> requests;  // trace REQ -> operation (none: complete)
    std::map<uint32_t, uint32_t> collective_calls;       // communicator -> calls begun
    uint32_t collective_comm = 0;                        // of the current collective
    uint32_t collective_tag = 0;                         // its call number on that communicator
    std::vector<CollectiveRound> rounds;                 // of the current collective
    size_t round = 0;
  };

  bool wait(ProcessId p, uint32_t request);
  bool waits_for(ProcessId p, uint32_t operations);
  bool begin_point_to_point(ProcessId p, const TraceEvent& e, Tick now);
  void send_to_self(const ChannelKey& key, Tick now);
  bool begin_collective(ProcessId p, const TraceEvent& e, Tick now);
  [[nodiscard]] std::vector<CollectiveRound> rounds_of(ProcessId p, const TraceEvent& e) const;
  void begin_background(ProcessId p, const TraceEvent& e, uint32_t tag, Tick now);
  bool run_rounds(ProcessId p, Tick now);
  uint32_t start_round(ProcessId p, uint32_t comm, uint32_t tag, const CollectiveRound& round, const Operation& kind,
                       Tick now);
  OperationId send(ProcessId to, uint64_t bytes, const ChannelKey& key, const Operation& kind, Tick now);
  // Key: a ChannelKey, or an AnySourceKey for a wildcard receive matched again.
  template <typename Key>
  OperationId post_receive(const Key& key, const Operation& kind, Tick now);
  OperationId receive_arrival(std::optional<RendezvousId> arrival, const Operation& kind, Tick now);
  void carry(const Message& m, ProcessId from, ProcessId to, uint64_t bytes, Tick now);
  void carry_control(Carries carries, RendezvousId r, Tick now);
  void request_arrived(RendezvousId r, Tick now);
  void clear_to_send(RendezvousId r, OperationId receive, Tick now);
  void send_data(RendezvousId r, Tick now);
  Delivery data_arrived(RendezvousId r, Tick now);
  ProcessId arrived(const ChannelKey& key, Tick now);
  ProcessId complete(OperationId op, Tick now);
  [[nodiscard]] uint32_t packets_for(uint64_t bytes) const;
  [[nodiscard]] ProcessId member(ProcessId p, uint32_t comm, uint32_t comm_rank) const;

  IdVector<JobId, MpiJob> jobs_;
  IdVector<ProcessId, MpiProcess> processes_;
  uint32_t mtu_bytes_;
  uint64_t eager_limit_bytes_;
  CollectiveChoice collectives_;
  MessageTransport& transport_;
  SlotPool<Operation, OperationId> operations_;
  SlotPool<Message> messages_;  // handles are the cards' message ids
  SlotPool<Background, BackgroundId> backgrounds_;
  SlotPool<Rendezvous, RendezvousId> rendezvous_;
  Queues queues_;
  uint64_t application_messages_ = 0;
  std::array<uint64_t, traces::kTraceOpCount> collective_calls_{};
  uint64_t network_messages_ = 0;
  uint64_t collective_messages_ = 0;
  uint64_t control_messages_ = 0;
  uint64_t rendezvous_sends_ = 0;
  uint64_t self_messages_ = 0;
};

}  // namespace ibsec::hosts
