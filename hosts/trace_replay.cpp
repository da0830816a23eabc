#include "hosts/trace_replay.h"

#include <algorithm>
#include <stdexcept>

#include "traces/trace_writer.h"

namespace ibsec::hosts {
namespace {

constexpr Tick ticks(uint64_t ns) { return ns * kTicksPerNs; }

}  // namespace

size_t TraceReplay::ChannelKeyHash::operator()(const ChannelKey& k) const noexcept {
  const uint64_t a = (uint64_t{k.source} << 32) | k.destination;
  const uint64_t b = (uint64_t{k.tag} << 32) | k.context;
  return std::hash<uint64_t>{}(a * 0x9e3779b97f4a7c15ULL ^ (b + 0x7f4a7c159e3779b9ULL + (a << 6) + (a >> 2)));
}

TraceReplay::TraceReplay(const sc_core::sc_module_name& name, KernelCounters& counters,
                         std::vector<std::unique_ptr<TraceReader>> jobs, std::vector<nic::Cic*> cards,
                         uint32_t mtu_bytes, const schedulers::SchedulerParams& scheduling, DeliverySink& sink)
    : HostModel(name, counters), cards_(std::move(cards)), mtu_bytes_(mtu_bytes), sink_(sink) {
  const auto nodes = static_cast<uint32_t>(cards_.size());
  std::vector<schedulers::ProcessPlacement> placement;
  for (auto& reader : jobs) {
    Job& job = jobs_.emplace_back();
    job.comms = reader->communicators();
    job.first_process = static_cast<uint32_t>(processes_.size());
    job.reader = std::move(reader);
    const auto j = static_cast<uint32_t>(jobs_.size() - 1);
    for (uint32_t rank = 0; rank < job.reader->header().processes; ++rank) {
      Process& process = processes_.emplace_back();
      process.job = j;
      process.node = rank % nodes;
      placement.push_back({NodeId(process.node), JobId(j)});
    }
  }
  scheduler_ = schedulers::SchedulerRegistry::get(scheduling.policy).make(scheduling, std::move(placement), nodes);
  scheduler_->attach(*this);
}

TraceReplay::~TraceReplay() = default;

void TraceReplay::start_of_simulation() { scheduler_->start(0); }

void TraceReplay::handle(const ModuleEvent& event) {
  const uint32_t kind = event.kind & ((1U << kKindBits) - 1);
  if (kind == kSchedulerTimer) {
    scheduler_->timer(TimerId(event.arg), event.at);
    return;
  }
  const uint32_t p = event.arg;
  if (event.kind >> kKindBits != (processes_[p].generation & (UINT32_MAX >> kKindBits))) return;  // stale
  switch (kind) {
    case kDispatched:
      dispatched(p, event.at);
      break;
    case kWorkDone:
      work_done(p, event.at);
      break;
    case kResume:
      if (processes_[p].resume_pending) resume(p, event.at);
      break;
    default:
      break;
  }
}

void TraceReplay::schedule_for(uint32_t p, Tick at, EventKind kind) {
  schedule(at, kind | (processes_[p].generation << kKindBits), p);
}

void TraceReplay::dispatch(ProcessId process, Tick at) {
  const uint32_t p = process.value();
  ++processes_[p].generation;
  schedule_for(p, at, kDispatched);
}

// A preempted process keeps what is left of its stretch of CPU time.
void TraceReplay::preempt(ProcessId p, Tick now) {
  Process& process = processes_[p.value()];
  ++process.generation;
  if (!process.on_cpu) return;
  process.on_cpu = false;
  if (process.working) process.work_left -= std::min(process.work_left, now - std::min(now, process.cpu_since));
}

void TraceReplay::set_timer(Tick at, TimerId timer) { schedule(at, kSchedulerTimer, timer.value()); }

// The process holds its CPU from now on: it picks up where it stopped.
void TraceReplay::dispatched(uint32_t p, Tick now) {
  Process& process = processes_[p];
  process.on_cpu = true;
  process.cpu_since = now;
  if (process.working) {
    if (process.work_left > 0) {
      schedule_for(p, now + process.work_left, kWorkDone);
    } else {
      work_done(p, now);
    }
  } else if (process.resume_pending) {
    resume(p, now);
  } else if (process.blocked_on == 0) {
    run(p, now);  // its first dispatch
  }
  // Otherwise it still waits for communication (the scheduler knows).
}

void TraceReplay::start_work(uint32_t p, Tick duration, AfterWork after, Tick now) {
  Process& process = processes_[p];
  process.working = true;
  process.work_left = duration;
  process.after_work = after;
  schedule_for(p, now + duration, kWorkDone);
}

void TraceReplay::work_done(uint32_t p, Tick now) {
  Process& process = processes_[p];
  process.working = false;
  process.work_left = 0;
  if (process.after_work == AfterWork::kBeginNext && !begin(p, now)) return;
  finish_current(p);
  run(p, now);
}

// A collective goes on with its next round; anything else is complete.
void TraceReplay::resume(uint32_t p, Tick now) {
  Process& process = processes_[p];
  process.resume_pending = false;
  if (is_collective(process.current->op)) {
    ++process.round;
    if (!start_round(p, now)) return;
  }
  finish_current(p);
  run(p, now);
}

void TraceReplay::wait_for(uint32_t p, uint32_t operations, Tick now) {
  processes_[p].blocked_on = operations;
  scheduler_->waiting(ProcessId(p), now);
}

// Reads ahead in p's trace until p has an event waiting, or the trace ends.
bool TraceReplay::fetch(uint32_t p) {
  Job& job = jobs_[processes_[p].job];
  TraceEvent event;
  while (processes_[p].ahead.empty() && !job.exhausted) {
    if (job.reader->next(event)) {
      processes_[job.first_process + event.rank].ahead.push_back(event);
    } else {
      job.exhausted = true;
    }
  }
  return !processes_[p].ahead.empty();
}

// Begins p's events one after another for as long as they complete at once;
// stops at a gap (CPU time), a wait, or the end of p's stream.
void TraceReplay::run(uint32_t p, Tick now) {
  Process& process = processes_[p];
  if (!process.on_cpu) throw std::logic_error("replay: process " + std::to_string(p) + " advances without a CPU");
  while (true) {
    if (!fetch(p)) {
      process.done = true;
      process.completed_at = now;
      scheduler_->exited(ProcessId(p), now);
      if (++processes_done_ == processes_.size()) sink_.on_sources_done(now);
      return;
    }
    const uint64_t gap = process.ahead.front().start_ns - process.previous_end_ns;
    if (gap > 0) {
      start_work(p, ticks(gap), AfterWork::kBeginNext, now);
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
  const uint32_t first = jobs_[process.job].first_process;
  const TraceEvent& e = process.current.emplace(process.ahead.front());
  process.ahead.pop_front();
  process.original_first_start_ns = std::min(process.original_first_start_ns, e.start_ns);
  const uint32_t peer = first + e.peer;
  const ChannelKey from_peer{peer, p, e.tag, 0};
  const ChannelKey to_peer{p, peer, e.tag, 0};
  switch (e.op) {
    case TraceOp::kCompute:
      if (e.end_ns == e.start_ns) return true;
      start_work(p, ticks(e.end_ns - e.start_ns), AfterWork::kFinishCompute, now);
      return false;
    case TraceOp::kSend:
      send(p, peer, e.bytes, to_peer, true, now);
      wait_for(p, 1, now);
      return false;
    case TraceOp::kIsend:
      process.requests[e.request] = send(p, peer, e.bytes, to_peer, false, now);
      return true;
    case TraceOp::kRecv:
      if (post_receive(p, from_peer, true) == kNone) return true;
      wait_for(p, 1, now);
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
        operations_.release(op);
        return true;
      }
      operations_[op].awaited = true;
      wait_for(p, 1, now);
      return false;
    }
    default:
      break;
  }
  const Communicator& comm = communicator(p, e.comm);
  const uint32_t rank = p - first;
  process.collective_tag = process.collective_calls[e.comm]++;
  process.rounds = expand_collective(e.op, static_cast<uint32_t>(comm.members.size()), comm.position(rank),
                                     has_root(e.op) ? comm.position(e.root) : 0, e.bytes);
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
      const ChannelKey key{world_rank(p, comm, r.peer), p, process.collective_tag, context};
      if (post_receive(p, key, true) != kNone) ++waiting;
    }
    for (const Transfer& s : round.sends) {
      const uint32_t to = world_rank(p, comm, s.peer);
      send(p, to, s.bytes, ChannelKey{p, to, process.collective_tag, context}, true, now);
      ++collective_messages_;
      ++waiting;
    }
    if (waiting > 0) {
      wait_for(p, waiting, now);
      return false;
    }
  }
  process.rounds.clear();
  return true;
}

