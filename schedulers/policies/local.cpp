// Linux local scheduling (§4.1): each node's 2.6 O(1) scheduler on its own,
// with the processes busy-waiting for messages as user-level communication
// libraries do, so a process waits out its slice even when its peer is off
// its CPU on another node.
#include "schedulers/linux_o1.h"

namespace ibsec::schedulers {
namespace {

class LocalScheduler final : public LinuxScheduler {
 public:
  LocalScheduler(const SchedulerParams& params, std::vector<ProcessPlacement> processes, uint32_t nodes)
      : LinuxScheduler("local", params, std::move(processes), nodes) {}

 private:
  [[nodiscard]] WaitMode default_wait() const override { return WaitMode::kSpin; }
};

}  // namespace

IBSEC_REGISTER_SCHEDULER("local", "Linux 2.6 O(1) scheduler on every node; processes spin on communication",
                         LocalScheduler)

}  // namespace ibsec::schedulers
