// Dynamic coscheduling with spin-block (Sobalvarro & Weihl 1995; Nagar et
// al. 1999): as spin-block, and a message arriving for a process that is off
// its CPU raises it above every other process of its node and preempts, on
// the bet that its peer is running now.
#include "schedulers/linux_o1.h"

namespace ibsec::schedulers {
namespace {

class DcsSbScheduler final : public LinuxScheduler {
 public:
  DcsSbScheduler(const SchedulerParams& params, std::vector<ProcessPlacement> processes, uint32_t nodes)
      : LinuxScheduler("dcs-sb", params, std::move(processes), nodes) {}

 private:
  [[nodiscard]] WaitMode default_wait() const override { return WaitMode::kSpinBlock; }
  void on_message(ProcessId p, Tick now) override { boost(p, now); }
};

}  // namespace

IBSEC_REGISTER_SCHEDULER("dcs-sb", "dynamic coscheduling + spin-block: a message arrival boosts its process",
                         DcsSbScheduler)

}  // namespace ibsec::schedulers
