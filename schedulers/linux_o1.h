// The Linux 2.6 O(1) scheduler (kernel/sched.c of 2.6.18-2.6.22, HZ = 1000)
// as the paper's local scheduler and as the base of SB, DCS-SB and PB. Kept:
// active and expired priority arrays per run queue; time slices from the
// static priority (100 ms at nice 0); the sleep average and the interactivity
// bonus it gives (up to 5 levels either way), with the ceiling that keeps one
// long sleep from earning the best priority; interactive tasks going back to
// the active array unless the expired array starves; wake-up preemption.
// Simplified (docs/schedulers.md): one run queue per node shared by its CPUs
// (no load balancing); no TIMESLICE_GRANULARITY round robin; no fork-time
// slice splitting; every process at nice 0.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <vector>

#include "schedulers/scheduler.h"

namespace ibsec::schedulers {

// The kernel's constants, in the units it uses them (ms at HZ = 1000).
struct LinuxO1 {
  static constexpr int kMaxRtPrio = 100;
  static constexpr int kMaxPrio = 140;
  static constexpr int kNiceZero = 120;  // static priority of nice 0
  static constexpr int kMaxBonus = 10;
  static constexpr int kInteractiveDelta = 2;
  static constexpr Tick kDefTimeslice = 100 * kTicksPerMs;
  static constexpr Tick kMinTimeslice = 5 * kTicksPerMs;
  static constexpr Tick kMaxSleepAvg = kDefTimeslice * kMaxBonus;  // 1 s
  static constexpr Tick kStarvationLimit = kMaxSleepAvg;

  // CURRENT_BONUS: the sleep average in whole ms, scaled to 0..kMaxBonus.
  static int current_bonus(Tick sleep_avg) {
    return static_cast<int>(sleep_avg / kTicksPerMs * kMaxBonus / (kMaxSleepAvg / kTicksPerMs));
  }
  // effective_prio: static priority minus (bonus - 5), within the user range.
  static int effective_prio(int static_prio, Tick sleep_avg);
  // task_timeslice: 100 ms at nice 0, from 5 ms (nice 19) to 800 ms (nice -20).
  static Tick timeslice(int static_prio);
  // TASK_INTERACTIVE: prio at least DELTA better than the static priority.
  static bool interactive(int prio, int static_prio);
  // INTERACTIVE_SLEEP: one sleep longer than this lifts the sleep average to it, no further.
  static Tick interactive_sleep(int static_prio);
  // recalc_task_prio's update of the sleep average after sleeping `slept`.
  static Tick sleep_avg_after_sleep(Tick sleep_avg, Tick slept, int static_prio);
};

class LinuxScheduler : public Scheduler {
 public:
  LinuxScheduler(std::string name, const SchedulerParams& params, std::vector<ProcessPlacement> processes,
                 uint32_t nodes);

  // For tests: the dynamic priority and sleep average of p.
  [[nodiscard]] int priority(ProcessId p) const { return tasks_[p].prio; }
  [[nodiscard]] Tick sleep_avg(ProcessId p) const { return tasks_[p].sleep_avg; }

 protected:
  static constexpr uint32_t kSliceTimer = 0;
  static constexpr uint32_t kFirstPolicyTimer = 1;

  void on_start(Tick now) override;
  void on_block(ProcessId p, CpuId cpu, Tick now) override;
  void on_exit(ProcessId p, CpuId cpu, Tick now) override;
  void on_wake(ProcessId p, Tick now) override;
  void on_timer(uint32_t kind, uint32_t arg, Tick now) override;
  void on_leave_cpu(ProcessId p, Tick ran) override;

  // Raises p (ready or blocked) above every other process of its node and
  // gives it a CPU now: the coscheduling boost of DCS-SB and PB.
  void boost(ProcessId p, Tick now);
  // The node's processes in a fixed order (PB's round robin).
  [[nodiscard]] const std::vector<ProcessId>& node_processes(NodeId node) const { return queues_[node].members; }
  [[nodiscard]] uint32_t nodes() const { return static_cast<uint32_t>(queues_.size()); }
  [[nodiscard]] bool node_finished(NodeId node) const { return queues_[node].unfinished == 0; }

 private:
  struct Task {
    int static_prio = LinuxO1::kNiceZero;
    int prio = LinuxO1::kNiceZero + LinuxO1::kMaxBonus / 2;
    Tick sleep_avg = 0;
    Tick slice_left = LinuxO1::kDefTimeslice;
    Tick slept_at = 0;
    Tick expires_at = 0;  // of the running slice
    TimerId slice_timer = TimerId::none();
    bool boosted = false;
    bool expired = false;  // in which array it waits
    bool queued = false;
  };
  struct PrioArray {
    std::array<std::deque<ProcessId>, LinuxO1::kMaxPrio - LinuxO1::kMaxRtPrio> lists;
    size_t count = 0;
  };
  struct RunQueue {
    PrioArray arrays[2];
    uint32_t active = 0;
    Tick expired_since = 0;  // when the first task entered the expired array; 0 = none
    std::vector<CpuId> cpus;
    std::vector<ProcessId> members;
    uint32_t unfinished = 0;
  };

  void enqueue(ProcessId p, bool expired, bool front);
  void dequeue(ProcessId p);
  ProcessId pick_next(RunQueue& rq);
  void schedule(CpuId cpu, Tick now);
  void dispatch(CpuId cpu, ProcessId p, Tick now);
  void slice_expired(ProcessId p, Tick now);
  bool expired_starving(const RunQueue& rq, Tick now) const;
  void preempt_for(ProcessId p, Tick now);
  void credit_sleep(ProcessId p, Tick now);
  [[nodiscard]] int queue_prio(const Task& task) const { return task.boosted ? LinuxO1::kMaxRtPrio : task.prio; }

  IdVector<ProcessId, Task> tasks_;
  IdVector<NodeId, RunQueue> queues_;
};

}  // namespace ibsec::schedulers
