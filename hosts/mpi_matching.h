// The MPI side of trace replay (docs/replay.md), apart from time and CPUs:
// which sends and posted receives a process waits for, how an arrived
// message meets its receive, nonblocking requests and their waits, and
// collectives expanded into rounds of point-to-point messages
// (hosts/collectives.h). Plain C++: the replay (hosts/trace_replay.h) begins
// a process's communication events here and passes on what the cards report;
// the matching answers whose wait is over.
//
// Messages meet receives by channel: (source, destination, tag, context),
// context 0 for user point-to-point traffic and 1 + communicator id for
// collectives, whose tag is the call's number on that communicator, so a
// collective never takes a user message. Within a channel, messages and
// receives meet in the order they came (MPI's non-overtaking rule); traces
// have no wildcards.
//
// When things complete: a send when the card has put its last packet on the
// link (local completion); a receive when the whole message is in the
// destination's memory, or at once if it was there before the receive was
// posted; a collective when every round is done, a round when all its sends
// and receives are.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/id_vector.h"
#include "core/slot_pool.h"
#include "core/time.h"
#include "core/types.h"
#include "hosts/collectives.h"
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
  // A message of b bytes is ceil(b / mtu_bytes) packets, at least one.
  MpiMatching(IdVector<JobId, MpiJob> jobs, uint32_t mtu_bytes, MessageTransport& transport);

  // Begins p's communication event `e` (any op but compute): true if it
  // completed at once, false if p now waits for it.
  bool begin(ProcessId p, const TraceEvent& e, Tick now);
  // p's wait is over: true if its event is complete, false if p waits again
  // (in the next round of a collective).
  bool go_on(ProcessId p, Tick now);

  // What the cards report. The card has put the last packet of `message` on
  // the link; returns the process whose wait this ends, or none.
  ProcessId message_sent(uint32_t message);
  struct Delivery {
    ProcessId arrived_for = ProcessId::none();  // the whole message is in this process's memory
    ProcessId wait_over = ProcessId::none();    // the process whose wait this ends
  };
  // A packet of `message` is in the destination's memory.
  Delivery packet_delivered(uint32_t message);

  [[nodiscard]] uint64_t messages() const { return messages_sent_; }
  [[nodiscard]] uint64_t collective_messages() const { return collective_messages_; }
  // Messages handed to the cards and not yet wholly delivered.
  [[nodiscard]] size_t messages_in_flight() const { return messages_.in_use(); }
  // Of p's current collective: the round it is in (from 0), and how many it has.
  [[nodiscard]] std::pair<size_t, size_t> collective_round(ProcessId p) const {
    return {processes_[p].round, processes_[p].rounds.size()};
  }

 private:
  using OperationId = StrongId<struct OperationIdTag, uint32_t>;

  // A send or posted receive the process may wait for.
  struct Operation {
    ProcessId process;
    bool done = false;     // complete, and nobody waited for it yet
    bool awaited = false;  // a blocking call, or a wait on its request
  };
  struct ChannelKey {
    ProcessId source;
    ProcessId destination;
    uint32_t tag = 0;
    uint32_t context = 0;  // 0 = user point-to-point, else 1 + communicator id
    bool operator==(const ChannelKey&) const = default;
  };
  struct ChannelKeyHash {
    size_t operator()(const ChannelKey& k) const noexcept;
  };
  struct Message {
    ChannelKey key;
    OperationId send_op = OperationId::none();  // until the card has sent the last packet
    uint32_t packets_left = 0;                  // until the destination card has delivered them all
  };
  // Only one side waits at a time: receives posted early, or messages that
  // arrived before their receive.
  struct Channel {
    std::deque<OperationId> posted;
    uint32_t unexpected = 0;
  };
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
  bool begin_collective(ProcessId p, const TraceEvent& e, Tick now);
  bool run_rounds(ProcessId p, Tick now);
  uint32_t start_round(ProcessId p, const CollectiveRound& round, Tick now);
  OperationId send(ProcessId p, ProcessId to, uint64_t bytes, const ChannelKey& key, bool awaited, Tick now);
  OperationId post_receive(ProcessId p, const ChannelKey& key, bool awaited);
  ProcessId arrived(const ChannelKey& key);
  ProcessId complete(OperationId op);
  [[nodiscard]] ProcessId member(ProcessId p, uint32_t comm, uint32_t comm_rank) const;

  IdVector<JobId, MpiJob> jobs_;
  IdVector<ProcessId, MpiProcess> processes_;
  uint32_t mtu_bytes_;
  MessageTransport& transport_;
  SlotPool<Operation, OperationId> operations_;
  SlotPool<Message> messages_;  // handles are the cards' message ids
  std::unordered_map<ChannelKey, Channel, ChannelKeyHash> channels_;
  uint64_t messages_sent_ = 0;
  uint64_t collective_messages_ = 0;
};

}  // namespace ibsec::hosts
