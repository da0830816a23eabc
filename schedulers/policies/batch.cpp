// Batch: every process has a CPU of its own for the whole run, as on the
// machine the traces were captured on (§4.1) and in the single-application
// experiments of Fig. 5. No time sharing, no context switches.
#include "schedulers/scheduler.h"

namespace ibsec::schedulers {
namespace {

std::vector<uint32_t> one_cpu_per_process(const std::vector<ProcessPlacement>& processes) {
  std::vector<uint32_t> cpu_nodes;
  for (const ProcessPlacement& where : processes) cpu_nodes.push_back(where.node);
  return cpu_nodes;
}

class BatchScheduler final : public Scheduler {
 public:
  BatchScheduler(const SchedulerParams& params, std::vector<ProcessPlacement> processes, uint32_t /*nodes*/)
      : Scheduler("batch", params, processes, one_cpu_per_process(processes)) {}

 private:
  [[nodiscard]] WaitMode default_wait() const override { return WaitMode::kSpin; }
  void on_start(Tick now) override {
    for (uint32_t p = 0; p < process_count(); ++p) run_on(p, p, now);
  }
  void on_block(uint32_t /*p*/, uint32_t /*cpu*/, Tick /*now*/) override {}
  void on_exit(uint32_t /*p*/, uint32_t /*cpu*/, Tick /*now*/) override {}
  void on_wake(uint32_t p, Tick now) override { run_on(p, p, now); }
  void on_timer(uint32_t /*kind*/, uint32_t /*arg*/, Tick /*now*/) override {}
};

}  // namespace

IBSEC_REGISTER_SCHEDULER("batch", "every process has a CPU of its own (no time sharing; the Fig. 5 setting)",
                         BatchScheduler)

}  // namespace ibsec::schedulers
