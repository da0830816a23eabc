// Timed replay of a trace (§4.1, docs/trace-format.md "Replay"): every
// process walks through its events, keeping the original gap between the end
// of one event and the start of the next, while sends, receives, waits and
// collectives take as long as the simulated cards and network make them.
//
// Process p runs on node p mod nodes. The trace is read as the replay goes
// (one lookahead queue per process), so its size is bounded by how far
// processes drift apart, not by the trace.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "nic/cic.h"
#include "traces/collectives.h"
#include "traces/host_model.h"
#include "traces/synthetic_traffic.h"
#include "traces/trace_reader.h"

namespace ibsec::traces {

class TraceReplay final : public HostModel {
 public:
  // `reader` must be freshly opened on a trace that passed TraceChecker.
  TraceReplay(const sc_core::sc_module_name& name, sim::KernelCounters& counters, std::unique_ptr<TraceReader> reader,
              std::vector<nic::Cic*> cards, uint32_t mtu_bytes, DeliverySink& sink);
  ~TraceReplay() override;

  void on_packet_delivered(const network::Packet& packet, Tick now) override;
  void on_message_sent(uint32_t message, Tick now) override;
  [[nodiscard]] bool finished() const override { return processes_done_ == processes_.size(); }

  // Per-process and job completion times, and what each process is stuck on
  // if the replay could not finish.
  [[nodiscard]] nlohmann::ordered_json report() const override;
  [[nodiscard]] std::string stall_report() const override;

 private:
  enum EventKind : uint32_t { kStart, kBegin, kComputeDone, kResume };
  static constexpr uint32_t kNone = UINT32_MAX;

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
  };

  void start_of_simulation() override;
  void handle(const sim::ModuleEvent& event) override;

  bool fetch(uint32_t p);
  void run(uint32_t p, Tick now);
  bool begin(uint32_t p, Tick now);
  bool start_round(uint32_t p, Tick now);
  void finish_current(uint32_t p);
  uint32_t send(uint32_t p, uint32_t to, uint64_t bytes, const ChannelKey& key, bool awaited, Tick now);
  uint32_t post_receive(uint32_t p, const ChannelKey& key, bool awaited);
  void operation_done(uint32_t op, Tick now);
  uint32_t new_operation(uint32_t p, bool awaited);
  [[nodiscard]] uint32_t world_rank(uint32_t comm, uint32_t comm_rank) const;

  std::unique_ptr<TraceReader> reader_;
  std::map<uint32_t, Communicator> comms_;
  std::vector<nic::Cic*> cards_;
  uint32_t mtu_bytes_;
  DeliverySink& sink_;
  std::vector<Process> processes_;
  size_t processes_done_ = 0;
  bool trace_exhausted_ = false;
  std::vector<Operation> operations_;
  std::vector<uint32_t> free_operations_;
  std::vector<Message> messages_;
  std::vector<uint32_t> free_messages_;
  std::unordered_map<ChannelKey, Channel, ChannelKeyHash> channels_;
  uint64_t messages_sent_ = 0;
  uint64_t collective_messages_ = 0;
};

}  // namespace ibsec::traces
