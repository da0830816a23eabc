// The node CPU model (docs/schedulers.md). Every node has a few CPUs and runs
// several processes, one per job placed on it; a process advances through its
// trace only while it holds a CPU. A process is ready, running (working or
// spinning on communication), blocked, or done.
//
// Scheduler holds the mechanics every policy shares: process and CPU state,
// context-switch cost, how a process waits (spin, block, or spin then block),
// the policy's timers and the statistics. A policy (local, sb, dcs-sb, pb,
// gang, batch) decides only who runs where; it is a subclass registered by
// name in its own file. Plain C++, no SystemC: a SchedulerHost (the trace
// replay, or a test) carries out dispatches and preemptions and fires timers.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/id_vector.h"
#include "core/parameters.h"
#include "core/registry.h"
#include "core/slot_pool.h"
#include "core/statistics.h"
#include "core/time.h"
#include "core/types.h"

namespace ibsec::schedulers {

inline constexpr Tick kTicksPerMs = 1000 * kTicksPerUs;

// How a process waits for communication it cannot go on without.
enum class WaitMode : uint8_t {
  kPolicy,     // the policy's own choice
  kSpin,       // busy-wait on the CPU until the message is there or the CPU is taken away
  kBlock,      // give the CPU up at once; the arrival wakes the process
  kSpinBlock,  // spin for `spin`, then block (Arpaci-Dusseau et al. 1998)
};
// "auto", "spin", "block" or "spin-block"; throws ConfigError naming `field`.
WaitMode parse_wait_mode(const std::string& text, const std::string& field);
const char* wait_mode_name(WaitMode mode);

// The node scheduler's parameters.
struct SchedulerParams {
  std::string policy = "batch";
  uint32_t cpus_per_node = 1;
  Tick context_switch = 5 * kTicksPerUs;
  Tick spin = 750 * kTicksPerUs;        // SB and DCS-SB, §4.1
  Tick boost_period = 2 * kTicksPerMs;  // PB, §4.1
  Tick gang_slot = 20 * kTicksPerMs;    // gang, §4.1
  WaitMode wait = WaitMode::kPolicy;
  // Whether each node starts its processes in its own random order (jobs
  // launched on the nodes at slightly different moments) or in job order
  // everywhere, which lines the nodes up like a gang from the start.
  bool random_start_order = true;
  uint64_t seed = 1;
};

// scheduler.* : declared in scheduler.cpp with the initial values above as the defaults.
const ParameterSet<SchedulerParams>& scheduler_parameters();

struct ProcessPlacement {
  NodeId node;
  JobId job;
};

enum class ProcessState : uint8_t { kReady, kRunning, kBlocked, kDone };

class SchedulerHost {
 public:
  virtual ~SchedulerHost() = default;
  // `process` holds a CPU from `at` on (`at` is after any context switch).
  virtual void dispatch(ProcessId process, Tick at) = 0;
  // `process` loses its CPU now.
  virtual void preempt(ProcessId process, Tick now) = 0;
  // Scheduler::timer(timer, at) is to be called at time `at`.
  virtual void set_timer(Tick at, TimerId timer) = 0;
};

// The result reports context switches; the rest is in its "scheduler" section.
struct SchedulerStats : StatGroupOf<SchedulerStats> {
  static constexpr Shown kSection = Shown::kInternal;
  Counter dispatches{*this, {"dispatches", "dispatches", "processes started on a CPU", Merge::kSum, kSection}};
  Counter context_switches{
      *this, {"context_switches", "switches", "times a CPU started a process other than the one it ran last"}};
  Counter preemptions{*this, {"preemptions", "preemptions", "processes taken off a CPU", Merge::kSum, kSection}};
  Counter blocks{*this, {"blocks", "blocks", "processes that gave their CPU up to wait", Merge::kSum, kSection}};
  Counter wakeups{*this, {"wakeups", "wake-ups", "blocked processes made ready", Merge::kSum, kSection}};
  Counter boosts{*this, {"boosts", "boosts", "DCS-SB and PB priority raises", Merge::kSum, kSection}};
  Counter on_cpu{*this, {"on_cpu", "ps", "summed over processes: time holding a CPU", Merge::kSum, kSection}};
  Counter spinning{*this, {"spinning", "ps", "part of on_cpu spent waiting for communication", Merge::kSum, kSection}};
  Counter switching{*this, {"switching", "ps", "context-switch time", Merge::kSum, kSection}};
};

class Scheduler {
 public:
  // `cpu_nodes[c]` is the node of CPU c.
  Scheduler(std::string name, const SchedulerParams& params, const std::vector<ProcessPlacement>& processes,
            const IdVector<CpuId, NodeId>& cpu_nodes);
  virtual ~Scheduler() = default;
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  void attach(SchedulerHost& host) { host_ = &host; }

