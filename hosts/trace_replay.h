// Timed replay of traces (§4.1, docs/replay.md): every process walks through
// its events, keeping the original gap between the end of one event and the
// start of the next, while sends, receives, waits and collectives take as long
// as the simulated cards and network make them.
//
// Several traces can share the cluster, one job each (§4.3); trace.placement
// says on which node each rank runs (hosts/placement.h), and
// replay.compute_scale how fast the CPUs compute. A process advances only
// while the node scheduler
// (schedulers/) gives it a CPU: gaps and compute events are CPU time, which a
// preemption interrupts and a later dispatch resumes; communication is issued
// when the process runs and waited for by spinning or blocking, as the policy
// says. Each trace is read as the replay goes (one lookahead queue per
// process), so memory is bounded by how far processes drift apart.
//
// This module is the processes' progress through time and CPUs; what their
// communication means (matching, requests, collectives) is MpiMatching's.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/id_vector.h"
#include "core/types.h"
#include "hosts/compute_clock.h"
#include "hosts/host_model.h"
#include "hosts/mpi_matching.h"
#include "hosts/replay_params.h"
#include "hosts/synthetic_traffic.h"
#include "nic/cic.h"
#include "schedulers/scheduler.h"
#include "traces/trace_reader.h"

namespace ibsec::hosts {

using traces::TraceReader;

class TraceReplay final : public HostModel, private schedulers::SchedulerHost, private MessageTransport {
 public:
  // Each reader (one job) must be freshly opened on a trace that passed TraceChecker.
  TraceReplay(const sc_core::sc_module_name& name, EventKernel& kernel, std::vector<std::unique_ptr<TraceReader>> jobs,
              std::vector<nic::Cic*> cards, uint32_t mtu_bytes, const ReplayParams& replay,
              const schedulers::SchedulerParams& scheduling, DeliverySink& sink);
  ~TraceReplay() override;

  // Cluster-wide process ids: job j's rank r is process first + r of job j.
  [[nodiscard]] uint32_t total_processes() const { return static_cast<uint32_t>(processes_.size()); }
  [[nodiscard]] const schedulers::Scheduler& scheduler() const { return *scheduler_; }

  void on_packet_delivered(const network::Packet& packet, Tick now) override;
  void on_message_sent(uint32_t message, Tick now) override;
  [[nodiscard]] bool finished() const override { return processes_done_ == processes_.size(); }
  [[nodiscard]] bool deadlocked() const override;

  // Per-process and per-job completion times, and what each process is stuck
  // on if the replay could not finish.
  [[nodiscard]] nlohmann::ordered_json report() const override;
  [[nodiscard]] std::string stall_report() const override;
  [[nodiscard]] std::vector<HostWarning> warnings() const override;
  [[nodiscard]] nlohmann::ordered_json scheduler_report() const override { return scheduler_->report(); }
  [[nodiscard]] const schedulers::SchedulerStats* scheduler_stats() const override { return &scheduler_->stats(); }

 private:
  // Event kinds; the bits above kKindBits carry the process's dispatch
  // generation, so work queued before a preemption is recognised as stale.
  enum EventKind : uint32_t { kDispatched, kWorkDone, kResume, kSchedulerTimer, kBackgroundRound };
  static constexpr uint32_t kKindBits = 8;
  // What a stretch of CPU time leads to when it is done.
  enum class AfterWork : uint8_t { kBeginNext, kFinishCompute };

  struct Job {
    std::unique_ptr<TraceReader> reader;
    ProcessId first;
    ComputeChoice compute;  // which time its compute events last
    bool exhausted = false;
  };
  struct Process {
    JobId job;
    NodeId node;
    std::deque<TraceEvent> ahead;       // read from the trace, not yet begun
    std::optional<TraceEvent> current;  // begun, not yet complete
    uint64_t previous_end_ns = 0;       // original END of the last completed event
    uint64_t original_first_start_ns = UINT64_MAX;
    uint64_t original_last_end_ns = 0;
    Tick completed_at = 0;
    bool done = false;
    // CPU.
    bool on_cpu = false;
    uint32_t generation = 0;  // of the latest dispatch or preemption
    Tick cpu_since = 0;
    bool working = false;  // in a gap or compute event
    Tick work_left = 0;
    AfterWork after_work = AfterWork::kBeginNext;
    bool resume_pending = false;  // its wait ended; it goes on when it runs
  };

  void start_of_simulation() override;
  void handle(const ModuleEvent& event) override;

  // SchedulerHost.
  void dispatch(ProcessId p, Tick at) override;
  void preempt(ProcessId p, Tick now) override;
  void set_timer(Tick at, TimerId timer) override;
  // MessageTransport.
  void carry(const OutgoingMessage& message, Tick now) override;
  void continue_later(uint32_t background, Tick now) override;

  void schedule_for(ProcessId p, Tick at, EventKind kind);
  void dispatched(ProcessId p, Tick now);
  void start_work(ProcessId p, Tick duration, AfterWork after, Tick now);
  void work_done(ProcessId p, Tick now);
  void start_waiting(ProcessId p, Tick now);
  void wait_over(ProcessId p, Tick now);
  void resume(ProcessId p, Tick now);
  bool fetch(ProcessId p);
  void run(ProcessId p, Tick now);
  void finish(ProcessId p, Tick now);
  bool begin(ProcessId p, Tick now);
  bool begin_self_message(ProcessId p, const TraceEvent& e, Tick now);
  void finish_current(ProcessId p);
  [[nodiscard]] Tick cpu_time(uint64_t original_ns) const;
  [[nodiscard]] uint64_t compute_ns(ProcessId p, const TraceEvent& e) const;
  [[nodiscard]] uint64_t gap_before_next(ProcessId p) const;
  [[nodiscard]] nlohmann::ordered_json placement_report() const;
  [[nodiscard]] uint64_t calls_running(TraceOp op) const;
  static IdVector<JobId, MpiJob> mpi_jobs(const std::vector<std::unique_ptr<TraceReader>>& readers);
  [[nodiscard]] uint32_t rank(ProcessId p) const { return p.value() - jobs_[processes_[p].job].first.value(); }

  IdVector<JobId, Job> jobs_;
  std::vector<nic::Cic*> cards_;
  ReplayParams params_;
  DeliverySink& sink_;
  IdVector<ProcessId, Process> processes_;
  std::unique_ptr<schedulers::Scheduler> scheduler_;
  MpiMatching matching_;
  size_t processes_done_ = 0;
  size_t processes_waiting_ = 0;  // for communication, their wait not yet over
};

}  // namespace ibsec::hosts
