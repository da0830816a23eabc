#include "schedulers/linux_o1.h"

#include <algorithm>

#include "core/random.h"

namespace ibsec::schedulers {
namespace {

constexpr Tick kNoTime = UINT64_MAX;

// DELTA(p): how far below its static priority a task must be to count as interactive.
int interactive_delta(int static_prio) {
  return (static_prio - LinuxO1::kNiceZero) * LinuxO1::kMaxBonus / 40 + LinuxO1::kInteractiveDelta;
}

}  // namespace

int LinuxO1::effective_prio(int static_prio, Tick sleep_avg) {
  const int prio = static_prio - (current_bonus(sleep_avg) - kMaxBonus / 2);
  return std::clamp(prio, kMaxRtPrio, kMaxPrio - 1);
}

Tick LinuxO1::timeslice(int static_prio) {
  const Tick base = static_prio < kNiceZero ? kDefTimeslice * 4 : kDefTimeslice;
  return std::max<Tick>(base * static_cast<Tick>(kMaxPrio - static_prio) / 20, kMinTimeslice);
}

bool LinuxO1::interactive(int prio, int static_prio) { return prio <= static_prio - interactive_delta(static_prio); }

Tick LinuxO1::interactive_sleep(int static_prio) {
  const Tick max_ms = kMaxSleepAvg / kTicksPerMs;
  const auto factor = static_cast<Tick>(kMaxBonus / 2 + interactive_delta(static_prio) + 1);
  return (max_ms * factor / kMaxBonus - 1) * kTicksPerMs;
}

Tick LinuxO1::sleep_avg_after_sleep(Tick sleep_avg, Tick slept, int static_prio) {
  slept = std::min(slept, kMaxSleepAvg);
  if (slept == 0) return sleep_avg;
  const Tick ceiling = interactive_sleep(static_prio);
  if (slept > ceiling && sleep_avg < ceiling) return ceiling;
  return std::min(sleep_avg + slept, kMaxSleepAvg);
}

LinuxScheduler::LinuxScheduler(std::string name, const SchedulerParams& params, std::vector<ProcessPlacement> processes,
                               uint32_t nodes)
    : Scheduler(std::move(name), params, processes, node_major_cpus(nodes, params.cpus_per_node)),
      tasks_(processes.size()),
      queues_(nodes) {
  for (const CpuId c : ids<CpuId>(cpu_count())) queues_[cpu(c).node].cpus.push_back(c);
  for (const ProcessId p : ids<ProcessId>(process_count())) {
    RunQueue& rq = queues_[process(p).where.node];
    rq.members.push_back(p);
    ++rq.unfinished;
  }
  for (RunQueue& rq : queues_) rq.expired_since = kNoTime;
}

void LinuxScheduler::on_start(Tick now) {
  Rng rng(params().seed);
  for (RunQueue& rq : queues_) {
    std::vector<ProcessId> order = rq.members;
    if (params().random_start_order) {
      for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
    }
    for (const ProcessId p : order) {
      Task& task = tasks_[p];
      task.prio = LinuxO1::effective_prio(task.static_prio, task.sleep_avg);
      task.slice_left = LinuxO1::timeslice(task.static_prio);
      enqueue(p, false, false);
    }
  }
  for (const CpuId c : ids<CpuId>(cpu_count())) schedule(c, now);
}

void LinuxScheduler::enqueue(ProcessId p, bool expired, bool front) {
  Task& task = tasks_[p];
  RunQueue& rq = queues_[process(p).where.node];
  task.expired = expired;
  PrioArray& array = rq.arrays[expired ? 1 - rq.active : rq.active];
  auto& list = array.lists[queue_prio(task) - LinuxO1::kMaxRtPrio];
  if (front) {
    list.push_front(p);
  } else {
    list.push_back(p);
  }
  ++array.count;
  task.queued = true;
}

void LinuxScheduler::dequeue(ProcessId p) {
  Task& task = tasks_[p];
  if (!task.queued) return;
  RunQueue& rq = queues_[process(p).where.node];
  PrioArray& array = rq.arrays[task.expired ? 1 - rq.active : rq.active];
  auto& list = array.lists[queue_prio(task) - LinuxO1::kMaxRtPrio];
  list.erase(std::find(list.begin(), list.end(), p));
  --array.count;
  task.queued = false;
}

ProcessId LinuxScheduler::pick_next(RunQueue& rq) {
  if (rq.arrays[rq.active].count == 0 && rq.arrays[1 - rq.active].count > 0) {
    // Every task in the expired array becomes active: the flags flip with the arrays.
    rq.active = 1 - rq.active;
    rq.expired_since = kNoTime;
    for (const ProcessId p : rq.members) tasks_[p].expired = false;
  }
  PrioArray& array = rq.arrays[rq.active];
  for (auto& list : array.lists) {
    if (list.empty()) continue;
    const ProcessId p = list.front();
    list.pop_front();
    --array.count;
    tasks_[p].queued = false;
    return p;
  }
  return ProcessId::none();
}

void LinuxScheduler::schedule(CpuId c, Tick now) {
  const ProcessId next = pick_next(queues_[cpu(c).node]);
  if (!next.is_none()) dispatch(c, next, now);
}

void LinuxScheduler::dispatch(CpuId c, ProcessId p, Tick now) {
  Task& task = tasks_[p];
  task.boosted = false;
  const Tick at = run_on(c, p, now);
  task.slice_timer = set_timer(at + task.slice_left, kSliceTimer, p.value());
}

void LinuxScheduler::on_leave_cpu(ProcessId p, Tick ran) {
  Task& task = tasks_[p];
  cancel_timer(task.slice_timer);
  task.slice_left -= std::min(ran, task.slice_left);
  task.sleep_avg -= std::min(ran, task.sleep_avg);
}

void LinuxScheduler::on_timer(uint32_t kind, uint32_t arg, Tick now) {
  if (kind != kSliceTimer) return;
  const ProcessId p(arg);
  tasks_[p].slice_timer = TimerId::none();
  slice_expired(p, now);
}

// scheduler_tick at the end of a slice: a new priority and slice, and back
// to the active array if interactive, else to the expired one.
void LinuxScheduler::slice_expired(ProcessId p, Tick now) {
  Task& task = tasks_[p];
  RunQueue& rq = queues_[process(p).where.node];
  const CpuId c = process(p).cpu;
  task.prio = LinuxO1::effective_prio(task.static_prio, task.sleep_avg);
  preempt_cpu(c, now);
  task.slice_left = LinuxO1::timeslice(task.static_prio);
  if (LinuxO1::interactive(task.prio, task.static_prio) && !expired_starving(rq, now)) {
    enqueue(p, false, false);
  } else {
    if (rq.expired_since == kNoTime) rq.expired_since = now;
    enqueue(p, true, false);
  }
  schedule(c, now);
}

// EXPIRED_STARVING: the expired array has waited longer than the limit per
// runnable task.
bool LinuxScheduler::expired_starving(const RunQueue& rq, Tick now) const {
  if (rq.expired_since == kNoTime) return false;
  size_t runnable = rq.arrays[0].count + rq.arrays[1].count;
  for (const CpuId c : rq.cpus) runnable += running_on(c).is_none() ? 0 : 1;
  return now - rq.expired_since >= LinuxO1::kStarvationLimit * runnable + kTicksPerMs;
}

void LinuxScheduler::on_block(ProcessId p, CpuId c, Tick now) {
  tasks_[p].slept_at = now;
  schedule(c, now);
}

void LinuxScheduler::on_exit(ProcessId p, CpuId c, Tick now) {
  --queues_[process(p).where.node].unfinished;
  schedule(c, now);
}

// activate_task: the sleep earns its bonus, the task joins the active array
// and preempts a CPU running something of lower priority.
void LinuxScheduler::on_wake(ProcessId p, Tick now) {
  credit_sleep(p, now);
  enqueue(p, false, false);
  preempt_for(p, now);
}

// recalc_task_prio: the time slept since blocking raises the sleep average.
void LinuxScheduler::credit_sleep(ProcessId p, Tick now) {
  Task& task = tasks_[p];
  task.sleep_avg = LinuxO1::sleep_avg_after_sleep(task.sleep_avg, now - task.slept_at, task.static_prio);
  task.prio = LinuxO1::effective_prio(task.static_prio, task.sleep_avg);
}

void LinuxScheduler::preempt_for(ProcessId p, Tick now) {
  const RunQueue& rq = queues_[process(p).where.node];
  CpuId target = CpuId::none();
  int worst = queue_prio(tasks_[p]);
  for (const CpuId c : rq.cpus) {
    const ProcessId current = running_on(c);
    if (current.is_none()) {
      schedule(c, now);
      return;
    }
    if (queue_prio(tasks_[current]) > worst) {
      worst = queue_prio(tasks_[current]);
      target = c;
    }
  }
  if (target.is_none()) return;
  // The preempted task keeps its place at the head of its priority list.
  const ProcessId preempted = preempt_cpu(target, now);
  enqueue(preempted, false, true);
  schedule(target, now);
}

void LinuxScheduler::boost(ProcessId p, Tick now) {
  Task& task = tasks_[p];
  if (state(p) == ProcessState::kBlocked) {
    unblock(p);
    credit_sleep(p, now);
  }
  dequeue(p);
  task.boosted = true;
  enqueue(p, false, true);
  count_boost();
  preempt_for(p, now);
}

}  // namespace ibsec::schedulers
