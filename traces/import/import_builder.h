// Turns the MPI calls of another tool's trace into ibsec trace events
// (docs/importing.md). A source reader (OTF2 today, DUMPI beside it later)
// says what each rank did, record by record in time order: a call was
// entered, it sent, received, completed a request or took part in a
// collective, it was left. The builder makes the events of the ibsec format
// from that: compute gaps between calls, sends and receives with request
// names of its own, waits, collectives with the sizes every member gave. It
// matches receives with sends as it goes, which is what lets it repair a
// receive the source left without its sender, size or communicator, and
// only where the matching send leaves no choice; every repair and every call
// it could not express are counted in the tally, never dropped silently.
//
// Events are handed on in the format's order (non-decreasing START), ties
// by rank, then in each rank's own order: an event waits in a small heap
// until no rank can still produce one as early, so memory follows what is
// in flight, not the length of the trace.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/slot_pool.h"
#include "core/types.h"
#include "traces/import/rank_queues.h"
#include "traces/trace_error.h"
#include "traces/trace_event.h"

namespace ibsec::traces {

// A process as the ibsec trace numbers it: its rank in MPI_COMM_WORLD.
using WorldRank = StrongId<struct WorldRankTag, uint32_t>;
// A request as the source names it (an OTF2 request id, a DUMPI request).
using SourceRequest = StrongId<struct SourceRequestTag, uint64_t>;
// A communicator of the ibsec trace (0 the world, others header `comm` lines).
using TraceComm = StrongId<struct TraceCommTag, uint32_t>;

// What an import could not express or had to mend, by description.
struct ImportTally {
  std::map<std::string, uint64_t> not_imported;  // call name -> calls whose communication is not in the trace
  std::map<std::string, uint64_t> repairs;       // what was mended -> how many times
  uint64_t messages = 0;                         // point-to-point sends written
  uint64_t message_bytes = 0;
  uint64_t collective_calls = 0;
};

// Per (sender, receiver) of world ranks: the most by which a send started
// after its matching receive was recorded (negative: the least slack). A
// positive lag means the two ranks' clocks disagree, as EZTrace's do.
using ClockLags = std::map<std::pair<uint32_t, uint32_t>, int64_t>;

// The least per-rank clock shifts (ns, each >= 0) that put every receive at
// or after its send: o[receiver] - o[sender] >= lag for every pair, solved
// as longest paths. Throws TraceError naming SOURCE when no constant shifts
// do (the clocks drift apart, or a receive precedes its send on one clock).
std::vector<uint64_t> clock_offsets(const std::string& source, uint32_t processes, const ClockLags& lags);

// Counts the clock repair in `tally`: the shifts clock_offsets found.
void note_clock_shifts(ImportTally& tally, const std::vector<uint64_t>& offsets);

class ImportBuilder {
 public:
  using Sink = std::function<void(const TraceEvent&)>;

  // `comms`: the members (world ranks, in communicator-rank order) of every
  // communicator the events may name, 0 (the world) included.
  ImportBuilder(std::string source, uint32_t processes, std::map<uint32_t, std::vector<uint32_t>> comms, Sink sink);

  // The source records no completions under MPI_Waitall, MPI_Waitany,
  // MPI_Testall, ... (EZTrace's C interface): an MPI_Waitall that records none
  // completes every open request, a request started again while open
  // completes where it is reused, and MPI_Finalize completes what is left
  // (repairs, noted).
  void assume_completions_unrecorded() { completions_unrecorded_ = true; }

  // Where the records that follow come from, for messages: the rank and the
  // index of the record among the rank's own.
  void at(WorldRank rank, uint64_t record_index);
  // The time of the record being read (ns, on its rank's clock, shifted);
  // no record still to be read is earlier than `earliest_to_come_ns`.
  void now(uint64_t time_ns, uint64_t earliest_to_come_ns);

  // A rank's first record: its compute may be counted from here.
  void begin_rank(WorldRank rank, uint64_t time_ns);
  // An MPI call (normalised name "MPI_Send") is entered or left. `cpu_ns`:
  // the process's CPU clock at that moment, where the source records one
  // (DUMPI); a compute gap between two calls that both have it carries it.
  void enter_call(WorldRank rank, uint64_t time_ns, std::string_view call,
                  std::optional<uint64_t> cpu_ns = std::nullopt);
  void leave_call(WorldRank rank, uint64_t time_ns, std::optional<uint64_t> cpu_ns = std::nullopt);
  // The open call moved no data by its arguments (a send to MPI_PROC_NULL):
  // it is computation, not a call left out.
  void moves_nothing(WorldRank rank);

