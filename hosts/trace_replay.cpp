#include "hosts/trace_replay.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/errors.h"
#include "hosts/placement.h"
#include "traces/trace_writer.h"

namespace ibsec::hosts {
namespace {

constexpr Tick ticks(uint64_t ns) { return ns * kTicksPerNs; }

}  // namespace

TraceReplay::TraceReplay(const sc_core::sc_module_name& name, EventKernel& kernel,
                         std::vector<std::unique_ptr<TraceReader>> jobs, std::vector<nic::Cic*> cards,
                         uint32_t mtu_bytes, const ReplayParams& replay, const schedulers::SchedulerParams& scheduling,
                         DeliverySink& sink)
    : HostModel(name, kernel),
      cards_(std::move(cards)),
      params_(replay),
      sink_(sink),
      matching_(mpi_jobs(jobs), mtu_bytes, replay.eager_limit_bytes, replay.collective_choice(), *this,
                replay.rematch_wildcards) {
  const auto nodes = static_cast<uint32_t>(cards_.size());
  std::vector<uint32_t> job_sizes;
  for (const auto& reader : jobs) job_sizes.push_back(reader->header().processes);
  const IdVector<ProcessId, NodeId> nodes_of = place_processes(params_.placement, job_sizes, nodes);
  std::vector<schedulers::ProcessPlacement> placement;
  for (auto& reader : jobs) {
    const JobId j = jobs_.next_id();
    ComputeChoice compute = choose_compute_clock(params_.compute, reader->header(), reader->path());
    Job& job = jobs_.emplace_back(Job{std::move(reader), processes_.next_id(), std::move(compute)});
    for (uint32_t rank = 0; rank < job.reader->header().processes; ++rank) {
      const ProcessId p = processes_.next_id();
      Process& process = processes_.emplace_back();
      process.job = j;
      process.node = nodes_of[p];
      placement.push_back({process.node, j});
    }
  }
  scheduler_ = schedulers::SchedulerRegistry::get(scheduling.policy).make(scheduling, std::move(placement), nodes);
  scheduler_->attach(*this);
}

TraceReplay::~TraceReplay() = default;

// Job j's processes follow job j-1's, in rank order.
IdVector<JobId, MpiJob> TraceReplay::mpi_jobs(const std::vector<std::unique_ptr<TraceReader>>& readers) {
  IdVector<JobId, MpiJob> jobs;
  uint32_t first = 0;
  for (const auto& reader : readers) {
    const uint32_t processes = reader->header().processes;
    jobs.push_back(MpiJob{ProcessId(first), processes, reader->communicators()});
    first += processes;
  }
  return jobs;
}

void TraceReplay::start_of_simulation() { scheduler_->start(0); }

// A compute event or gap of the trace as CPU time on the simulated CPU, which
// computes compute_scale times as long as the traced one did.
Tick TraceReplay::cpu_time(uint64_t original_ns) const {
  const Tick original = ticks(original_ns);
  if (params_.compute_scale == 1.0) return original;
  const double scaled = std::round(static_cast<double>(original) * params_.compute_scale);
  if (scaled > static_cast<double>(kMaxDuration)) {
    throw ConfigError("replay.compute_scale", "scales a gap of " + std::to_string(original_ns) +
                                                  " ns beyond the model's time range (kMaxDuration)");
  }
  return static_cast<Tick>(scaled);
}

// The original time between p's last event and its next, which it computes
// (the time before its first event too). With compute from CPU time the
// first event begins at once: its START is when the process left MPI_Init,
// which on an oversubscribed host waited for a CPU as well.
uint64_t TraceReplay::gap_before_next(ProcessId p) const {
  const Process& process = processes_[p];
  const bool first = process.original_first_start_ns == UINT64_MAX;
  if (first && jobs_[process.job].compute.from_cpu) return 0;
  return process.ahead.front().start_ns - process.previous_end_ns;
}

// How long a compute event of p's trace computes: its CPU time or its wall time (replay.compute).
uint64_t TraceReplay::compute_ns(ProcessId p, const TraceEvent& e) const {
  return jobs_[processes_[p].job].compute.from_cpu ? e.cpu_ns : e.end_ns - e.start_ns;
}

void TraceReplay::handle(const ModuleEvent& event) {
  const uint32_t kind = event.kind & ((1U << kKindBits) - 1);
  if (kind == kSchedulerTimer) {
    scheduler_->timer(TimerId(event.arg), event.at);
    return;
  }
  if (kind == kBackgroundRound) {
    const ProcessId done = matching_.continue_background(event.arg, event.at);
    if (!done.is_none()) wait_over(done, event.at);
    return;
  }
  const ProcessId p(event.arg);
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

void TraceReplay::schedule_for(ProcessId p, Tick at, EventKind kind) {
  schedule(at, kind | (processes_[p].generation << kKindBits), p.value());
}

void TraceReplay::dispatch(ProcessId p, Tick at) {
  ++processes_[p].generation;
  schedule_for(p, at, kDispatched);
}

// A preempted process keeps what is left of its stretch of CPU time.
void TraceReplay::preempt(ProcessId p, Tick now) {
  Process& process = processes_[p];
  ++process.generation;
  if (!process.on_cpu) return;
  process.on_cpu = false;
  if (process.working) process.work_left -= std::min(process.work_left, now - std::min(now, process.cpu_since));
}

void TraceReplay::set_timer(Tick at, TimerId timer) { schedule(at, kSchedulerTimer, timer.value()); }

// The process holds its CPU from now on: it picks up where it stopped.
void TraceReplay::dispatched(ProcessId p, Tick now) {
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
  } else if (!process.current) {
    run(p, now);  // its first dispatch
  }
  // Otherwise it still waits for communication (the scheduler knows).
}

void TraceReplay::start_work(ProcessId p, Tick duration, AfterWork after, Tick now) {
  Process& process = processes_[p];
  process.working = true;
  process.work_left = duration;
  process.after_work = after;
  schedule_for(p, now + duration, kWorkDone);
}

void TraceReplay::work_done(ProcessId p, Tick now) {
  Process& process = processes_[p];
  process.working = false;
  process.work_left = 0;
  if (process.after_work == AfterWork::kBeginNext && !begin(p, now)) return;
  finish_current(p);
  run(p, now);
}

void TraceReplay::start_waiting(ProcessId p, Tick now) {
  ++processes_waiting_;
  scheduler_->waiting(p, now);
}

// Waits end only when the cards report a message sent or delivered, so with
// every live process waiting and no message in flight none ever will.
bool TraceReplay::deadlocked() const {
  return processes_waiting_ > 0 && processes_done_ + processes_waiting_ == processes_.size() &&
         matching_.messages_in_flight() == 0;
}

// What p waited for has happened. It goes on through the module's own queue
// at the same instant, so a card calling back never sees the process start a
// new call inside its own pipeline step; one off its CPU goes on when it is
// next dispatched.
void TraceReplay::wait_over(ProcessId p, Tick now) {
  Process& process = processes_[p];
  --processes_waiting_;
  process.resume_pending = true;
  scheduler_->wait_over(p, now);
  if (process.on_cpu) schedule_for(p, now, kResume);
}

void TraceReplay::resume(ProcessId p, Tick now) {
  processes_[p].resume_pending = false;
  if (!matching_.go_on(p, now)) {
    start_waiting(p, now);
    return;
  }
  finish_current(p);
  run(p, now);
}

// Reads ahead in p's trace until p has an event waiting, or the trace ends.
bool TraceReplay::fetch(ProcessId p) {
  Job& job = jobs_[processes_[p].job];
  TraceEvent event;
  while (processes_[p].ahead.empty() && !job.exhausted) {
    if (job.reader->next(event)) {
      processes_[ProcessId(job.first.value() + event.rank)].ahead.push_back(event);
    } else {
      job.exhausted = true;
    }
  }
  return !processes_[p].ahead.empty();
}

// Begins p's events one after another for as long as they complete at once;
// stops at a gap (CPU time), a wait, or the end of p's stream.
void TraceReplay::run(ProcessId p, Tick now) {
  Process& process = processes_[p];
  if (!process.on_cpu) {
    throw std::logic_error("replay: process " + std::to_string(p.value()) + " advances without a CPU");
  }
  while (fetch(p)) {
    const uint64_t gap = gap_before_next(p);
    if (gap > 0) {
      start_work(p, cpu_time(gap), AfterWork::kBeginNext, now);
      return;
    }
    if (!begin(p, now)) return;
    finish_current(p);
  }
  finish(p, now);
}

void TraceReplay::finish(ProcessId p, Tick now) {
  Process& process = processes_[p];
  process.done = true;
  process.completed_at = now;
  scheduler_->exited(p, now);
  if (++processes_done_ == processes_.size()) sink_.on_sources_done(now);
}

void TraceReplay::finish_current(ProcessId p) {
  Process& process = processes_[p];
  process.previous_end_ns = process.current->end_ns;
  process.original_last_end_ns = process.current->end_ns;
  process.current.reset();
}

// Starts the next event of p; true if it completed at once. Compute is CPU
// time; everything else is communication, which p may have to wait for.
bool TraceReplay::begin(ProcessId p, Tick now) {
  Process& process = processes_[p];
  const TraceEvent& e = process.current.emplace(process.ahead.front());
  process.ahead.pop_front();
  process.original_first_start_ns = std::min(process.original_first_start_ns, e.start_ns);
  if (e.op == TraceOp::kCompute) {
    const uint64_t computes_ns = compute_ns(p, e);
    if (computes_ns == 0) return true;
    start_work(p, cpu_time(computes_ns), AfterWork::kFinishCompute, now);
    return false;
  }
  if (has_argument(e.op, traces::TraceArg::kPeer) && e.peer == rank(p)) return begin_self_message(p, e, now);
  if (matching_.begin(p, e, now)) return true;
  start_waiting(p, now);
  return false;
}

// A self-message crosses no card: it is a copy in memory, which takes the
// call's original time on the CPU.
bool TraceReplay::begin_self_message(ProcessId p, const TraceEvent& e, Tick now) {
  if (!matching_.begin(p, e, now)) {
    start_waiting(p, now);  // a receive before its send: as in MPI, it never ends
    return false;
  }
  if (e.end_ns == e.start_ns) return true;
  start_work(p, ticks(e.end_ns - e.start_ns), AfterWork::kFinishCompute, now);
  return false;
}

void TraceReplay::carry(const OutgoingMessage& m, Tick now) {
  const nic::MessageRequest request{m.from.value(), m.to.value(), processes_[m.to].node, static_cast<uint32_t>(m.bytes),
                                    m.message,      true};
  sink_.on_handover(request, m.packets, now);
  cards_[processes_[m.from].node.value()]->submit(request, now);
}

// Through the module's own queue, at the same instant, for the reason
// wait_over() gives.
void TraceReplay::continue_later(uint32_t background, Tick now) { schedule(now, kBackgroundRound, background); }

void TraceReplay::on_message_sent(uint32_t message, Tick now) {
  const ProcessId done = matching_.message_sent(message, now);
  if (!done.is_none()) wait_over(done, now);
}

// The scheduler hears of the arrival before the receive completes: a
// coscheduler's boost comes first.
void TraceReplay::on_packet_delivered(const network::Packet& packet, Tick now) {
  sink_.on_delivered(packet, now);
  const MpiMatching::Delivery delivery = matching_.packet_delivered(packet.message, now);
  if (delivery.arrived_for.is_none()) return;
  scheduler_->message_arrived(delivery.arrived_for, now);
  if (!delivery.wait_over.is_none()) wait_over(delivery.wait_over, now);
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
  IdVector<JobId, Span> job_spans(jobs_.size());
  Span all;
  for (const ProcessId p : processes_.ids()) {
    const Process& process = processes_[p];
    for (Span* span : {&job_spans[process.job], &all}) {
      span->completed_at = std::max(span->completed_at, process.completed_at);
      span->completed = span->completed && process.done;
      if (process.original_first_start_ns == UINT64_MAX) continue;
      span->first_start_ns = std::min(span->first_start_ns, process.original_first_start_ns);
      span->last_end_ns = std::max(span->last_end_ns, process.original_last_end_ns);
    }
    per_process.push_back({{"process", p.value()},
                           {"job", process.job.value()},
                           {"rank", rank(p)},
                           {"node", process.node.value()},
                           {"completed", process.done},
                           {"completion_time_ns", ns_from_ticks(process.completed_at)},
                           {"original_end_ns", process.original_last_end_ns}});
  }
  nlohmann::ordered_json jobs = nlohmann::ordered_json::array();
  double completion_sum = 0;
  for (const JobId j : jobs_.ids()) {
    const Span& span = job_spans[j];
    completion_sum += ns_from_ticks(span.completed_at);
    jobs.push_back({{"job", j.value()},
                    {"trace", jobs_[j].reader->path()},
                    {"processes", jobs_[j].reader->header().processes},
                    {"compute", jobs_[j].compute.from_cpu ? "cpu" : "wall"},
                    {"compute_why", jobs_[j].compute.why},
                    {"completed", span.completed},
                    {"completion_time_ns", ns_from_ticks(span.completed_at)},
                    {"original_execution_time_ns", span.original_ns()}});
  }
  const double original = all.original_ns();
  const bool one_job = jobs_.size() == 1;
  nlohmann::ordered_json doc;
  doc["trace"] = one_job ? nlohmann::ordered_json(jobs_[JobId(0)].reader->path()) : nlohmann::ordered_json(nullptr);
  doc["compute"] = one_job ? nlohmann::ordered_json(jobs_[JobId(0)].compute.from_cpu ? "cpu" : "wall")
                           : nlohmann::ordered_json(nullptr);
  doc["processes"] = processes_.size();
  doc["completed"] = finished();
  doc["original_execution_time_ns"] = original;
  doc["simulated_execution_time_ns"] = ns_from_ticks(all.completed_at);
  doc["simulated_over_original"] = original > 0 ? ns_from_ticks(all.completed_at) / original : 0.0;
  doc["mean_job_completion_time_ns"] = jobs_.empty() ? 0.0 : completion_sum / static_cast<double>(jobs_.size());
  doc["application_messages"] = matching_.application_messages();
  doc["self_messages"] = matching_.self_messages();
  doc["collective_calls"] = matching_.collective_calls();
  doc["network_messages"] = matching_.network_messages();
  doc["collective_messages"] = matching_.collective_messages();
  doc["control_messages"] = matching_.control_messages();
  doc["rendezvous_sends"] = matching_.rendezvous_sends();
  doc["placement"] = placement_report();
  doc["jobs"] = jobs;
  doc["per_process"] = per_process;
  return doc;
}

// How many processes each node ran, so that an uneven placement shows.
nlohmann::ordered_json TraceReplay::placement_report() const {
  std::vector<uint32_t> per_node(cards_.size(), 0);
  for (const Process& process : processes_) ++per_node[process.node.value()];
  nlohmann::ordered_json doc;
  doc["rule"] = params_.placement;
  doc["processes_per_node"] = per_node;
  doc["max_processes_per_node"] = per_node.empty() ? 0 : *std::ranges::max_element(per_node);
  return doc;
}

// Calls of `op` in its blocking and non-blocking forms: both run its algorithm.
uint64_t TraceReplay::calls_running(TraceOp op) const {
  uint64_t calls = 0;
  for (size_t i = 0; i < traces::kTraceOps.size(); ++i) {
    const auto form = static_cast<TraceOp>(i);
    if (is_collective(form) && blocking_form(form) == op) calls += matching_.collective_calls(form);
  }
  return calls;
}

std::vector<HostWarning> TraceReplay::warnings() const {
  std::vector<HostWarning> list;
  for (const Job& job : jobs_) {
    if (!job.compute.warning.empty()) list.push_back({"compute_oversubscribed", job.compute.warning});
  }
  // An algorithm chosen for an op the traces never call changed nothing: say so, or a study of that algorithm
  // reads as "the algorithm makes no difference".
  for (const auto& [op, algorithm] : params_.forced_collectives) {
    if (calls_running(op) > 0) continue;
    const std::string name(info(op).name);
    list.push_back({"collective_unused", "replay.collective." + name + " = " + algorithm +
                                             " had no effect: the replayed traces call no " + name +
                                             " (blocking or not); `ibsec trace info` lists the collectives a "
                                             "trace calls"});
  }
  return list;
}

std::string TraceReplay::stall_report() const {
  std::string text;
  for (const ProcessId p : processes_.ids()) {
    const Process& process = processes_[p];
    if (process.done) continue;
    text += jobs_.size() == 1
                ? "  rank " + std::to_string(p.value()) + ": "
                : "  job " + std::to_string(process.job.value()) + " rank " + std::to_string(rank(p)) + ": ";
    text += process.current ? "waits in '" + format_event(*process.current) + "'" : std::string("has not begun");
    if (process.current && is_collective(process.current->op)) {
      const auto [round, rounds] = matching_.collective_round(p);
      text += " (round " + std::to_string(round + 1) + " of " + std::to_string(rounds) + ")";
    }
    text += "\n";
  }
  return text;
}

}  // namespace ibsec::hosts
