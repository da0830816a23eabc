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
  for (const ProcessPlacement& where : processes) jobs = std::max(jobs, where.job + 1);
  return jobs;
}

class GangScheduler final : public Scheduler {
 public:
  GangScheduler(const SchedulerParams& params, std::vector<ProcessPlacement> processes, uint32_t nodes)
      : Scheduler("gang", params, processes, node_major_cpus(nodes, params.cpus_per_node)),
        unfinished_(job_count(processes), 0),
        assigned_(processes.size(), UINT32_MAX) {
    for (const ProcessPlacement& where : processes) ++unfinished_[where.job];
  }

 private:
  static constexpr uint32_t kSlotEnd = 0;

  [[nodiscard]] WaitMode default_wait() const override { return WaitMode::kSpin; }
  void on_start(Tick now) override { begin_slot(now); }
  void on_timer(uint32_t kind, uint32_t /*arg*/, Tick now) override {
    if (kind != kSlotEnd) return;
    slot_timer_ = UINT32_MAX;
    begin_slot(now);
  }
  void on_block(uint32_t /*p*/, uint32_t /*cpu*/, Tick /*now*/) override {}
  void on_wake(uint32_t p, Tick now) override {
    const uint32_t c = assigned_[p];
    if (c != UINT32_MAX && running_on(c) == kNoProcess) run_on(c, p, now);
  }
  void on_exit(uint32_t p, uint32_t /*cpu*/, Tick now) override {
    assigned_[p] = UINT32_MAX;
    --unfinished_[process(p).where.job];
    const bool row_done = std::ranges::all_of(row_, [this](uint32_t job) { return unfinished_[job] == 0; });
    if (row_done) begin_slot(now);
  }

  void begin_slot(Tick now) {
    cancel_timer(slot_timer_);
    next_row();
    if (row_.empty()) return;  // every job has finished
    std::vector<uint32_t> wanted = wanted_processes();
    std::ranges::fill(assigned_, UINT32_MAX);
    for (uint32_t c = 0; c < cpu_count(); ++c) {
      if (running_on(c) != wanted[c]) preempt_cpu(c, now);
    }
    for (uint32_t c = 0; c < cpu_count(); ++c) {
      const uint32_t p = wanted[c];
      if (p == kNoProcess) continue;
      assigned_[p] = c;
      if (running_on(c) == kNoProcess && state(p) == ProcessState::kReady) run_on(c, p, now);
    }
    slot_timer_ = set_timer(now + params().gang_slot, kSlotEnd, 0);
  }

  // The next jobs in rotation, skipping finished ones: one per CPU of a node.
  void next_row() {
    row_.clear();
    const auto jobs = static_cast<uint32_t>(unfinished_.size());
    for (uint32_t i = 0; i < jobs && row_.size() < params().cpus_per_node; ++i) {
      const uint32_t job = (cursor_ + i) % jobs;
      if (unfinished_[job] > 0) row_.push_back(job);
    }
    if (!row_.empty()) cursor_ = (row_.back() + 1) % jobs;
  }

  // For every CPU, the process of the row that it runs this slot.
  [[nodiscard]] std::vector<uint32_t> wanted_processes() const {
    std::vector<uint32_t> wanted(cpu_count(), kNoProcess);
    std::vector<uint32_t> next_cpu(cpu_count() / params().cpus_per_node, 0);
    for (uint32_t job : row_) {
      for (uint32_t p = 0; p < process_count(); ++p) {
        const ProcessPlacement& where = process(p).where;
        if (where.job != job || state(p) == ProcessState::kDone) continue;
        uint32_t& k = next_cpu[where.node];
        if (k < params().cpus_per_node) wanted[where.node * params().cpus_per_node + k++] = p;
      }
    }
    return wanted;
  }

  std::vector<uint32_t> unfinished_;  // per job: processes not done
  std::vector<uint32_t> assigned_;    // per process: its CPU in this slot, if any
  std::vector<uint32_t> row_;
  uint32_t cursor_ = 0;
  uint32_t slot_timer_ = UINT32_MAX;
};

}  // namespace

IBSEC_REGISTER_SCHEDULER("gang", "gang scheduling: cluster-wide slots, all processes of a job run together",
                         GangScheduler)

}  // namespace ibsec::schedulers