  // What the open call did. Peers and roots are world ranks.
  void send(WorldRank rank, WorldRank peer, uint64_t bytes, uint32_t tag, TraceComm comm);
  void isend(WorldRank rank, WorldRank peer, uint64_t bytes, uint32_t tag, TraceComm comm, SourceRequest request);
  void send_completed(WorldRank rank, SourceRequest request);
  // `posted_any`: the receive was posted with MPI_ANY_SOURCE (where the source says so).
  // `size_from_send`: the source does not say what arrived (DUMPI without a
  // status): `bytes` is only what was posted, the size is its send's.
  void recv(WorldRank rank, WorldRank peer, uint64_t bytes, uint32_t tag, TraceComm comm, bool posted_any = false,
            bool size_from_send = false);
  void irecv_posted(WorldRank rank, SourceRequest request);
  void irecv_completed(WorldRank rank, WorldRank peer, uint64_t bytes, uint32_t tag, TraceComm comm,
                       SourceRequest request, bool posted_any = false, bool size_from_send = false);
  void request_cancelled(WorldRank rank, SourceRequest request);
  // `op` a blocking collective of trace_ops.def; `sent`/`received` the bytes
  // the rank's own buffers held, as the source gives them.
  void collective(WorldRank rank, TraceOp op, TraceComm comm, std::optional<WorldRank> root, uint64_t sent,
                  uint64_t received);
  // An alltoallv whose source gives the bytes sent to each member (in
  // communicator-rank order): written exactly, not spread.
  void alltoallv(WorldRank rank, TraceComm comm, std::vector<uint64_t> sent_to_each);

  // The end of the source: everything still open is refused, the rest handed on.
  void finish();

  [[nodiscard]] const ImportTally& tally() const { return tally_; }
  // Every matched message's clock lag, for clock_offsets.
  [[nodiscard]] const ClockLags& clock_lags() const { return lags_; }
  // Whether an event depended on which rank's records were read first: a
  // receive re-filed on another communicator or rebuilt from the sends
  // waiting for it. Without such a repair every event depends on its own
  // rank's clock alone, so shifting a rank's clock shifts its events and
  // nothing else (shift_rank_clocks); with one, the source must be read
  // again with the clocks mended.
  [[nodiscard]] bool reading_order_mattered() const { return reading_order_mattered_; }
  // Throws a TraceError at the current rank and record.
  [[noreturn]] void fail(const std::string& field, const std::string& problem) const;

 private:
  // An event being made. It enters the order queues when its call is left
  // and leaves them, in START order, once it is ready: a receive request
  // waits for its completion to know its sender, a collective for every
  // member's sizes.
  struct Pending {
    TraceEvent event;
    bool ready = true;
    bool dropped = false;  // a cancelled request: never written
  };
  // An event being made, in pending_. Its slot is released once the event
  // is handed on (flush), so a handle is followed only while the event
  // cannot have been handed on yet: until its call is left, or while it is
  // not ready (the receives and collectives that wait for a match keep
  // their handles only until then).
  using PendingId = StrongId<struct PendingTag, uint32_t>;

  // What the open call did, in order. Opening actions (isend, irecv) start a
  // request; the others block the call until they are done.
  struct Action {
    enum class Kind : uint8_t { kOpens, kBlocks } kind;
    PendingId event;
  };

  struct OpenRequest {
    uint32_t name = 0;  // the ibsec request number
    // The irecv that opened it, not ready until it completes; none for a
    // send, whose isend may be handed on while the request is open.
    PendingId irecv = PendingId::none();
    bool receive = false;
    bool recorded = false;  // a receive whose sender and size the source gave
    uint64_t record_index = 0;
  };

  struct RankState {
    bool seen = false;
    bool finished = false;                 // MPI_Finalize entered: nothing after it is imported
    std::optional<uint64_t> compute_from;  // where the next compute gap begins
    std::optional<uint64_t> cpu_from;      // the CPU clock there, where the source records one
    std::optional<uint64_t> call_cpu;      // the CPU clock as the open call began
    bool moves_nothing = false;            // the open call moved no data by its arguments
    bool in_call = false;
    int depth = 0;  // MPI calls made inside the open one (a library's own) are part of it
    std::string call;
    uint64_t call_start = 0;
    uint64_t call_record = 0;
    std::vector<Action> actions;
    std::unordered_map<uint64_t, OpenRequest> requests;  // by SourceRequest
    std::vector<uint32_t> free_names;
    uint32_t next_name = 0;
    std::unordered_map<uint32_t, uint64_t> collectives_called;  // comm -> how many so far
  };

