// Batch: every process has a CPU of its own for the whole run, as on the
// machine the traces were captured on (§4.1) and in the single-application
// experiments of Fig. 5. No time sharing, no context switches.
#include "schedulers/scheduler.h"

namespace ibsec::schedulers {
namespace {

// CPU c is process c's.
IdVector<CpuId, NodeId> one_cpu_per_process(const std::vector<ProcessPlacement>& processes) {
  IdVector<CpuId, NodeId> cpu_nodes;
  for (const ProcessPlacement& where : processes) cpu_nodes.push_back(where.node);
  return cpu_nodes;
}

CpuId cpu_of(ProcessId p) { return CpuId(p.value()); }

class BatchScheduler final : public Scheduler {
 public:
  BatchScheduler(const SchedulerParams& params, std::vector<ProcessPlacement> processes, uint32_t /*nodes*/)
      : Scheduler("batch", params, processes, one_cpu_per_process(processes)) {}

 private:
  [[nodiscard]] WaitMode default_wait() const override { return WaitMode::kSpin; }
  void on_start(Tick now) override {
    for (const ProcessId p : ids<ProcessId>(process_count())) run_on(cpu_of(p), p, now);
  }
  void on_block(ProcessId /*p*/, CpuId /*cpu*/, Tick /*now*/) override {}
  void on_exit(ProcessId /*p*/, CpuId /*cpu*/, Tick /*now*/) override {}
  void on_wake(ProcessId p, Tick now) override { run_on(cpu_of(p), p, now); }
  void on_timer(uint32_t /*kind*/, uint32_t /*arg*/, Tick /*now*/) override {}
};

}  // namespace

IBSEC_REGISTER_SCHEDULER("batch", "every process has a CPU of its own (no time sharing; the Fig. 5 setting)",
                         BatchScheduler)

}  // namespace ibsec::schedulers
