// The scheduling policies on hand-computed scenarios, driven by a fake host
// that records every dispatch and preemption and fires timers in time order.
#include <algorithm>
#include <queue>
#include <random>
#include <ranges>

#include <gtest/gtest.h>

#include "core/errors.h"
#include "schedulers/linux_o1.h"
#include "schedulers/scheduler.h"
#include "sim/config.h"

namespace ibsec::schedulers {
namespace {

constexpr Tick kMs = kTicksPerMs;
constexpr Tick kUs = kTicksPerUs;
constexpr Tick kSwitch = 5 * kUs;

struct Change {
  Tick at;
  uint32_t process;
  bool dispatch;  // else preempt
  bool operator==(const Change&) const = default;
};

class FakeHost final : public SchedulerHost {
 public:
  explicit FakeHost(Scheduler& scheduler) : scheduler_(scheduler) { scheduler.attach(*this); }

  void dispatch(ProcessId p, Tick at) override { log.push_back({at, p.value(), true}); }
  void preempt(ProcessId p, Tick now) override { log.push_back({now, p.value(), false}); }
  void set_timer(Tick at, TimerId timer) override { timers_.push({at, order_++, timer}); }

  // Fires every timer due up to and including t.
  void advance_to(Tick t) {
    while (!timers_.empty() && timers_.top().at <= t) {
      const Timer timer = timers_.top();
      timers_.pop();
      scheduler_.timer(timer.id, timer.at);
    }
  }
  [[nodiscard]] bool timers_pending() const { return !timers_.empty(); }
  // The changes logged from index `from` on.
  [[nodiscard]] std::vector<Change> since(size_t from) const { return {log.begin() + from, log.end()}; }

  std::vector<Change> log;

