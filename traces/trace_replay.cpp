#include "traces/trace_replay.h"

#include <algorithm>

#include "traces/trace_writer.h"

namespace ibsec::traces {
namespace {

constexpr Tick ticks(uint64_t ns) { return ns * kTicksPerNs; }

}  // namespace

size_t TraceReplay::ChannelKeyHash::operator()(const ChannelKey& k) const noexcept {
  const uint64_t a = (uint64_t{k.source} << 32) | k.destination;
  const uint64_t b = (uint64_t{k.tag} << 32) | k.context;
  return std::hash<uint64_t>{}(a * 0x9e3779b97f4a7c15ULL ^ (b + 0x7f4a7c159e3779b9ULL + (a << 6) + (a >> 2)));
}

TraceReplay::TraceReplay(const sc_core::sc_module_name& name, sim::KernelCounters& counters,
                         std::unique_ptr<TraceReader> reader, std::vector<nic::Cic*> cards, uint32_t mtu_bytes,
                         DeliverySink& sink)
    : HostModel(name, counters),
      reader_(std::move(reader)),
      comms_(reader_->communicators()),
      cards_(std::move(cards)),
      mtu_bytes_(mtu_bytes),
      sink_(sink),
      processes_(reader_->header().processes) {}

TraceReplay::~TraceReplay() = default;

void TraceReplay::start_of_simulation() {
  for (uint32_t p = 0; p < processes_.size(); ++p) schedule(0, kStart, p);
}

void TraceReplay::handle(const sim::ModuleEvent& event) {
  const uint32_t p = event.arg;
  const Tick now = event.at;
  switch (event.kind) {
    case kStart:
      run(p, now);
      break;
    case kBegin:
      if (!begin(p, now)) return;
      finish_current(p);
      run(p, now);
      break;
    case kResume:
      // A collective goes on with its next round; anything else is complete.
      if (is_collective(processes_[p].current->op)) {
        ++processes_[p].round;
        if (!start_round(p, now)) return;
      }
      finish_current(p);
      run(p, now);
      break;
    case kComputeDone:
      finish_current(p);
      run(p, now);
      break;
    default:
      break;
  }
}

// Reads ahead until process p has an event waiting, or the trace ends.
bool TraceReplay::fetch(uint32_t p) {
  TraceEvent event;
  while (processes_[p].ahead.empty() && !trace_exhausted_) {
    if (reader_->next(event)) {
      processes_[event.rank].ahead.push_back(event);
    } else {
      trace_exhausted_ = true;
    }
  }
  return !processes_[p].ahead.empty();
}

// Begins p's events one after another for as long as they complete at once;
// stops at a gap, a blocking call, or the end of p's stream.
void TraceReplay::run(uint32_t p, Tick now) {
  Process& process = processes_[p];
  while (true) {
    if (!fetch(p)) {
      process.done = true;
      process.completed_at = now;
      if (++processes_done_ == processes_.size()) sink_.on_sources_done(now);
      return;
    }
    const uint64_t gap = process.ahead.front().start_ns - process.previous_end_ns;
    if (gap > 0) {
      schedule(now + ticks(gap), kBegin, p);
      return;
    }
    if (!begin(p, now)) return;
    finish_current(p);
  }
}

void TraceReplay::finish_current(uint32_t p) {
  Process& process = processes_[p];
  process.previous_end_ns = process.current->end_ns;
  process.original_last_end_ns = process.current->end_ns;
  process.current.reset();
}

// Starts the next event of p; true if it completed at once.
bool TraceReplay::begin(uint32_t p, Tick now) {
  Process& process = processes_[p];
  const TraceEvent& e = process.current.emplace(process.ahead.front());
  process.ahead.pop_front();
  process.original_first_start_ns = std::min(process.original_first_start_ns, e.start_ns);
  const ChannelKey from_peer{e.peer, p, e.tag, 0};
  const ChannelKey to_peer{p, e.peer, e.tag, 0};
  switch (e.op) {
    case TraceOp::kCompute:
      if (e.end_ns == e.start_ns) return true;
      schedule(now + ticks(e.end_ns - e.start_ns), kComputeDone, p);
      return false;
    case TraceOp::kSend:
      send(p, e.peer, e.bytes, to_peer, true, now);
      process.blocked_on = 1;
      return false;
    case TraceOp::kIsend:
      process.requests[e.request] = send(p, e.peer, e.bytes, to_peer, false, now);
      return true;
    case TraceOp::kRecv:
      if (post_receive(p, from_peer, true) == kNone) return true;
      process.blocked_on = 1;
      return false;
    case TraceOp::kIrecv:
      process.requests[e.request] = post_receive(p, from_peer, false);
      return true;
    case TraceOp::kWait: {
      const auto found = process.requests.find(e.request);
      const uint32_t op = found->second;
      process.requests.erase(found);
      if (op == kNone) return true;
      if (operations_[op].done) {
        free_operations_.push_back(op);
        return true;
      }
      operations_[op].awaited = true;
      process.blocked_on = 1;
      return false;
    }
    default:
      break;
  }
  const Communicator& comm = comms_.at(e.comm);
  process.collective_tag = process.collective_calls[e.comm]++;
  process.rounds = expand_collective(e.op, static_cast<uint32_t>(comm.members.size()),
                                     comm.position(p), has_root(e.op) ? comm.position(e.root) : 0, e.bytes);
  process.round = 0;
  return start_round(p, now);
}

// Runs the current collective's rounds from process.round on; true once
// every round is complete, false while one waits.
bool TraceReplay::start_round(uint32_t p, Tick now) {
  Process& process = processes_[p];
  const uint32_t comm = process.current->comm;
  const uint32_t context = comm + 1;
  for (; process.round < process.rounds.size(); ++process.round) {
    const CollectiveRound& round = process.rounds[process.round];
    uint32_t waiting = 0;
    for (const Transfer& r : round.receives) {
      const ChannelKey key{world_rank(comm, r.peer), p, process.collective_tag, context};
      if (post_receive(p, key, true) != kNone) ++waiting;
    }
    for (const Transfer& s : round.sends) {
      const uint32_t to = world_rank(comm, s.peer);
      send(p, to, s.bytes, ChannelKey{p, to, process.collective_tag, context}, true, now);
      ++collective_messages_;
      ++waiting;
    }
    if (waiting > 0) {
      process.blocked_on = waiting;
      return false;
    }
  }
  process.rounds.clear();
  return true;
}

uint32_t TraceReplay::world_rank(uint32_t comm, uint32_t comm_rank) const { return comms_.at(comm).members[comm_rank]; }

uint32_t TraceReplay::new_operation(uint32_t p, bool awaited) {
  uint32_t op = 0;
  if (free_operations_.empty()) {
    op = static_cast<uint32_t>(operations_.size());
    operations_.emplace_back();
  } else {
    op = free_operations_.back();
    free_operations_.pop_back();
  }
  operations_[op] = Operation{p, false, awaited};
  return op;
}

uint32_t TraceReplay::send(uint32_t p, uint32_t to, uint64_t bytes, const ChannelKey& key, bool awaited, Tick now) {
  const uint32_t op = new_operation(p, awaited);
  uint32_t slot = 0;
  if (free_messages_.empty()) {
    slot = static_cast<uint32_t>(messages_.size());
    messages_.emplace_back();
  } else {
    slot = free_messages_.back();
    free_messages_.pop_back();
  }
  const auto nodes = static_cast<uint32_t>(cards_.size());
  const uint32_t packets = std::max<uint32_t>(1, static_cast<uint32_t>((bytes + mtu_bytes_ - 1) / mtu_bytes_));
  messages_[slot] = Message{key, op, packets};
  const nic::MessageRequest request{p, to, NodeId(to % nodes), static_cast<uint32_t>(bytes), slot, true};
  sink_.on_handover(request, packets, now);
  cards_[p % nodes]->submit(request, now);
  ++messages_sent_;
  return op;
}

// kNone when a message was already waiting (the receive is complete).
uint32_t TraceReplay::post_receive(uint32_t p, const ChannelKey& key, bool awaited) {
  Channel& channel = channels_[key];
  if (channel.unexpected > 0) {
    if (--channel.unexpected == 0 && channel.posted.empty()) channels_.erase(key);
    return kNone;
  }
  const uint32_t op = new_operation(p, awaited);
  channel.posted.push_back(op);
  return op;
}

// Completions are handed back through the module's own queue at the same
// instant, so a card calling back never sees the process start a new call
// inside its own pipeline step.
void TraceReplay::operation_done(uint32_t op, Tick now) {
  Operation& o = operations_[op];
  if (!o.awaited) {
    o.done = true;
    return;
  }
  const uint32_t p = o.process;
  free_operations_.push_back(op);
  if (--processes_[p].blocked_on == 0) schedule(now, kResume, p);
}

void TraceReplay::on_message_sent(uint32_t message, Tick now) {
  Message& m = messages_[message];
  const uint32_t op = m.send_op;
  m.send_op = kNone;
  if (m.packets_left == 0) free_messages_.push_back(message);
  operation_done(op, now);
}

void TraceReplay::on_packet_delivered(const network::Packet& packet, Tick now) {
  sink_.on_delivered(packet, now);
  Message& m = messages_[packet.message];
  if (--m.packets_left > 0) return;
  const ChannelKey key = m.key;
  if (m.send_op == kNone) free_messages_.push_back(packet.message);
  const auto found = channels_.find(key);
  if (found == channels_.end() || found->second.posted.empty()) {
    ++channels_[key].unexpected;
    return;
  }
  Channel& channel = found->second;
  const uint32_t op = channel.posted.front();
  channel.posted.pop_front();
  if (channel.posted.empty() && channel.unexpected == 0) channels_.erase(found);
  operation_done(op, now);
}

nlohmann::ordered_json TraceReplay::report() const {
  nlohmann::ordered_json per_process = nlohmann::ordered_json::array();
  Tick simulated = 0;
  uint64_t first_start = UINT64_MAX;
  uint64_t last_end = 0;
  const auto nodes = static_cast<uint32_t>(cards_.size());
  for (uint32_t p = 0; p < processes_.size(); ++p) {
    const Process& process = processes_[p];
    simulated = std::max(simulated, process.completed_at);
    if (process.original_first_start_ns != UINT64_MAX) {
      first_start = std::min(first_start, process.original_first_start_ns);
      last_end = std::max(last_end, process.original_last_end_ns);
    }
    per_process.push_back({{"rank", p},
                           {"node", p % nodes},
                           {"completed", process.done},
                           {"completion_time_ns", ns_from_ticks(process.completed_at)},
                           {"original_end_ns", process.original_last_end_ns}});
  }
  const double original = first_start == UINT64_MAX ? 0.0 : static_cast<double>(last_end - first_start);
  nlohmann::ordered_json doc;
  doc["trace"] = reader_->path();
  doc["processes"] = processes_.size();
  doc["completed"] = finished();
  doc["original_execution_time_ns"] = original;
  doc["simulated_execution_time_ns"] = ns_from_ticks(simulated);
  doc["simulated_over_original"] = original > 0 ? ns_from_ticks(simulated) / original : 0.0;
  doc["messages"] = messages_sent_;
  doc["collective_messages"] = collective_messages_;
  doc["per_process"] = per_process;
  return doc;
}

std::string TraceReplay::stall_report() const {
  std::string text;
  for (uint32_t p = 0; p < processes_.size(); ++p) {
    const Process& process = processes_[p];
    if (process.done) continue;
    text += "  rank " + std::to_string(p) + ": ";
    text += process.current ? "waits in '" + format_event(*process.current) + "'" : std::string("has not begun");
    if (process.current && is_collective(process.current->op)) {
      text += " (round " + std::to_string(process.round + 1) + " of " + std::to_string(process.rounds.size()) + ")";
    }
    text += "\n";
  }
  return text;
}

}  // namespace ibsec::traces
