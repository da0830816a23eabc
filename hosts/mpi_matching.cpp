#include "hosts/mpi_matching.h"

#include <algorithm>
#include <stdexcept>

#include "hosts/vector_collectives.h"

namespace ibsec::hosts {

MpiMatching::MpiMatching(IdVector<JobId, MpiJob> jobs, uint32_t mtu_bytes, MessageTransport& transport,
                         bool rematch_wildcards)
    : jobs_(std::move(jobs)), mtu_bytes_(mtu_bytes), transport_(transport), queues_(rematch_wildcards) {
  for (const JobId j : jobs_.ids()) {
    if (jobs_[j].first != processes_.next_id()) throw std::logic_error("matching: jobs' processes must be in order");
    for (uint32_t rank = 0; rank < jobs_[j].processes; ++rank) processes_.emplace_back().job = j;
  }
}

bool MpiMatching::begin(ProcessId p, const TraceEvent& e, Tick now) {
  switch (e.op) {
    case TraceOp::kCompute:
      throw std::logic_error("matching: a compute event is no communication");
    case TraceOp::kWait:
      return wait(p, e.request);
    default:
      return is_collective(e.op) ? begin_collective(p, e, now) : begin_point_to_point(p, e, now);
  }
}

bool MpiMatching::begin_point_to_point(ProcessId p, const TraceEvent& e, Tick now) {
  MpiProcess& process = processes_[p];
  const ProcessId peer = jobs_[process.job].process(e.peer);
  const Operation blocking{p, false, true};
  const Operation nonblocking{p, false, false};
  if (is_send(e.op)) {
    const ChannelKey key{p, peer, e.tag, user_context(e.comm)};
    if (peer == p) {
      send_to_self(key, now);
      if (e.op == TraceOp::kIsend) process.requests[e.request] = OperationId::none();
      return true;
    }
    if (e.op == TraceOp::kSend) {
      send(peer, e.bytes, key, blocking, now);
      return waits_for(p, 1);
    }
    process.requests[e.request] = send(peer, e.bytes, key, nonblocking, now);
    return true;
  }
  const bool blocks = e.op == TraceOp::kRecv;
  OperationId op;
  if (e.posted != 0 && queues_.rematches_wildcards()) {
    op = post_any_source_receive(AnySourceKey{p, e.tag, user_context(e.comm)}, blocks ? blocking : nonblocking);
  } else {
    op = post_receive(ChannelKey{peer, p, e.tag, user_context(e.comm)}, blocks ? blocking : nonblocking);
  }
  if (blocks) return op.is_none() || waits_for(p, 1);
  process.requests[e.request] = op;
  return true;
}

// The message is in the channel at once; a receive the process posted
// before is complete (it cannot be waiting: the process is sending).
void MpiMatching::send_to_self(const ChannelKey& key, Tick now) {
  ++self_messages_;
  if (!arrived(key, now).is_none()) throw std::logic_error("matching: a self-message woke a running process");
}

// The trace checker has made sure every WAIT names a request begun before.
bool MpiMatching::wait(ProcessId p, uint32_t request) {
  auto& requests = processes_[p].requests;
  const auto found = requests.find(request);
  const OperationId op = found->second;
  requests.erase(found);
  if (op.is_none()) return true;  // a receive whose message had already arrived
  if (operations_[op].done) {
    operations_.release(op);
    return true;
  }
  operations_[op].awaited = true;
  return waits_for(p, 1);
}

bool MpiMatching::waits_for(ProcessId p, uint32_t operations) {
  processes_[p].blocked_on = operations;
  return false;
}

// A collective is complete when its last round is; one that waits goes on
// with its next round.
bool MpiMatching::go_on(ProcessId p, Tick now) {
  MpiProcess& process = processes_[p];
  if (process.rounds.empty()) return true;
  ++process.round;
  return run_rounds(p, now);
}

// The call's tag is its number on the communicator: every member calls the
// communicator's collectives, blocking or not, in the same order, so the
// numbers agree.
bool MpiMatching::begin_collective(ProcessId p, const TraceEvent& e, Tick now) {
  MpiProcess& process = processes_[p];
  const uint32_t tag = process.collective_calls[e.comm]++;
  if (blocking_form(e.op) != e.op) {
    begin_background(p, e, tag, now);
    return true;
  }
  process.collective_comm = e.comm;
  process.collective_tag = tag;
  process.rounds = rounds_of(p, e);
  process.round = 0;
  return run_rounds(p, now);
}

std::vector<CollectiveRound> MpiMatching::rounds_of(ProcessId p, const TraceEvent& e) const {
  const MpiJob& job = jobs_[processes_[p].job];
  const Communicator& comm = job.comms.at(e.comm);
  const auto size = static_cast<uint32_t>(comm.members.size());
  const uint32_t rank = comm.position(p.value() - job.first.value());
  const uint32_t root = has_root(e.op) ? comm.position(e.root) : 0;
  const TraceOp op = blocking_form(e.op);
  if (has_counts(op)) return expand_vector_collective(op, size, rank, root, *e.counts);
  return expand_collective(op, size, rank, root, e.bytes);
}

// A non-blocking collective: its request completes when its last round has.
void MpiMatching::begin_background(ProcessId p, const TraceEvent& e, uint32_t tag, Tick now) {
  const OperationId request = operations_.acquire(Operation{p, false, false});
  processes_[p].requests[e.request] = request;
  const BackgroundId id = backgrounds_.acquire(Background{p, e.comm, tag, rounds_of(p, e), 0, 0, request});
  const ProcessId woken = continue_background(id.value(), now);
  if (!woken.is_none()) throw std::logic_error("matching: a collective woke the process that began it");
}

ProcessId MpiMatching::continue_background(uint32_t background, Tick now) {
  const BackgroundId id(background);
  Background& b = backgrounds_[id];
  const Operation kind{b.process, false, false, id};
  while (b.pending == 0 && b.round < b.rounds.size()) {
    b.pending = start_round(b.process, b.comm, b.tag, b.rounds[b.round], kind, now);
    ++b.round;
  }
  if (b.pending > 0) return ProcessId::none();
  const OperationId request = b.request;
  backgrounds_.release(id);
  return complete(request, now);
}

// Runs the current collective's rounds from process.round on; true once
// every round is complete, false while one waits.
bool MpiMatching::run_rounds(ProcessId p, Tick now) {
  MpiProcess& process = processes_[p];
  const Operation kind{p, false, true};
  for (; process.round < process.rounds.size(); ++process.round) {
    const uint32_t waiting =
        start_round(p, process.collective_comm, process.collective_tag, process.rounds[process.round], kind, now);
    if (waiting > 0) return waits_for(p, waiting);
  }
  process.rounds.clear();
  return true;
}

// Posts the round's receives and hands over its sends, each an operation
// like `kind`; returns how many of them are still to complete.
uint32_t MpiMatching::start_round(ProcessId p, uint32_t comm, uint32_t tag, const CollectiveRound& round,
                                  const Operation& kind, Tick now) {
  uint32_t waiting = 0;
  for (const Transfer& r : round.receives) {
    const ChannelKey key{member(p, comm, r.peer), p, tag, collective_context(comm)};
    if (!post_receive(key, kind).is_none()) ++waiting;
  }
  for (const Transfer& s : round.sends) {
    const ProcessId to = member(p, comm, s.peer);
    send(to, s.bytes, ChannelKey{p, to, tag, collective_context(comm)}, kind, now);
    ++collective_messages_;
    ++waiting;
  }
  return waiting;
}

ProcessId MpiMatching::member(ProcessId p, uint32_t comm, uint32_t comm_rank) const {
  const MpiJob& job = jobs_[processes_[p].job];
  return job.process(job.comms.at(comm).members[comm_rank]);
}

MpiMatching::OperationId MpiMatching::send(ProcessId to, uint64_t bytes, const ChannelKey& key, const Operation& kind,
                                           Tick now) {
  const OperationId op = operations_.acquire(kind);
  const uint32_t packets = std::max<uint32_t>(1, static_cast<uint32_t>((bytes + mtu_bytes_ - 1) / mtu_bytes_));
  const uint32_t message = messages_.acquire(Message{key, op, packets});
  transport_.carry(OutgoingMessage{key.source, to, bytes, packets, message}, now);
  ++messages_sent_;
  return op;
}

// None when a message was already waiting (the receive is complete).
MpiMatching::OperationId MpiMatching::post_receive(const ChannelKey& key, const Operation& kind) {
  if (queues_.take_unexpected(key)) return OperationId::none();
  const OperationId op = operations_.acquire(kind);
  queues_.post(key, op);
  return op;
}

MpiMatching::OperationId MpiMatching::post_any_source_receive(const AnySourceKey& key, const Operation& kind) {
  if (queues_.take_unexpected(key)) return OperationId::none();
  const OperationId op = operations_.acquire(kind);
  queues_.post(key, op);
  return op;
}

ProcessId MpiMatching::message_sent(uint32_t message, Tick now) {
  Message& m = messages_[message];
  const OperationId op = m.send_op;
  m.send_op = OperationId::none();
  if (m.packets_left == 0) messages_.release(message);
  return complete(op, now);
}

MpiMatching::Delivery MpiMatching::packet_delivered(uint32_t message, Tick now) {
  Message& m = messages_[message];
  if (--m.packets_left > 0) return {};
  const ChannelKey key = m.key;
  if (m.send_op.is_none()) messages_.release(message);
  return {key.destination, arrived(key, now)};
}

// The whole message is there: it completes the oldest receive posted for it,
// or waits for one.
ProcessId MpiMatching::arrived(const ChannelKey& key, Tick now) {
  const std::optional<OperationId> receive = queues_.arrive(key);
  return receive ? complete(*receive, now) : ProcessId::none();
}

// An operation nobody waits for yet is only marked: its WAIT finds it done.
// One of a non-blocking collective's round counts down its round, whose
// end goes on through the replay's queue.
ProcessId MpiMatching::complete(OperationId op, Tick now) {
  Operation& o = operations_[op];
  if (!o.background.is_none()) {
    const BackgroundId id = o.background;
    operations_.release(op);
    if (--backgrounds_[id].pending == 0) transport_.continue_later(id.value(), now);
    return ProcessId::none();
  }
  if (!o.awaited) {
    o.done = true;
    return ProcessId::none();
  }
  const ProcessId p = o.process;
  operations_.release(op);
  return --processes_[p].blocked_on == 0 ? p : ProcessId::none();
}

}  // namespace ibsec::hosts
