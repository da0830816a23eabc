// Spin-block (Arpaci-Dusseau et al. 1998): the Linux local scheduler, with a
// process that waits for communication spinning for scheduler.spin_us (750 us,
// §4.1) and then blocking until the message arrives; the wake-up earns the
// sleep bonus and may preempt.
#include "schedulers/linux_o1.h"

namespace ibsec::schedulers {
namespace {

class SpinBlockScheduler final : public LinuxScheduler {
 public:
  SpinBlockScheduler(const SchedulerParams& params, std::vector<ProcessPlacement> processes, uint32_t nodes)
      : LinuxScheduler("sb", params, std::move(processes), nodes) {}

 private:
  [[nodiscard]] WaitMode default_wait() const override { return WaitMode::kSpinBlock; }
};

}  // namespace

IBSEC_REGISTER_SCHEDULER("sb", "spin-block: Linux local, waiting processes spin for the spin time, then block",
                         SpinBlockScheduler)

}  // namespace ibsec::schedulers