  // What the process model reports. Every process is ready at start().
  void start(Tick now);
  void waiting(ProcessId p, Tick now);          // p, on a CPU, waits for communication
  void wait_over(ProcessId p, Tick now);        // what p waited for has happened
  void exited(ProcessId p, Tick now);           // p, on a CPU, has finished its trace
  void message_arrived(ProcessId p, Tick now);  // a message for p is in its node's memory
  void timer(TimerId timer, Tick now);

  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] ProcessState state(ProcessId p) const { return processes_[p].state; }
  [[nodiscard]] bool is_waiting(ProcessId p) const { return processes_[p].waiting; }
  // The process on `cpu`, or none.
  [[nodiscard]] ProcessId running_on(CpuId cpu) const { return cpus_[cpu].current; }
  [[nodiscard]] uint32_t cpu_count() const { return static_cast<uint32_t>(cpus_.size()); }
  [[nodiscard]] uint32_t process_count() const { return static_cast<uint32_t>(processes_.size()); }
  [[nodiscard]] const SchedulerStats& stats() const { return stats_; }
  [[nodiscard]] WaitMode wait_mode() const { return wait_; }
  [[nodiscard]] nlohmann::ordered_json report() const;

 protected:
  struct Process {
    ProcessPlacement where;
    ProcessState state = ProcessState::kReady;
    CpuId cpu = CpuId::none();
    bool waiting = false;     // for communication
    bool unconsumed = false;  // a message arrived while it was off its CPU
    Tick on_cpu_since = 0;
    Tick spin_since = 0;
    TimerId spin_timer = TimerId::none();
  };
  struct Cpu {
    NodeId node;
    ProcessId current = ProcessId::none();
    ProcessId last = ProcessId::none();  // whose state the CPU holds: switching back costs nothing
  };

  // Mechanics for policies.
  // Starts p on the idle CPU `cpu`; returns when p actually runs.
  Tick run_on(CpuId cpu, ProcessId p, Tick now);
  // Takes the CPU from its process (which becomes ready); returns it or none.
  ProcessId preempt_cpu(CpuId cpu, Tick now);
  // Makes a blocked process ready without its wait being over (a boost).
  void unblock(ProcessId p);
  void count_boost() { ++stats_.boosts; }
  // on_timer(kind, arg) is called at `at` unless the timer is cancelled
  // first; `arg` is what the kind says (a process id, a node id, nothing).
  TimerId set_timer(Tick at, uint32_t kind, uint32_t arg);
  // Leaves `timer` none.
  void cancel_timer(TimerId& timer);
  [[nodiscard]] const Process& process(ProcessId p) const { return processes_[p]; }
  [[nodiscard]] const Cpu& cpu(CpuId c) const { return cpus_[c]; }
  [[nodiscard]] const SchedulerParams& params() const { return params_; }

  // Policy hooks.
  [[nodiscard]] virtual WaitMode default_wait() const = 0;
  virtual void on_start(Tick now) = 0;
  // p gave up `cpu` to sleep, or finished: the CPU is idle; choose what runs next.
  virtual void on_block(ProcessId p, CpuId cpu, Tick now) = 0;
  virtual void on_exit(ProcessId p, CpuId cpu, Tick now) = 0;
  // The blocked p is ready again.
  virtual void on_wake(ProcessId p, Tick now) = 0;
  // A message arrived for p while it was off its CPU.
  virtual void on_message(ProcessId /*p*/, Tick /*now*/) {}
  virtual void on_timer(uint32_t kind, uint32_t arg, Tick now) = 0;
  // p is about to leave its CPU (block, exit, preemption): account its run.
  virtual void on_leave_cpu(ProcessId /*p*/, Tick /*ran*/) {}

 private:
  enum BaseTimer : uint32_t { kSpinTimeout = UINT32_MAX };
  struct Timer {
    uint32_t kind = 0;
    uint32_t arg = 0;
    bool live = false;
  };

  void take_off_cpu(ProcessId p, Tick now);
  CpuId leave_cpu(ProcessId p, ProcessState state, const char* doing, Tick now);
  void block(ProcessId p, Tick now);
  void stop_spinning(Process& process, Tick now);
  [[noreturn]] void broken(const std::string& what, ProcessId p) const;

  std::string name_;
  SchedulerParams params_;
  WaitMode wait_ = WaitMode::kSpin;
  IdVector<ProcessId, Process> processes_;
  IdVector<CpuId, Cpu> cpus_;
  SlotPool<Timer, TimerId> timers_;
  SchedulerHost* host_ = nullptr;
  SchedulerStats stats_;
};

struct SchedulerEntry {
  using Factory =
      std::function<std::unique_ptr<Scheduler>(const SchedulerParams&, std::vector<ProcessPlacement>, uint32_t nodes)>;
  std::string name;
  std::string description;
  Factory make;
};

class SchedulerRegistry : public Registry<SchedulerEntry> {
 public:
  static const Entry& get(const std::string& name, const std::string& field = "scheduler.policy") {
    return Registry::get(name, field, "scheduler");
  }
};

// CPUs numbered node-major: CPU c is on node c / cpus_per_node.
IdVector<CpuId, NodeId> node_major_cpus(uint32_t nodes, uint32_t cpus_per_node);

#define IBSEC_REGISTER_SCHEDULER(NAME, DESCRIPTION, CLASS)                                                       \
  namespace {                                                                                                    \
  [[maybe_unused]] const bool registered_##CLASS = ::ibsec::schedulers::SchedulerRegistry::add(                  \
      {NAME, DESCRIPTION,                                                                                        \
       [](const ::ibsec::schedulers::SchedulerParams& params,                                                    \
          std::vector<::ibsec::schedulers::ProcessPlacement> processes, uint32_t nodes) {                        \
         return std::unique_ptr<::ibsec::schedulers::Scheduler>(new CLASS(params, std::move(processes), nodes)); \
       }});                                                                                                      \
  }

}  // namespace ibsec::schedulers
