// Periodic boost (Nagar et al. 1999): every scheduler.boost_period_ms (2 ms,
// §4.1) each node looks through its processes in round-robin order, starting
// after the one it boosted last, and boosts the first that has a message it
// has not consumed. Processes spin on communication.
#include "schedulers/linux_o1.h"

namespace ibsec::schedulers {
namespace {

class PeriodicBoostScheduler final : public LinuxScheduler {
 public:
  PeriodicBoostScheduler(const SchedulerParams& params, std::vector<ProcessPlacement> processes, uint32_t nodes)
      : LinuxScheduler("pb", params, std::move(processes), nodes), next_(nodes, 0) {}

 private:
  static constexpr uint32_t kBoostTick = kFirstPolicyTimer;

  [[nodiscard]] WaitMode default_wait() const override { return WaitMode::kSpin; }

  void on_start(Tick now) override {
    LinuxScheduler::on_start(now);
    for (const NodeId n : ids<NodeId>(nodes())) {
      if (!node_processes(n).empty()) set_timer(now + params().boost_period, kBoostTick, n.value());
    }
  }

  void on_timer(uint32_t kind, uint32_t arg, Tick now) override {
    if (kind != kBoostTick) {
      LinuxScheduler::on_timer(kind, arg, now);
      return;
    }
    const NodeId node(arg);
    if (node_finished(node)) return;  // no more ticks: the run can end
    boost_next(node, now);
    set_timer(now + params().boost_period, kBoostTick, arg);
  }

  void boost_next(NodeId node, Tick now) {
    const std::vector<ProcessId>& members = node_processes(node);
    const auto count = static_cast<uint32_t>(members.size());
    for (uint32_t i = 0; i < count; ++i) {
      const uint32_t index = (next_[node] + i) % count;
      const ProcessId p = members[index];
      const ProcessState s = state(p);
      if ((s == ProcessState::kReady || s == ProcessState::kBlocked) && process(p).unconsumed) {
        next_[node] = (index + 1) % count;
        boost(p, now);
        return;
      }
    }
  }

  IdVector<NodeId, uint32_t> next_;  // per node: where the round robin resumes
};

}  // namespace

IBSEC_REGISTER_SCHEDULER("pb", "periodic boost: every boost period, the next process with unconsumed messages runs",
                         PeriodicBoostScheduler)

}  // namespace ibsec::schedulers
