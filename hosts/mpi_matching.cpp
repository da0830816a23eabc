#include "hosts/mpi_matching.h"

#include <algorithm>
#include <stdexcept>

#include "hosts/vector_collectives.h"

namespace ibsec::hosts {
namespace {

// A rendezvous control message carries no payload: its fields (the match
// information, the request's address) ride in the packet headers, so it is
// one header-only packet (docs/replay.md, "Eager and rendezvous sends").
constexpr uint64_t kControlBytes = 0;

}  // namespace

MpiMatching::MpiMatching(IdVector<JobId, MpiJob> jobs, uint32_t mtu_bytes, uint64_t eager_limit_bytes,
                         CollectiveChoice collectives, MessageTransport& transport, bool rematch_wildcards)
    : jobs_(std::move(jobs)),
      mtu_bytes_(mtu_bytes),
      eager_limit_bytes_(eager_limit_bytes),
      collectives_(std::move(collectives)),
      transport_(transport),
      queues_(rematch_wildcards) {
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
    ++application_messages_;
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
    op = post_receive(AnySourceKey{p, e.tag, user_context(e.comm)}, blocks ? blocking : nonblocking, now);
  } else {
    op = post_receive(ChannelKey{peer, p, e.tag, user_context(e.comm)}, blocks ? blocking : nonblocking, now);
  }
  if (blocks) return op.is_none() || waits_for(p, 1);
  process.requests[e.request] = op;
  return true;
}

uint64_t MpiMatching::collective_calls() const {
  uint64_t calls = 0;
  for (const uint64_t n : collective_calls_) calls += n;
  return calls;
}

// The message is in the channel at once, whatever its size (a copy needs no
// rendezvous); a receive the process posted before is complete (it cannot be
// waiting: the process is sending).
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
  ++collective_calls_[static_cast<size_t>(e.op)];
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
  return expand_collective(op, size, rank, root, e.bytes, collectives_);
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
    if (!post_receive(key, kind, now).is_none()) ++waiting;
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

uint32_t MpiMatching::packets_for(uint64_t bytes) const {
  return std::max<uint32_t>(1, static_cast<uint32_t>((bytes + mtu_bytes_ - 1) / mtu_bytes_));
}

// At most the eager limit, the data goes at once; above it, a request to
// send goes first and the data waits for the receiver's answer.
MpiMatching::OperationId MpiMatching::send(ProcessId to, uint64_t bytes, const ChannelKey& key, const Operation& kind,
                                           Tick now) {
  const OperationId op = operations_.acquire(kind);
  if (bytes <= eager_limit_bytes_) {
    carry(Message{key, Carries::kEager, RendezvousId::none(), op, packets_for(bytes)}, key.source, to, bytes, now);
    return op;
  }
  const RendezvousId r = rendezvous_.acquire(Rendezvous{key, bytes, op, OperationId::none()});
  ++rendezvous_sends_;
  carry_control(Carries::kRequestToSend, r, now);
  return op;
}

void MpiMatching::carry(const Message& m, ProcessId from, ProcessId to, uint64_t bytes, Tick now) {
  const uint32_t message = messages_.acquire(m);
  transport_.carry(OutgoingMessage{from, to, bytes, m.packets_left, message}, now);
  ++network_messages_;
}

// A request to send goes from the sender to the receiver, the answer back.
void MpiMatching::carry_control(Carries carries, RendezvousId r, Tick now) {
  const ChannelKey& key = rendezvous_[r].key;
  const bool request = carries == Carries::kRequestToSend;
  carry(Message{key, carries, r, OperationId::none(), packets_for(kControlBytes)},
        request ? key.source : key.destination, request ? key.destination : key.source, kControlBytes, now);
  ++control_messages_;
}

// A posted receive takes the oldest arrival it matches (on its channel, or
// from any source for a wildcard): an eager message completes it at once, a
// request to send is answered now. With nothing there, it waits.
template <typename Key>
MpiMatching::OperationId MpiMatching::post_receive(const Key& key, const Operation& kind, Tick now) {
  const std::optional<RendezvousId> arrival = queues_.take_unexpected(key);
  if (arrival) return receive_arrival(arrival, kind, now);
  const OperationId op = operations_.acquire(kind);
  queues_.post(key, op);
  return op;
}

// A receive meets what arrived before it: none if that was a whole (eager)
// message, else the receive, waiting for the data its answer asks for.
MpiMatching::OperationId MpiMatching::receive_arrival(std::optional<RendezvousId> arrival, const Operation& kind,
                                                      Tick now) {
  if (arrival->is_none()) return OperationId::none();
  const OperationId op = operations_.acquire(kind);
  clear_to_send(*arrival, op, now);
  return op;
}

ProcessId MpiMatching::message_sent(uint32_t message, Tick now) {
  Message& m = messages_[message];
  m.sent = true;
  const OperationId op = m.send_op;
  if (m.packets_left == 0) messages_.release(message);
  return op.is_none() ? ProcessId::none() : complete(op, now);
}

MpiMatching::Delivery MpiMatching::packet_delivered(uint32_t message, Tick now) {
  Message& m = messages_[message];
  if (--m.packets_left > 0) return {};
  const Message whole = m;
  if (whole.sent) messages_.release(message);
  switch (whole.carries) {
    case Carries::kEager:
      return {whole.key.destination, arrived(whole.key, now)};
    case Carries::kRequestToSend:
      request_arrived(whole.rendezvous, now);
      return {};
    case Carries::kClearToSend:
      send_data(whole.rendezvous, now);
      return {};
    case Carries::kRendezvousData:
      return data_arrived(whole.rendezvous, now);
  }
  return {};
}

// The whole message is there: it completes the oldest receive posted for it,
// or waits for one.
ProcessId MpiMatching::arrived(const ChannelKey& key, Tick now) {
  const std::optional<OperationId> receive = queues_.arrive(key, RendezvousId::none());
  return receive ? complete(*receive, now) : ProcessId::none();
}

// A request to send meets the oldest receive posted for it and is answered
// at once (the library answers without the process's CPU), or it waits for
// its receive as an early message would.
void MpiMatching::request_arrived(RendezvousId r, Tick now) {
  const std::optional<OperationId> receive = queues_.arrive(rendezvous_[r].key, r);
  if (receive) clear_to_send(r, *receive, now);
}

void MpiMatching::clear_to_send(RendezvousId r, OperationId receive, Tick now) {
  rendezvous_[r].receive_op = receive;
  carry_control(Carries::kClearToSend, r, now);
}

// The answer is back: the data goes, already matched to its receive.
void MpiMatching::send_data(RendezvousId r, Tick now) {
  const Rendezvous& rv = rendezvous_[r];
  carry(Message{rv.key, Carries::kRendezvousData, r, rv.send_op, packets_for(rv.bytes)}, rv.key.source,
        rv.key.destination, rv.bytes, now);
}

MpiMatching::Delivery MpiMatching::data_arrived(RendezvousId r, Tick now) {
  const Rendezvous rv = rendezvous_[r];
  rendezvous_.release(r);
  return {rv.key.destination, complete(rv.receive_op, now)};
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
