// Timed replay of traces (§4.1, docs/replay.md): every process walks through
// its events, keeping the original gap between the end of one event and the
// start of the next, while sends, receives, waits and collectives take as long
// as the simulated cards and network make them.
//
// Several traces can share the cluster, one job each (§4.3); rank r of a job
// runs on node r mod nodes. A process advances only while the node scheduler
// (schedulers/) gives it a CPU: gaps and compute events are CPU time, which a
// preemption interrupts and a later dispatch resumes; communication is issued
// when the process runs and waited for by spinning or blocking, as the policy
// says. Each trace is read as the replay goes (one lookahead queue per
// process), so memory is bounded by how far processes drift apart.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/slot_pool.h"
#include "nic/cic.h"
#include "schedulers/scheduler.h"
#include "hosts/collectives.h"
#include "hosts/host_model.h"
#include "hosts/synthetic_traffic.h"
#include "traces/trace_reader.h"

namespace ibsec::hosts {

// The replay reads the trace format's events, as the checker has passed them.
using traces::Communicator;
using traces::TraceEvent;
using traces::TraceReader;

class TraceReplay final : public HostModel, private schedulers::SchedulerHost {
 public:
  // Each reader (one job) must be freshly opened on a trace that passed TraceChecker.
  TraceReplay(const sc_core::sc_module_name& name, KernelCounters& counters,
              std::vector<std::unique_ptr<TraceReader>> jobs, std::vector<nic::Cic*> cards, uint32_t mtu_bytes,
              const schedulers::SchedulerParams& scheduling, DeliverySink& sink);
  ~TraceReplay() override;

  // Cluster-wide process ids: job j's rank r is first_process(j) + r.
  [[nodiscard]] uint32_t total_processes() const { return static_cast<uint32_t>(processes_.size()); }
  [[nodiscard]] const schedulers::Scheduler& scheduler() const { return *scheduler_; }

  void on_packet_delivered(const network::Packet& packet, Tick now) override;
  void on_message_sent(uint32_t message, Tick now) override;
  [[nodiscard]] bool finished() const override { return processes_done_ == processes_.size(); }

  // Per-process and per-job completion times, and what each process is stuck
  // on if the replay could not finish.
  [[nodiscard]] nlohmann::ordered_json report() const override;
  [[nodiscard]] std::string stall_report() const override;
  [[nodiscard]] nlohmann::ordered_json scheduler_report() const override { return scheduler_->report(); }
  [[nodiscard]] const schedulers::SchedulerStats* scheduler_stats() const override { return &scheduler_->stats(); }

 private:
  // Event kinds; the bits above kKindBits carry the process's dispatch
  // generation, so work queued before a preemption is recognised as stale.
  enum EventKind : uint32_t { kDispatched, kWorkDone, kResume, kSchedulerTimer };
  static constexpr uint32_t kKindBits = 8;
  static constexpr uint32_t kNone = UINT32_MAX;
  // What a stretch of CPU time leads to when it is done.
  enum class AfterWork : uint8_t { kBeginNext, kFinishCompute };

  struct Job {
    std::unique_ptr<TraceReader> reader;
    std::map<uint32_t, Communicator> comms;
    uint32_t first_process = 0;
    bool exhausted = false;
  };

  // A send or posted receive the process may wait for.
  struct Operation {
    uint32_t process = 0;
    bool done = false;
    bool awaited = false;
  };
  // A matching context: user traffic of one tag, or one collective call.
  struct ChannelKey {
    uint32_t source = 0;
    uint32_t destination = 0;
    uint32_t tag = 0;
    uint32_t context = 0;  // 0 = user point-to-point, else 1 + communicator id
    bool operator==(const ChannelKey&) const = default;
  };
  struct ChannelKeyHash {
    size_t operator()(const ChannelKey& k) const noexcept;
  };
  struct Message {
    ChannelKey key;
    uint32_t send_op = kNone;   // until the card has sent the last packet
    uint32_t packets_left = 0;  // until the receiving card has delivered them all
  };
  // Only one side waits at a time: receives posted early, or messages that
  // arrived before their receive.
  struct Channel {
    std::deque<uint32_t> posted;
    uint32_t unexpected = 0;
  };
  struct Process {
    uint32_t job = 0;
    uint32_t node = 0;
    std::deque<TraceEvent> ahead;        // read from the trace, not yet begun
    std::optional<TraceEvent> current;   // begun, not yet complete
    uint64_t previous_end_ns = 0;        // original END of the last completed event
    uint32_t blocked_on = 0;             // operations still to complete
    std::vector<CollectiveRound> rounds; // of the current collective
    size_t round = 0;
    std::unordered_map<uint32_t, uint32_t> requests;     // trace REQ -> operation
    std::map<uint32_t, uint32_t> collective_calls;       // communicator -> calls begun
    uint32_t collective_tag = 0;                         // call number of the current collective
    uint64_t original_first_start_ns = UINT64_MAX;
    uint64_t original_last_end_ns = 0;
    Tick completed_at = 0;
    bool done = false;
    // CPU.
    bool on_cpu = false;
    uint32_t generation = 0;             // of the latest dispatch or preemption
    Tick cpu_since = 0;
    bool working = false;                // in a gap or compute event
    Tick work_left = 0;
    AfterWork after_work = AfterWork::kBeginNext;
    bool resume_pending = false;         // its wait ended; it goes on when it runs
  };

  void start_of_simulation() override;
  void handle(const ModuleEvent& event) override;

  // SchedulerHost.
  void dispatch(ProcessId process, Tick at) override;
  void preempt(ProcessId process, Tick now) override;
  void set_timer(Tick at, TimerId timer) override;

  void schedule_for(uint32_t p, Tick at, EventKind kind);
  void dispatched(uint32_t p, Tick now);
  void start_work(uint32_t p, Tick duration, AfterWork after, Tick now);
  void work_done(uint32_t p, Tick now);
  void resume(uint32_t p, Tick now);
  void wait_for(uint32_t p, uint32_t operations, Tick now);
  bool fetch(uint32_t p);
  void run(uint32_t p, Tick now);
  bool begin(uint32_t p, Tick now);
  bool start_round(uint32_t p, Tick now);
  void finish_current(uint32_t p);
  uint32_t send(uint32_t p, uint32_t to, uint64_t bytes, const ChannelKey& key, bool awaited, Tick now);
  uint32_t post_receive(uint32_t p, const ChannelKey& key, bool awaited);
  void operation_done(uint32_t op, Tick now);
  uint32_t new_operation(uint32_t p, bool awaited);
  [[nodiscard]] uint32_t world_rank(uint32_t p, uint32_t comm, uint32_t comm_rank) const;
  [[nodiscard]] const Communicator& communicator(uint32_t p, uint32_t comm) const;

  std::vector<Job> jobs_;
  std::vector<nic::Cic*> cards_;
  uint32_t mtu_bytes_;
  DeliverySink& sink_;
  std::vector<Process> processes_;
  std::unique_ptr<schedulers::Scheduler> scheduler_;
  size_t processes_done_ = 0;
  SlotPool<Operation> operations_;
  SlotPool<Message> messages_;
  std::unordered_map<ChannelKey, Channel, ChannelKeyHash> channels_;
  uint64_t messages_sent_ = 0;
  uint64_t collective_messages_ = 0;
};

}  // namespace ibsec::hosts
