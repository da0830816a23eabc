// Gang scheduling (Hori et al. 1998; Etsion & Feitelson 2001): one
// cluster-wide matrix of time slots, scheduler.gang_slot_ms (20 ms, §4.1)
// each. A slot row holds as many jobs as a node has CPUs, and in that slot
// every node runs those jobs' processes and nothing else; the rows rotate over
// the unfinished jobs, so all processes of a job run at the same time
// everywhere and wait for each other by spinning. A CPU whose job has no
// runnable process on it stays idle until the slot ends; a row whose jobs
// have all finished ends its slot at once.
#include <algorithm>

#include "schedulers/scheduler.h"

namespace ibsec::schedulers {
namespace {

uint32_t job_count(const std::vector<ProcessPlacement>& processes) {
  uint32_t jobs = 0;
  for (const ProcessPlacement& where : processes) jobs = std::max(jobs, where.job.value() + 1);
  return jobs;
}

class GangScheduler final : public Scheduler {
 public:
  GangScheduler(const SchedulerParams& params, std::vector<ProcessPlacement> processes, uint32_t nodes)
      : Scheduler("gang", params, processes, node_major_cpus(nodes, params.cpus_per_node)),
        unfinished_(job_count(processes), 0),
        assigned_(processes.size(), CpuId::none()) {
    for (const ProcessPlacement& where : processes) ++unfinished_[where.job];
  }

 private:
  static constexpr uint32_t kSlotEnd = 0;

  [[nodiscard]] WaitMode default_wait() const override { return WaitMode::kSpin; }
  void on_start(Tick now) override { begin_slot(now); }
  void on_timer(uint32_t kind, uint32_t /*arg*/, Tick now) override {
    if (kind != kSlotEnd) return;
    slot_timer_ = TimerId::none();
    begin_slot(now);
  }
  void on_block(ProcessId /*p*/, CpuId /*cpu*/, Tick /*now*/) override {}
  void on_wake(ProcessId p, Tick now) override {
    const CpuId c = assigned_[p];
    if (!c.is_none() && running_on(c).is_none()) run_on(c, p, now);
  }
  void on_exit(ProcessId p, CpuId /*cpu*/, Tick now) override {
    assigned_[p] = CpuId::none();
    --unfinished_[process(p).where.job];
    const bool row_done = std::ranges::all_of(row_, [this](JobId job) { return unfinished_[job] == 0; });
    if (row_done) begin_slot(now);
  }

  void begin_slot(Tick now) {
    cancel_timer(slot_timer_);
    next_row();
    if (row_.empty()) return;  // every job has finished
    const IdVector<CpuId, ProcessId> wanted = wanted_processes();
    std::ranges::fill(assigned_, CpuId::none());
    for (const CpuId c : ids<CpuId>(cpu_count())) {
      if (running_on(c) != wanted[c]) preempt_cpu(c, now);
    }
    for (const CpuId c : ids<CpuId>(cpu_count())) {
      const ProcessId p = wanted[c];
      if (p.is_none()) continue;
      assigned_[p] = c;
      if (running_on(c).is_none() && state(p) == ProcessState::kReady) run_on(c, p, now);
    }
    slot_timer_ = set_timer(now + params().gang_slot, kSlotEnd, 0);
  }

  // The next jobs in rotation, skipping finished ones: one per CPU of a node.
  void next_row() {
    row_.clear();
    const auto jobs = static_cast<uint32_t>(unfinished_.size());
    for (uint32_t i = 0; i < jobs && row_.size() < params().cpus_per_node; ++i) {
      const JobId job((cursor_ + i) % jobs);
      if (unfinished_[job] > 0) row_.push_back(job);
    }
    if (!row_.empty()) cursor_ = (row_.back().value() + 1) % jobs;
  }

  // For every CPU, the process of the row that it runs this slot.
  // CPUs are node-major: a node's k-th CPU is node * cpus_per_node + k.
  [[nodiscard]] IdVector<CpuId, ProcessId> wanted_processes() const {
    const uint32_t per_node = params().cpus_per_node;
    IdVector<CpuId, ProcessId> wanted(cpu_count(), ProcessId::none());
    IdVector<NodeId, uint32_t> next_cpu(cpu_count() / per_node, 0);
    for (const JobId job : row_) {
      for (const ProcessId p : ids<ProcessId>(process_count())) {
        const ProcessPlacement& where = process(p).where;
        if (where.job != job || state(p) == ProcessState::kDone) continue;
        uint32_t& k = next_cpu[where.node];
        if (k < per_node) wanted[CpuId(where.node.value() * per_node + k++)] = p;
      }
    }
    return wanted;
  }

  IdVector<JobId, uint32_t> unfinished_;  // per job: processes not done
  IdVector<ProcessId, CpuId> assigned_;   // per process: its CPU in this slot, if any
  std::vector<JobId> row_;
  uint32_t cursor_ = 0;
  TimerId slot_timer_ = TimerId::none();
};

}  // namespace

IBSEC_REGISTER_SCHEDULER("gang", "gang scheduling: cluster-wide slots, all processes of a job run together",
                         GangScheduler)

}  // namespace ibsec::schedulers