  struct CollectiveInstance {
    TraceOp op = TraceOp::kBarrier;
    std::optional<uint32_t> root;
    struct Member {
      PendingId event;
      uint64_t sent = 0;
      uint64_t received = 0;
      std::shared_ptr<const std::vector<uint64_t>> sent_to_each;  // alltoallv, where the source gives it
    };
    std::vector<std::optional<Member>> members;  // by communicator rank
    size_t arrived = 0;
  };

  RankState& state(WorldRank rank);
  RankState& in_call(WorldRank rank, const char* what);
  PendingId new_event(TraceOp op);
  // Valid until the next new_event, which may move every event being made.
  TraceEvent& event(PendingId id) { return pending_[id].event; }
  void set_message(TraceEvent& event, WorldRank peer, uint64_t bytes, uint32_t tag, TraceComm comm) const;
  uint32_t name_request(RankState& rank);
  void check_member(TraceComm comm, WorldRank rank, const char* field) const;
  uint32_t fits_u32(uint64_t value, const char* field) const;

  void place_call_events(RankState& rank, uint64_t leave_ns);
  void note_send(WorldRank rank, WorldRank peer, uint64_t bytes, uint32_t tag, TraceComm comm);
  void note_lag(uint32_t sender, uint32_t receiver, uint64_t send_ns, uint64_t receive_ns);
  void match_receive(PendingId receive, bool size_from_send);
  bool reconstruct_unrecorded_receive(RankState& rank);
  void complete_every_open_request(RankState& rank);
  void take_earliest_send(PendingId irecv);
  void fill_unrecorded_receive(PendingId irecv, uint32_t sender, uint64_t bytes, uint32_t tag, uint32_t comm,
                               const char* repair);
  void complete_request(RankState& rank, SourceRequest request, const char* field, bool free_name = true);
  std::optional<uint32_t> complete_reused_request(RankState& rank, SourceRequest request);
  void count_call_without_events(const RankState& rank);
  void join_collective(RankState& rank, PendingId id, TraceComm comm, std::optional<WorldRank> root, uint64_t sent,
                       uint64_t received, std::shared_ptr<const std::vector<uint64_t>> sent_to_each = nullptr);
  PendingId compute_event(RankState& rank, uint32_t world_rank, uint64_t until_ns);
  void size_collective(CollectiveInstance& instance, uint32_t comm);

  void flush(uint64_t watermark);
  [[nodiscard]] uint64_t watermark() const;
  void refuse_what_is_open();

  // Every event being made: a slot each while it is in flight, reused once
  // it is handed on, so that making an event allocates nothing.
  SlotPool<Pending, PendingId> pending_;
  std::string source_;
  uint32_t processes_;
  std::map<uint32_t, std::vector<uint32_t>> comms_;
  std::map<uint32_t, std::unordered_map<uint32_t, uint32_t>> position_;  // comm -> world rank -> comm rank
  Sink sink_;
  std::vector<RankState> ranks_;
  WorldRank where_rank_{0};
  uint64_t where_record_ = 0;
  uint64_t now_ns_ = 0;     // no record still to be read is earlier
  uint64_t record_ns_ = 0;  // the record being read

  // The events placed and not yet handed on, in the format's order: each
  // rank places its events in START order, so they wait in a queue per
  // rank, and a heap of the queues' first events (START, rank) says which
  // goes next: a few ranks to order, not every event in flight.
  void place(PendingId pending);
  RankQueues<PendingId> placed_;
  uint64_t events_since_flush_ = 0;

  struct InFlight {
    uint64_t bytes = 0;
    uint64_t send_ns = 0;  // when its send call began
  };
  // Sends not yet received, by receiver then (sender, tag, comm).
  std::vector<std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::deque<InFlight>>> inbox_;
  // Receives read before their send (a skewed clock, or a receive posted
  // before its send began), by (receiver, sender, tag, comm): when each was
  // recorded, and the receive itself where its size is its send's.
  std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>,
           std::deque<std::pair<uint64_t, std::optional<PendingId>>>>
      early_receives_;
  // Receives completed without a record whose send is still to be read, by
  // receiver, with when their wait ended.
  std::map<uint32_t, std::deque<std::pair<PendingId, uint64_t>>> awaiting_send_;
  ClockLags lags_;
  std::map<std::pair<uint32_t, uint64_t>, CollectiveInstance> collectives_;  // (comm, sequence number)
  ImportTally tally_;
  bool completions_unrecorded_ = false;
  bool reading_order_mattered_ = false;
};

}  // namespace ibsec::traces
