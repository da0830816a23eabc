#include "hosts/mpi_matching.h"

#include <algorithm>
#include <stdexcept>

namespace ibsec::hosts {
namespace {

// A rendezvous control message carries no payload: its fields (the match
// information, the request's address) ride in the packet headers, so it is
// one header-only packet (docs/replay.md, "Eager and rendezvous sends").
constexpr uint64_t kControlBytes = 0;

}  // namespace

size_t MpiMatching::ChannelKeyHash::operator()(const ChannelKey& k) const noexcept {
  const uint64_t a = (uint64_t{k.source.value()} << 32) | k.destination.value();
  const uint64_t b = (uint64_t{k.tag} << 32) | k.context;
  return std::hash<uint64_t>{}(a * 0x9e3779b97f4a7c15ULL ^ (b + 0x7f4a7c159e3779b9ULL + (a << 6) + (a >> 2)));
}

MpiMatching::MpiMatching(IdVector<JobId, MpiJob> jobs, uint32_t mtu_bytes, uint64_t eager_limit_bytes,
                         CollectiveChoice collectives, MessageTransport& transport)
    : jobs_(std::move(jobs)),
      mtu_bytes_(mtu_bytes),
      eager_limit_bytes_(eager_limit_bytes),
      collectives_(std::move(collectives)),
      transport_(transport) {
  for (const JobId j : jobs_.ids()) {
    if (jobs_[j].first != processes_.next_id()) throw std::logic_error("matching: jobs' processes must be in order");
    for (uint32_t rank = 0; rank < jobs_[j].processes; ++rank) processes_.emplace_back().job = j;
  }
}

bool MpiMatching::begin(ProcessId p, const TraceEvent& e, Tick now) {
  MpiProcess& process = processes_[p];
  const ProcessId peer = jobs_[process.job].process(e.peer);
  const ChannelKey from_peer{peer, p, e.tag, 0};
  const ChannelKey to_peer{p, peer, e.tag, 0};
  switch (e.op) {
    case TraceOp::kCompute:
      throw std::logic_error("matching: a compute event is no communication");
    case TraceOp::kSend:
      send(p, peer, e.bytes, to_peer, true, now);
      return waits_for(p, 1);
    case TraceOp::kIsend:
      process.requests[e.request] = send(p, peer, e.bytes, to_peer, false, now);
      return true;
    case TraceOp::kRecv:
      if (post_receive(p, from_peer, true, now).is_none()) return true;
      return waits_for(p, 1);
    case TraceOp::kIrecv:
      process.requests[e.request] = post_receive(p, from_peer, false, now);
      return true;
    case TraceOp::kWait:
      return wait(p, e.request);
    default:
      return begin_collective(p, e, now);
  }
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
// communicator's collectives in the same order, so the numbers agree.
bool MpiMatching::begin_collective(ProcessId p, const TraceEvent& e, Tick now) {
  MpiProcess& process = processes_[p];
  const MpiJob& job = jobs_[process.job];
  const Communicator& comm = job.comms.at(e.comm);
  const uint32_t rank = p.value() - job.first.value();
  process.collective_comm = e.comm;
  process.collective_tag = process.collective_calls[e.comm]++;
  process.rounds = expand_collective(e.op, static_cast<uint32_t>(comm.members.size()), comm.position(rank),
                                     has_root(e.op) ? comm.position(e.root) : 0, e.bytes, collectives_);
  process.round = 0;
  return run_rounds(p, now);
}

// Runs the current collective's rounds from process.round on; true once
// every round is complete, false while one waits.
bool MpiMatching::run_rounds(ProcessId p, Tick now) {
  MpiProcess& process = processes_[p];
  for (; process.round < process.rounds.size(); ++process.round) {
    const uint32_t waiting = start_round(p, process.rounds[process.round], now);
    if (waiting > 0) return waits_for(p, waiting);
  }
  process.rounds.clear();
  return true;
}

// Posts the round's receives and hands over its sends; returns how many of
// them are still to complete.
uint32_t MpiMatching::start_round(ProcessId p, const CollectiveRound& round, Tick now) {
  const MpiProcess& process = processes_[p];
  const uint32_t comm = process.collective_comm;
  const uint32_t tag = process.collective_tag;
  uint32_t waiting = 0;
  for (const Transfer& r : round.receives) {
    const ChannelKey key{member(p, comm, r.peer), p, tag, comm + 1};
    if (!post_receive(p, key, true, now).is_none()) ++waiting;
  }
  for (const Transfer& s : round.sends) {
    const ProcessId to = member(p, comm, s.peer);
    send(p, to, s.bytes, ChannelKey{p, to, tag, comm + 1}, true, now);
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
MpiMatching::OperationId MpiMatching::send(ProcessId p, ProcessId to, uint64_t bytes, const ChannelKey& key,
                                           bool awaited, Tick now) {
  const OperationId op = operations_.acquire(Operation{p, false, awaited});
  if (bytes <= eager_limit_bytes_) {
    carry(Message{key, Carries::kEager, RendezvousId::none(), op, packets_for(bytes)}, p, to, bytes, now);
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
  ++messages_sent_;
}

// A request to send goes from the sender to the receiver, the answer back.
void MpiMatching::carry_control(Carries carries, RendezvousId r, Tick now) {
  const ChannelKey& key = rendezvous_[r].key;
  const bool request = carries == Carries::kRequestToSend;
  carry(Message{key, carries, r, OperationId::none(), packets_for(kControlBytes)},
        request ? key.source : key.destination, request ? key.destination : key.source, kControlBytes, now);
  ++control_messages_;
}

// A posted receive takes the oldest arrival on its channel: an eager message
// completes it at once, a request to send is answered now. With nothing
// there, it waits for its message.
MpiMatching::OperationId MpiMatching::post_receive(ProcessId p, const ChannelKey& key, bool awaited, Tick now) {
  Channel& channel = channels_[key];
  if (channel.arrivals.empty()) {
    const OperationId op = operations_.acquire(Operation{p, false, awaited});
    channel.receives.push_back(op);
    return op;
  }
  const RendezvousId r = channel.arrivals.front();
  channel.arrivals.pop_front();
  if (channel.arrivals.empty() && channel.receives.empty()) channels_.erase(key);
  if (r.is_none()) return OperationId::none();
  const OperationId op = operations_.acquire(Operation{p, false, awaited});
  clear_to_send(r, op, now);
  return op;
}

ProcessId MpiMatching::message_sent(uint32_t message) {
  Message& m = messages_[message];
  m.sent = true;
  const OperationId op = m.send_op;
  if (m.packets_left == 0) messages_.release(message);
  return op.is_none() ? ProcessId::none() : complete(op);
}

MpiMatching::Delivery MpiMatching::packet_delivered(uint32_t message, Tick now) {
  Message& m = messages_[message];
  if (--m.packets_left > 0) return {};
  const Message whole = m;
  if (whole.sent) messages_.release(message);
  switch (whole.carries) {
    case Carries::kEager:
      return {whole.key.destination, arrived(whole.key)};
    case Carries::kRequestToSend:
      request_arrived(whole.rendezvous, now);
      return {};
    case Carries::kClearToSend:
      send_data(whole.rendezvous, now);
      return {};
    case Carries::kRendezvousData:
      return data_arrived(whole.rendezvous);
  }
  return {};
}

// The whole message is there: it completes the oldest receive posted for it,
// or waits for one.
ProcessId MpiMatching::arrived(const ChannelKey& key) {
  const auto found = channels_.find(key);
  if (found == channels_.end() || found->second.receives.empty()) {
    channels_[key].arrivals.push_back(RendezvousId::none());
    return ProcessId::none();
  }
  return complete(pop_receive(found));
}

MpiMatching::OperationId MpiMatching::pop_receive(Channels::iterator channel) {
  const OperationId op = channel->second.receives.front();
  channel->second.receives.pop_front();
  if (channel->second.receives.empty() && channel->second.arrivals.empty()) channels_.erase(channel);
  return op;
}

// A request to send meets the oldest receive posted on its channel and is
// answered at once (the library answers without the process's CPU), or it
// waits for its receive as an early message would.
void MpiMatching::request_arrived(RendezvousId r, Tick now) {
  const ChannelKey key = rendezvous_[r].key;
  const auto found = channels_.find(key);
  if (found == channels_.end() || found->second.receives.empty()) {
    channels_[key].arrivals.push_back(r);
    return;
  }
  clear_to_send(r, pop_receive(found), now);
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

MpiMatching::Delivery MpiMatching::data_arrived(RendezvousId r) {
  const Rendezvous rv = rendezvous_[r];
  rendezvous_.release(r);
  return {rv.key.destination, complete(rv.receive_op)};
}

// An operation nobody waits for yet is only marked: its WAIT finds it done.
ProcessId MpiMatching::complete(OperationId op) {
  Operation& o = operations_[op];
  if (!o.awaited) {
    o.done = true;
    return ProcessId::none();
  }
  const ProcessId p = o.process;
  operations_.release(op);
  return --processes_[p].blocked_on == 0 ? p : ProcessId::none();
}

}  // namespace ibsec::hosts