 private:
  struct Timer {
    Tick at;
    uint64_t order;
    TimerId id;
    bool operator>(const Timer& o) const { return at != o.at ? at > o.at : order > o.order; }
  };
  Scheduler& scheduler_;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers_;
  uint64_t order_ = 0;
};

SchedulerParams params_for(const std::string& policy, WaitMode wait = WaitMode::kPolicy) {
  SchedulerParams params;
  params.policy = policy;
  params.context_switch = kSwitch;
  params.wait = wait;
  params.random_start_order = false;
  return params;
}

std::unique_ptr<Scheduler> make(const SchedulerParams& params, std::vector<ProcessPlacement> processes,
                                uint32_t nodes) {
  return SchedulerRegistry::get(params.policy).make(params, std::move(processes), nodes);
}

ProcessPlacement place(uint32_t node, uint32_t job) { return {NodeId(node), JobId(job)}; }

// One node, one process per job.
std::vector<ProcessPlacement> one_node(uint32_t processes) {
  std::vector<ProcessPlacement> placement;
  for (uint32_t j = 0; j < processes; ++j) placement.push_back(place(0, j));
  return placement;
}

TEST(LinuxO1, ClosedForms) {
  EXPECT_EQ(LinuxO1::timeslice(120), 100 * kMs);  // nice 0
  EXPECT_EQ(LinuxO1::timeslice(139), 5 * kMs);    // nice 19
  EXPECT_EQ(LinuxO1::timeslice(100), 800 * kMs);  // nice -20
  EXPECT_EQ(LinuxO1::effective_prio(120, 0), 125);
  EXPECT_EQ(LinuxO1::effective_prio(120, 399 * kMs), 122);
  EXPECT_EQ(LinuxO1::effective_prio(120, 400 * kMs), 121);
  EXPECT_EQ(LinuxO1::effective_prio(120, 1000 * kMs), 115);
  EXPECT_TRUE(LinuxO1::interactive(118, 120));
  EXPECT_FALSE(LinuxO1::interactive(119, 120));
  EXPECT_EQ(LinuxO1::interactive_sleep(120), 799 * kMs);
  EXPECT_EQ(LinuxO1::sleep_avg_after_sleep(0, 900 * kMs, 120), 799 * kMs);  // one long sleep: the ceiling
  EXPECT_EQ(LinuxO1::sleep_avg_after_sleep(850 * kMs, 900 * kMs, 120), 1000 * kMs);
  EXPECT_EQ(LinuxO1::sleep_avg_after_sleep(100 * kMs, 300 * kMs, 120), 400 * kMs);
}

TEST(SpinBlock, SpinsExactlyItsSpinTimeThenBlocks) {
  auto s = make(params_for("sb"), one_node(2), 1);
  FakeHost host(*s);
  s->start(0);
  ASSERT_EQ(host.log, (std::vector<Change>{{0, 0, true}}));
  s->waiting(ProcessId(0), 1 * kMs);
  host.advance_to(1 * kMs + 750 * kUs - 1);
  EXPECT_EQ(host.log.size(), 1U);
  EXPECT_EQ(s->state(ProcessId(0)), ProcessState::kRunning);
  host.advance_to(1 * kMs + 750 * kUs);
  EXPECT_EQ(host.since(1), (std::vector<Change>{{1750 * kUs, 0, false}, {1750 * kUs + kSwitch, 1, true}}));
  EXPECT_EQ(s->state(ProcessId(0)), ProcessState::kBlocked);
  EXPECT_EQ(s->stats().spinning, 750 * kUs);
  EXPECT_EQ(s->stats().blocks, 1U);
}

TEST(SpinBlock, AMessageWithinTheSpinTimeKeepsTheCpu) {
  auto s = make(params_for("sb"), one_node(2), 1);
  FakeHost host(*s);
  s->start(0);
  s->waiting(ProcessId(0), 1 * kMs);
  host.advance_to(1500 * kUs);
  s->wait_over(ProcessId(0), 1500 * kUs);
  host.advance_to(10 * kMs);
  EXPECT_EQ(host.log.size(), 1U);
  EXPECT_EQ(s->stats().spinning, 500 * kUs);
  EXPECT_EQ(s->stats().blocks, 0U);
}

TEST(Local, SpinsThroughItsSliceAndTimeSlicesEveryHundredMs) {
  auto s = make(params_for("local"), one_node(2), 1);
  FakeHost host(*s);
  s->start(0);
  s->waiting(ProcessId(0), 1 * kMs);  // spins: nothing happens until the slice ends
  host.advance_to(250 * kMs);
  const Tick second = 100 * kMs + kSwitch;
  EXPECT_EQ(host.since(1), (std::vector<Change>{{100 * kMs, 0, false},
                                                {second, 1, true},
                                                {second + 100 * kMs, 1, false},
                                                {second + 100 * kMs + kSwitch, 0, true}}));
  EXPECT_EQ(s->stats().blocks, 0U);
}

// A process that slept 400 ms has a sleep average of 400 ms: bonus 4, priority
// 121, better than the CPU hog's 125, so its wake-up preempts the hog.
TEST(Local, GivesASleepingProcessItsBonus) {
  for (const Tick sleep : {400 * kMs, 50 * kMs}) {
    auto s = make(params_for("local", WaitMode::kBlock), one_node(2), 1);
    FakeHost host(*s);
    s->start(0);
    s->waiting(ProcessId(0), 10 * kMs);  // blocks at once
    EXPECT_EQ(host.since(1), (std::vector<Change>{{10 * kMs, 0, false}, {10 * kMs + kSwitch, 1, true}}));
    const Tick wake = 10 * kMs + sleep;
    host.advance_to(wake);
    const size_t before = host.log.size();
    s->wait_over(ProcessId(0), wake);
    const auto& linux = dynamic_cast<const LinuxScheduler&>(*s);
    if (sleep == 400 * kMs) {
      EXPECT_EQ(linux.sleep_avg(ProcessId(0)), 400 * kMs);
      EXPECT_EQ(linux.priority(ProcessId(0)), 121);
      EXPECT_EQ(host.since(before), (std::vector<Change>{{wake, 1, false}, {wake + kSwitch, 0, true}}));
    } else {
      EXPECT_EQ(linux.priority(ProcessId(0)), 125);  // 50 ms earns no bonus level: no preemption
      EXPECT_TRUE(host.since(before).empty());
    }
  }
}

TEST(DcsSb, AMessageForAProcessOffItsCpuPreempts) {
  for (const std::string policy : {"dcs-sb", "sb"}) {
    auto s = make(params_for(policy), one_node(2), 1);
    FakeHost host(*s);
    s->start(0);
    s->message_arrived(ProcessId(1), 3 * kMs);
    if (policy == "dcs-sb") {
      EXPECT_EQ(host.since(1), (std::vector<Change>{{3 * kMs, 0, false}, {3 * kMs + kSwitch, 1, true}}));
      EXPECT_EQ(s->stats().boosts, 1U);
    } else {
      EXPECT_EQ(host.log.size(), 1U);
    }
  }
}

TEST(DcsSb, AMessageWakesABlockedProcess) {
  auto s = make(params_for("dcs-sb"), one_node(2), 1);
  FakeHost host(*s);
  s->start(0);
  s->waiting(ProcessId(0), 0);
  host.advance_to(750 * kUs);  // p0 blocks, p1 runs
  ASSERT_EQ(s->state(ProcessId(0)), ProcessState::kBlocked);
  s->message_arrived(ProcessId(0), 2 * kMs);
  EXPECT_EQ(host.since(3), (std::vector<Change>{{2 * kMs, 1, false}, {2 * kMs + kSwitch, 0, true}}));
}

TEST(PeriodicBoost, BoostsInRoundRobinOrderEveryTwoMs) {
  auto s = make(params_for("pb"), one_node(3), 1);
  FakeHost host(*s);
  s->start(0);
  s->message_arrived(ProcessId(1), 500 * kUs);
  s->message_arrived(ProcessId(2), 500 * kUs);
  host.advance_to(2 * kMs - 1);
  EXPECT_EQ(host.log.size(), 1U);
  host.advance_to(2 * kMs);
  EXPECT_EQ(host.since(1), (std::vector<Change>{{2 * kMs, 0, false}, {2 * kMs + kSwitch, 1, true}}));
  host.advance_to(4 * kMs);
  EXPECT_EQ(host.since(3), (std::vector<Change>{{4 * kMs, 1, false}, {4 * kMs + kSwitch, 2, true}}));
  s->message_arrived(ProcessId(1), 5 * kMs);
  s->message_arrived(ProcessId(0), 5 * kMs);
  host.advance_to(6 * kMs);  // round robin goes on after 2: process 0 before process 1
  EXPECT_EQ(host.since(5), (std::vector<Change>{{6 * kMs, 2, false}, {6 * kMs + kSwitch, 0, true}}));
  host.advance_to(8 * kMs);
  EXPECT_EQ(host.since(7), (std::vector<Change>{{8 * kMs, 0, false}, {8 * kMs + kSwitch, 1, true}}));
  EXPECT_EQ(s->stats().boosts, 4U);
}

TEST(Gang, SlotsLineUpAcrossNodesAndSwitchEveryTwentyMs) {
  // Job 0: processes 0 (node 0) and 1 (node 1); job 1: processes 2 (node 0) and 3 (node 1).
  auto s = make(params_for("gang"), {place(0, 0), place(1, 0), place(0, 1), place(1, 1)}, 2);
  FakeHost host(*s);
  s->start(0);
  EXPECT_EQ(host.log, (std::vector<Change>{{0, 0, true}, {0, 1, true}}));
  host.advance_to(20 * kMs);
  EXPECT_EQ(
      host.since(2),
      (std::vector<Change>{
          {20 * kMs, 0, false}, {20 * kMs, 1, false}, {20 * kMs + kSwitch, 2, true}, {20 * kMs + kSwitch, 3, true}}));
  host.advance_to(40 * kMs);
  EXPECT_EQ(
      host.since(6),
      (std::vector<Change>{
          {40 * kMs, 2, false}, {40 * kMs, 3, false}, {40 * kMs + kSwitch, 0, true}, {40 * kMs + kSwitch, 1, true}}));
  // Job 0 waits by spinning: it keeps its CPUs for the whole slot.
  s->waiting(ProcessId(0), 41 * kMs);
  host.advance_to(59 * kMs);
  EXPECT_EQ(host.log.size(), 10U);
  // When job 1 finishes inside its slot, job 0 gets the next slot at once.
  host.advance_to(60 * kMs);
  s->exited(ProcessId(2), 61 * kMs);
  s->exited(ProcessId(3), 62 * kMs);
  EXPECT_EQ(host.since(14), (std::vector<Change>{{62 * kMs + kSwitch, 0, true}, {62 * kMs + kSwitch, 1, true}}));
}

TEST(Batch, EveryProcessRunsAtOnceWithoutSwitches) {
  auto s = make(params_for("batch"), one_node(3), 1);
  FakeHost host(*s);
  s->start(0);
  EXPECT_EQ(host.log, (std::vector<Change>{{0, 0, true}, {0, 1, true}, {0, 2, true}}));
  s->waiting(ProcessId(1), 5 * kMs);
  host.advance_to(1000 * kMs);
  EXPECT_EQ(host.log.size(), 3U);
  EXPECT_EQ(s->stats().context_switches, 0U);
}

TEST(Scheduler, MisuseIsCaught) {
  auto s = make(params_for("local"), one_node(2), 1);
  FakeHost host(*s);
  s->start(0);
  EXPECT_THROW(s->waiting(ProcessId(1), 0), std::logic_error);  // process 1 has no CPU
  EXPECT_THROW(s->exited(ProcessId(1), 0), std::logic_error);
}

// Random process behaviour under every policy: at every step at most one
// process per CPU, running processes are on a CPU of their node, a blocked
// process holds none, and every process finishes (no starvation).
class Invariants : public ::testing::TestWithParam<std::string> {};

TEST_P(Invariants, HoldUnderRandomBehaviour) {
  constexpr uint32_t kNodes = 3;
  constexpr uint32_t kJobs = 4;
  std::vector<ProcessPlacement> placement;
  for (uint32_t j = 0; j < kJobs; ++j) {
    for (uint32_t n = 0; n < kNodes; ++n) placement.push_back(place(n, j));
  }
  auto params = params_for(GetParam());
  params.spin = 300 * kUs;
  auto s = make(params, placement, kNodes);
  FakeHost host(*s);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  IdVector<ProcessId, Tick> work_done(placement.size(), 0);
  const auto processes = ids<ProcessId>(placement.size());
  s->start(0);
  Tick now = 0;
  for (; now < 20'000 * kMs; now += 100 * kUs) {
    host.advance_to(now);
    bool all_done = true;
    for (const ProcessId p : processes) {
      const ProcessState st = s->state(p);
      all_done = all_done && st == ProcessState::kDone;
      if (st == ProcessState::kDone) continue;
      if (s->is_waiting(p)) {
        if (u(rng) < 0.05) s->wait_over(p, now);
      } else if (st == ProcessState::kRunning) {
        work_done[p] += 100 * kUs;
        if (work_done[p] > 200 * kMs && u(rng) < 0.01) {
          s->exited(p, now);
        } else if (u(rng) < 0.05) {
          s->waiting(p, now);
        }
      }
      if (s->state(p) != ProcessState::kRunning && s->state(p) != ProcessState::kDone && u(rng) < 0.01) {
        s->message_arrived(p, now);
      }
    }
    std::vector<ProcessId> running;
    for (const CpuId c : ids<CpuId>(s->cpu_count())) {
      const ProcessId p = s->running_on(c);
      if (p.is_none()) continue;
      ASSERT_EQ(s->state(p), ProcessState::kRunning) << "CPU " << c.value();
      running.push_back(p);
    }
    const auto on_cpu = std::ranges::count(processes, ProcessState::kRunning, [&](ProcessId p) { return s->state(p); });
    ASSERT_EQ(static_cast<size_t>(on_cpu), running.size()) << "a running process without a CPU";
    std::ranges::sort(running);
    ASSERT_EQ(std::ranges::adjacent_find(running), running.end()) << "a process on two CPUs";
    if (all_done) break;
  }
  for (const ProcessId p : processes) EXPECT_EQ(s->state(p), ProcessState::kDone) << "process " << p.value();
  // Each process needs over 200 ms of CPU; sharing one CPU, a node's four need over 800 ms.
  EXPECT_GT(now, (GetParam() == "batch" ? 1 : kJobs) * 200 * kMs);
  host.advance_to(now + 1000 * kMs);
  EXPECT_FALSE(host.timers_pending()) << "timers still firing after every process finished";
}

INSTANTIATE_TEST_SUITE_P(Policies, Invariants, ::testing::Values("batch", "local", "sb", "dcs-sb", "pb", "gang"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::ranges::replace(name, '-', '_');
                           return name;
                         });

TEST(SchedulerConfig, BadValuesNameTheirKey) {
  const auto error_of = [](const std::string& item) {
    try {
      sim::load_config(nlohmann::json(), {item});
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("scheduler.policy=fifo"),
            "invalid 'scheduler.policy': unknown scheduler 'fifo'; known: batch, dcs-sb, gang, local, pb, sb");
  EXPECT_EQ(error_of("scheduler.gang_slot_ms=0"), "invalid 'scheduler.gang_slot_ms': must be > 0, got 0");
  EXPECT_EQ(error_of("scheduler.spin_us=-1"), "invalid 'scheduler.spin_us': must be >= 0, got -1");
  EXPECT_EQ(error_of("scheduler.boost_period_ms=0"), "invalid 'scheduler.boost_period_ms': must be > 0, got 0");
  EXPECT_EQ(error_of("scheduler.cpus_per_node=0"), "invalid 'scheduler.cpus_per_node': a node needs at least one CPU");
  EXPECT_EQ(error_of("scheduler.wait=doze"),
            "invalid 'scheduler.wait': unknown wait mode 'doze'; known: auto, block, spin, spin-block");
  EXPECT_EQ(sim::load_config(nlohmann::json(), {"scheduler.policy=gang", "scheduler.spin_us=0"}).scheduling.policy,
            "gang");
}

}  // namespace
}  // namespace ibsec::schedulers