const Communicator& TraceReplay::communicator(uint32_t p, uint32_t comm) const {
  return jobs_[processes_[p].job].comms.at(comm);
}

uint32_t TraceReplay::world_rank(uint32_t p, uint32_t comm, uint32_t comm_rank) const {
  return jobs_[processes_[p].job].first_process + communicator(p, comm).members[comm_rank];
}

uint32_t TraceReplay::new_operation(uint32_t p, bool awaited) {
  return operations_.acquire(Operation{p, false, awaited});
}

uint32_t TraceReplay::send(uint32_t p, uint32_t to, uint64_t bytes, const ChannelKey& key, bool awaited, Tick now) {
  const uint32_t op = new_operation(p, awaited);
  const uint32_t packets = std::max<uint32_t>(1, static_cast<uint32_t>((bytes + mtu_bytes_ - 1) / mtu_bytes_));
  const uint32_t slot = messages_.acquire(Message{key, op, packets});
  const nic::MessageRequest request{p, to, NodeId(processes_[to].node), static_cast<uint32_t>(bytes), slot, true};
  sink_.on_handover(request, packets, now);
  cards_[processes_[p].node]->submit(request, now);
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

// The process goes on through the module's own queue at the same instant, so
// a card calling back never sees the process start a new call inside its own
// pipeline step; one off its CPU goes on when it is next dispatched.
void TraceReplay::operation_done(uint32_t op, Tick now) {
  Operation& o = operations_[op];
  if (!o.awaited) {
    o.done = true;
    return;
  }
  const uint32_t p = o.process;
  operations_.release(op);
  Process& process = processes_[p];
  if (--process.blocked_on > 0) return;
  process.resume_pending = true;
  scheduler_->wait_over(ProcessId(p), now);
  if (process.on_cpu) schedule_for(p, now, kResume);
}

void TraceReplay::on_message_sent(uint32_t message, Tick now) {
  Message& m = messages_[message];
  const uint32_t op = m.send_op;
  m.send_op = kNone;
  if (m.packets_left == 0) messages_.release(message);
  operation_done(op, now);
}

void TraceReplay::on_packet_delivered(const network::Packet& packet, Tick now) {
  sink_.on_delivered(packet, now);
  Message& m = messages_[packet.message];
  if (--m.packets_left > 0) return;
  const ChannelKey key = m.key;
  if (m.send_op == kNone) messages_.release(packet.message);
  scheduler_->message_arrived(ProcessId(key.destination), now);
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

namespace {

// Original (trace) span and simulated completion of a group of processes.
struct Span {
  uint64_t first_start_ns = UINT64_MAX;
  uint64_t last_end_ns = 0;
  Tick completed_at = 0;
  bool completed = true;
  [[nodiscard]] double original_ns() const {
    return first_start_ns == UINT64_MAX ? 0.0 : static_cast<double>(last_end_ns - first_start_ns);
  }
};

}  // namespace

nlohmann::ordered_json TraceReplay::report() const {
  nlohmann::ordered_json per_process = nlohmann::ordered_json::array();
  std::vector<Span> job_spans(jobs_.size());
  Span all;
  for (uint32_t p = 0; p < processes_.size(); ++p) {
    const Process& process = processes_[p];
    for (Span* span : {&job_spans[process.job], &all}) {
      span->completed_at = std::max(span->completed_at, process.completed_at);
      span->completed = span->completed && process.done;
      if (process.original_first_start_ns == UINT64_MAX) continue;
      span->first_start_ns = std::min(span->first_start_ns, process.original_first_start_ns);
      span->last_end_ns = std::max(span->last_end_ns, process.original_last_end_ns);
    }
    per_process.push_back({{"process", p},
                           {"job", process.job},
                           {"rank", p - jobs_[process.job].first_process},
                           {"node", process.node},
                           {"completed", process.done},
                           {"completion_time_ns", ns_from_ticks(process.completed_at)},
                           {"original_end_ns", process.original_last_end_ns}});
  }
  nlohmann::ordered_json jobs = nlohmann::ordered_json::array();
  double completion_sum = 0;
  for (uint32_t j = 0; j < jobs_.size(); ++j) {
    const Span& span = job_spans[j];
    completion_sum += ns_from_ticks(span.completed_at);
    jobs.push_back({{"job", j},
                    {"trace", jobs_[j].reader->path()},
                    {"processes", jobs_[j].reader->header().processes},
                    {"completed", span.completed},
                    {"completion_time_ns", ns_from_ticks(span.completed_at)},
                    {"original_execution_time_ns", span.original_ns()}});
  }
  const double original = all.original_ns();
  nlohmann::ordered_json doc;
  doc["trace"] = jobs_.size() == 1 ? nlohmann::ordered_json(jobs_[0].reader->path()) : nlohmann::ordered_json(nullptr);
  doc["processes"] = processes_.size();
  doc["completed"] = finished();
  doc["original_execution_time_ns"] = original;
  doc["simulated_execution_time_ns"] = ns_from_ticks(all.completed_at);
  doc["simulated_over_original"] = original > 0 ? ns_from_ticks(all.completed_at) / original : 0.0;
  doc["mean_job_completion_time_ns"] = jobs_.empty() ? 0.0 : completion_sum / static_cast<double>(jobs_.size());
  doc["messages"] = messages_sent_;
  doc["collective_messages"] = collective_messages_;
  doc["jobs"] = jobs;
  doc["per_process"] = per_process;
  return doc;
}

std::string TraceReplay::stall_report() const {
  std::string text;
  for (uint32_t p = 0; p < processes_.size(); ++p) {
    const Process& process = processes_[p];
    if (process.done) continue;
    text += jobs_.size() == 1 ? "  rank " + std::to_string(p) + ": "
                              : "  job " + std::to_string(process.job) + " rank " +
                                    std::to_string(p - jobs_[process.job].first_process) + ": ";
    text += process.current ? "waits in '" + format_event(*process.current) + "'" : std::string("has not begun");
    if (process.current && is_collective(process.current->op)) {
      text += " (round " + std::to_string(process.round + 1) + " of " + std::to_string(process.rounds.size()) + ")";
    }
    text += "\n";
  }
  return text;
}

}  // namespace ibsec::hosts
