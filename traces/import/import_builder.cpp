#include "traces/import/import_builder.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <tuple>

namespace ibsec::traces {

namespace {

constexpr uint64_t kFlushEvery = 256;

// The repairs of a receive the source completed without saying from whom (EZTrace's C MPI_Wait*).
constexpr const char* kOnlySendRepair =
    "receive completion missing under MPI_Wait: sender, tag, size and communicator from its only possible send";
constexpr const char* kEarliestSendRepair =
    "receive completion missing: sender, tag, size and communicator from the earliest unmatched send to the rank";
constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

// Calls that move no data: their time is computation, as in the capture
// library (traces/capture/README.md), and they are not "not imported".
// Waits and tests are here too: what they complete comes as records of its own.
bool moves_no_data(std::string_view call) {
  static constexpr std::string_view kPrefixes[] = {
      "MPI_Comm_",  "MPI_Group_",    "MPI_Type_",        "MPI_Op_",      "MPI_Errhandler_", "MPI_Error_",
      "MPI_Attr_",  "MPI_Info_",     "MPI_Keyval_",      "MPI_Wait",     "MPI_Test",        "MPI_Get_",
      "MPI_Query_", "MPI_Is_thread", "MPI_Init",         "MPI_Probe",    "MPI_Iprobe",      "MPI_Wtime",
      "MPI_Wtick",  "MPI_Buffer_",   "MPI_Request_free", "MPI_Pcontrol", "MPI_Initialized", "MPI_Finalized",
      "MPI_Cart_",  "MPI_Graph_",    "MPI_Dims_",        "MPI_Address",  "MPI_Pack_size",   "MPI_Abort"};
  return std::any_of(std::begin(kPrefixes), std::end(kPrefixes),
                     [&](std::string_view prefix) { return call.starts_with(prefix); });
}

std::string op_name(TraceOp op) { return std::string(name(op)); }

}  // namespace

// Its START and rank are final here, and no earlier than the START of any
// event its rank placed before; its size may still wait for a match.
void ImportBuilder::place(PendingId pending) {
  const TraceEvent& e = event(pending);
  placed_.push(e.rank, e.start_ns, pending);
}

ImportBuilder::ImportBuilder(std::string source, uint32_t processes, std::map<uint32_t, std::vector<uint32_t>> comms,
                             Sink sink)
    : source_(std::move(source)),
      processes_(processes),
      comms_(std::move(comms)),
      sink_(std::move(sink)),
      ranks_(processes),
      placed_(processes),
      inbox_(processes) {
  for (const auto& [id, members] : comms_) {
    auto& positions = position_[id];
    for (size_t i = 0; i < members.size(); ++i) positions.emplace(members[i], static_cast<uint32_t>(i));
  }
}

void ImportBuilder::fail(const std::string& field, const std::string& problem) const {
  throw TraceError(source_, TraceLocation::rank_event(where_rank_.value(), where_record_), field, problem);
}

void ImportBuilder::at(WorldRank rank, uint64_t record_index) {
  where_rank_ = rank;
  where_record_ = record_index;
}

void ImportBuilder::now(uint64_t time_ns, uint64_t earliest_to_come_ns) {
  record_ns_ = time_ns;
  now_ns_ = std::max(now_ns_, earliest_to_come_ns);
}

ImportBuilder::RankState& ImportBuilder::state(WorldRank rank) {
  if (rank.value() >= processes_) fail("rank", std::to_string(rank.value()) + " is not a rank");
  return ranks_[rank.value()];
}

ImportBuilder::RankState& ImportBuilder::in_call(WorldRank rank, const char* what) {
  RankState& r = state(rank);
  if (!r.in_call) fail("region", std::string("a ") + what + " record outside any MPI call");
  return r;
}

void ImportBuilder::begin_rank(WorldRank rank, uint64_t time_ns) {
  RankState& r = state(rank);
  if (r.seen) return;
  r.seen = true;
  r.compute_from = time_ns;
  r.cpu_from.reset();
}

void ImportBuilder::enter_call(WorldRank rank, uint64_t time_ns, std::string_view call,
                               std::optional<uint64_t> cpu_ns) {
  RankState& r = state(rank);
  begin_rank(rank, time_ns);
  if (r.in_call) {
    ++r.depth;
    return;
  }
  if (r.finished) return;
  r.in_call = true;
  r.call = std::string(call);
  r.call_start = time_ns;
  r.call_record = where_record_;
  r.call_cpu = cpu_ns;
  r.moves_nothing = false;
  r.actions.clear();
}

void ImportBuilder::moves_nothing(WorldRank rank) { in_call(rank, "call").moves_nothing = true; }

// The compute gap of rank R from where its last call ended to UNTIL_NS, with
// its CPU time where the source recorded the CPU clock at both ends.
ImportBuilder::PendingId ImportBuilder::compute_event(RankState& r, uint32_t world_rank, uint64_t until_ns) {
  const PendingId id = new_event(TraceOp::kCompute);
  TraceEvent& compute = event(id);
  compute.rank = world_rank;
  compute.start_ns = *r.compute_from;
  compute.end_ns = until_ns;
  if (r.cpu_from && r.call_cpu && *r.call_cpu > *r.cpu_from) compute.cpu_ns = *r.call_cpu - *r.cpu_from;
  return id;
}

void ImportBuilder::leave_call(WorldRank rank, uint64_t time_ns, std::optional<uint64_t> cpu_ns) {
  RankState& r = state(rank);
  if (r.finished && !r.in_call) return;
  if (!r.in_call) fail("region", "leaves an MPI call that was never entered");
  if (r.depth > 0) {
    --r.depth;
    return;
  }
  if (time_ns < r.call_start) fail("time", "the call ends before it began");
  if (r.actions.empty() && r.call == "MPI_Wait" && reconstruct_unrecorded_receive(r)) {
    // the repair added the wait's action
  } else if (r.actions.empty() && completions_unrecorded_ && !r.requests.empty() && r.call == "MPI_Waitall") {
    complete_every_open_request(r);
  }
  r.in_call = false;
  if (r.call == "MPI_Finalize" && completions_unrecorded_ && !r.requests.empty()) {
    complete_every_open_request(r);  // completed by calls that recorded none: no later than here
    for (const Action& action : r.actions) event(action.event).rank = rank.value();
    place_call_events(r, r.call_start);
    r.finished = true;
    return;
  }
  if (r.call == "MPI_Finalize") {
    if (r.compute_from && r.call_start > *r.compute_from) {
      place(compute_event(r, rank.value(), r.call_start));
    }
    r.finished = true;
    return;
  }
  if (r.call == "MPI_Init" || r.call == "MPI_Init_thread") {
    r.compute_from = time_ns;  // the capture library counts time from the end of MPI_Init
    r.cpu_from = cpu_ns;
    return;
  }
  if (r.actions.empty()) {
    if (!r.moves_nothing) count_call_without_events(r);
    return;
  }
  for (const Action& action : r.actions) event(action.event).rank = rank.value();
  place_call_events(r, time_ns);
  r.compute_from = time_ns;
  r.cpu_from = cpu_ns;
  if (++events_since_flush_ >= kFlushEvery) {
    events_since_flush_ = 0;
    flush(watermark());
  }
}

void ImportBuilder::count_call_without_events(const RankState& rank) {
  if (!moves_no_data(rank.call)) ++tally_.not_imported[rank.call];
}

// The fields every point-to-point event carries: the other end, the size, the tag and the communicator.
void ImportBuilder::set_message(TraceEvent& event, WorldRank peer, uint64_t bytes, uint32_t tag, TraceComm comm) const {
  event.peer = peer.value();
  event.bytes = fits_u32(bytes, "bytes");
  event.tag = tag;
  event.comm = comm.value();
}

ImportBuilder::PendingId ImportBuilder::new_event(TraceOp op) {
  const PendingId id = pending_.acquire();
  event(id).op = op;
  event(id).rank = where_rank_.value();
  return id;
}

uint32_t ImportBuilder::name_request(RankState& rank) {
  if (!rank.free_names.empty()) {
    const uint32_t name = rank.free_names.back();
    rank.free_names.pop_back();
    return name;
  }
  return rank.next_name++;
}

void ImportBuilder::place_call_events(RankState& r, uint64_t leave_ns) {
  const uint64_t enter_ns = r.call_start;
  if (r.compute_from && enter_ns > *r.compute_from) {
    place(compute_event(r, event(r.actions.front().event).rank, enter_ns));
  }
  const auto is_blocking = [](const Action& a) { return a.kind == Action::Kind::kBlocks; };
  const auto blocking = static_cast<size_t>(std::count_if(r.actions.begin(), r.actions.end(), is_blocking));
  // As the capture library does: a call that both sends and receives
  // (MPI_Sendrecv) posts its receive and its send at once and waits for both,
  // so that two ranks exchanging large messages do not wait for each other's
  // receive in the replay.
  const bool sendrecv = blocking == 2 && r.actions.size() == 2 && event(r.actions[0].event).op == TraceOp::kSend &&
                        event(r.actions[1].event).op == TraceOp::kRecv;
  if (sendrecv) {
    const PendingId send = r.actions[0].event;
    const PendingId recv = r.actions[1].event;
    event(recv).op = TraceOp::kIrecv;
    event(recv).request = name_request(r);
    event(send).op = TraceOp::kIsend;
    event(send).request = name_request(r);
    uint64_t at = enter_ns;
    for (const PendingId p : {recv, send}) {
      event(p).start_ns = event(p).end_ns = enter_ns;
      place(p);
    }
    for (const PendingId p : {recv, send}) {
      const PendingId wait = new_event(TraceOp::kWait);
      event(wait).rank = event(p).rank;
      event(wait).request = event(p).request;
      event(wait).start_ns = at;
      event(wait).end_ns = leave_ns;
      at = leave_ns;
      place(wait);
    }
    for (const PendingId p : {recv, send}) r.free_names.push_back(event(p).request);
    return;
  }
  // Opening actions take the call's time when nothing blocks it; else they
  // happen as it begins and the first blocking one spans it (a waitall is
  // one wait per request, the first spanning the call).
  uint64_t at = enter_ns;
  for (const Action& action : r.actions) {
    if (is_blocking(action)) continue;
    TraceEvent& opening = event(action.event);
    opening.start_ns = at;
    opening.end_ns = blocking > 0 ? enter_ns : leave_ns;
    at = opening.end_ns;
    place(action.event);
  }
  for (const Action& action : r.actions) {
    if (!is_blocking(action)) continue;
    TraceEvent& blocking_event = event(action.event);
    blocking_event.start_ns = at;
    blocking_event.end_ns = leave_ns;
    at = leave_ns;
    place(action.event);
  }
}

void ImportBuilder::check_member(TraceComm comm, WorldRank rank, const char* field) const {
  const auto found = position_.find(comm.value());
  if (found == position_.end()) fail("communicator", "communicator " + std::to_string(comm.value()) + " is undefined");
  if (!found->second.contains(rank.value())) {
    fail(field, "world rank " + std::to_string(rank.value()) + " is not a member of communicator " +
                    std::to_string(comm.value()));
  }
}

uint32_t ImportBuilder::fits_u32(uint64_t value, const char* field) const {
  if (value > std::numeric_limits<uint32_t>::max()) {
    fail(field, std::to_string(value) + " is more than the ibsec format holds (4294967295)");
  }
  return static_cast<uint32_t>(value);
}

void ImportBuilder::note_send(WorldRank rank, WorldRank peer, uint64_t bytes, uint32_t tag, TraceComm comm) {
  const uint64_t send_ns = ranks_[rank.value()].call_start;
  const auto early = early_receives_.find({peer.value(), rank.value(), tag, comm.value()});
  if (early != early_receives_.end()) {
    auto& [receive_ns, sized_by_send] = early->second.front();
    note_lag(rank.value(), peer.value(), send_ns, receive_ns);
    if (sized_by_send) {
      event(*sized_by_send).bytes = fits_u32(bytes, "bytes");
      pending_[*sized_by_send].ready = true;
    }
    early->second.pop_front();
    if (early->second.empty()) early_receives_.erase(early);
    return;
  }
  auto& awaiting = awaiting_send_[peer.value()];
  if (!awaiting.empty()) {
    reading_order_mattered_ = true;
    fill_unrecorded_receive(awaiting.front().first, rank.value(), bytes, tag, comm.value(), kOnlySendRepair);
    note_lag(rank.value(), peer.value(), send_ns, awaiting.front().second);
    awaiting.pop_front();
    return;
  }
  inbox_[peer.value()][{rank.value(), tag, comm.value()}].push_back({bytes, send_ns});
}

// A receive is recorded once its data is there, so no earlier than its send
// began, on a common clock: a positive lag measures how far the receiver's
// clock is behind the sender's.
void ImportBuilder::note_lag(uint32_t sender, uint32_t receiver, uint64_t send_ns, uint64_t receive_ns) {
  const int64_t lag = static_cast<int64_t>(send_ns) - static_cast<int64_t>(receive_ns);
  const auto [it, fresh] = lags_.try_emplace({sender, receiver}, lag);
  if (!fresh) it->second = std::max(it->second, lag);
}

void ImportBuilder::send(WorldRank rank, WorldRank peer, uint64_t bytes, uint32_t tag, TraceComm comm) {
  RankState& r = in_call(rank, "send");
  check_member(comm, rank, "communicator");
  check_member(comm, peer, "receiver");
  const PendingId id = new_event(TraceOp::kSend);
  set_message(event(id), peer, bytes, tag, comm);
  r.actions.push_back({Action::Kind::kBlocks, id});
  note_send(rank, peer, bytes, tag, comm);
}

void ImportBuilder::isend(WorldRank rank, WorldRank peer, uint64_t bytes, uint32_t tag, TraceComm comm,
                          SourceRequest request) {
  RankState& r = in_call(rank, "send");
  check_member(comm, rank, "communicator");
  check_member(comm, peer, "receiver");
  const std::optional<uint32_t> reused = complete_reused_request(r, request);
  const PendingId id = new_event(TraceOp::kIsend);
  set_message(event(id), peer, bytes, tag, comm);
  const uint32_t name = name_request(r);
  event(id).request = name;
  if (reused) r.free_names.push_back(*reused);
  r.requests[request.value()] = {name, PendingId::none(), false, true, where_record_};
  r.actions.push_back({Action::Kind::kOpens, id});
  note_send(rank, peer, bytes, tag, comm);
}

void ImportBuilder::complete_request(RankState& r, SourceRequest request, const char* field, bool free_name) {
  const auto found = r.requests.find(request.value());
  if (found == r.requests.end()) {
    fail(field, "request " + std::to_string(request.value()) + " completes but was never started");
  }
  const PendingId wait = new_event(TraceOp::kWait);
  event(wait).request = found->second.name;
  r.actions.push_back({Action::Kind::kBlocks, wait});
  if (free_name) r.free_names.push_back(found->second.name);
  r.requests.erase(found);
}

void ImportBuilder::send_completed(WorldRank rank, SourceRequest request) {
  RankState& r = in_call(rank, "send completion");
  const auto found = r.requests.find(request.value());
  if (found != r.requests.end() && found->second.receive) {
    fail("request", "request " + std::to_string(request.value()) + " is a receive, completed as a send");
  }
  complete_request(r, request, "request");
}

void ImportBuilder::match_receive(PendingId pending, bool size_from_send) {
  TraceEvent& receive = event(pending);
  const uint32_t me = receive.rank;
  auto& inbox = inbox_[me];
  const auto exact = inbox.find({receive.peer, receive.tag, receive.comm});
  if (exact != inbox.end()) {
    note_lag(receive.peer, me, exact->second.front().send_ns, record_ns_);
    if (size_from_send) receive.bytes = exact->second.front().bytes;
    exact->second.pop_front();
    if (exact->second.empty()) inbox.erase(exact);
    return;
  }
  // Not on its own communicator: a tool that files receives on the wrong
  // one (EZTrace files every completed receive on MPI_COMM_WORLD). Re-filed
  // only when one other communicator has a send from that peer with that tag.
  std::vector<decltype(inbox.begin())> elsewhere;
  for (auto it = inbox.lower_bound({receive.peer, receive.tag, 0});
       it != inbox.end() && std::get<0>(it->first) == receive.peer && std::get<1>(it->first) == receive.tag; ++it) {
    elsewhere.push_back(it);
  }
  if (elsewhere.size() > 1) {
    fail("communicator", "the receive from rank " + std::to_string(receive.peer) + " tag " +
                             std::to_string(receive.tag) + " names communicator " + std::to_string(receive.comm) +
                             ", which has no such send, and sends from that rank with that tag wait on " +
                             std::to_string(elsewhere.size()) + " other communicators: which one it was is ambiguous");
  }
  if (elsewhere.size() == 1) {
    const auto it = elsewhere.front();
    if (!position_.at(std::get<2>(it->first)).contains(me)) fail("communicator", "receiver not a member");
    receive.comm = std::get<2>(it->first);
    reading_order_mattered_ = true;
    ++tally_.repairs["receive filed on a communicator without its send: re-filed on the send's communicator"];
    note_lag(receive.peer, me, it->second.front().send_ns, record_ns_);
    if (size_from_send) receive.bytes = it->second.front().bytes;
    it->second.pop_front();
    if (it->second.empty()) inbox.erase(it);
    return;
  }
  // Its send is yet to be read; a receive sized by its send waits for it.
  if (size_from_send) pending_[pending].ready = false;
  early_receives_[{me, receive.peer, receive.tag, receive.comm}].emplace_back(
      record_ns_, size_from_send ? std::optional(pending) : std::nullopt);
}

void ImportBuilder::recv(WorldRank rank, WorldRank peer, uint64_t bytes, uint32_t tag, TraceComm comm, bool posted_any,
                         bool size_from_send) {
  RankState& r = in_call(rank, "receive");
  check_member(comm, rank, "communicator");
  check_member(comm, peer, "sender");
  const PendingId id = new_event(TraceOp::kRecv);
  set_message(event(id), peer, bytes, tag, comm);
  event(id).posted = posted_any ? 1 : 0;
  match_receive(id, size_from_send);
  r.actions.push_back({Action::Kind::kBlocks, id});
}

void ImportBuilder::irecv_posted(WorldRank rank, SourceRequest request) {
  RankState& r = in_call(rank, "receive request");
  const std::optional<uint32_t> reused = complete_reused_request(r, request);
  const PendingId id = new_event(TraceOp::kIrecv);
  pending_[id].ready = false;  // its sender, tag and size come with its completion
  const uint32_t name = name_request(r);
  event(id).request = name;
  if (reused) r.free_names.push_back(*reused);
  r.requests[request.value()] = {name, id, true, false, where_record_};
  r.actions.push_back({Action::Kind::kOpens, id});
}

void ImportBuilder::irecv_completed(WorldRank rank, WorldRank peer, uint64_t bytes, uint32_t tag, TraceComm comm,
                                    SourceRequest request, bool posted_any, bool size_from_send) {
  RankState& r = in_call(rank, "receive completion");
  check_member(comm, rank, "communicator");
  check_member(comm, peer, "sender");
  const auto found = r.requests.find(request.value());
  if (found == r.requests.end() || !found->second.receive) {
    fail("request", "receive request " + std::to_string(request.value()) + " completes but was never posted");
  }
  const PendingId id = found->second.irecv;
  TraceEvent& irecv = event(id);
  set_message(irecv, peer, bytes, tag, comm);
  irecv.posted = posted_any ? 1 : 0;
  pending_[id].ready = true;
  match_receive(id, size_from_send);
  complete_request(r, request, "request");
}

// EZTrace's C MPI_Wait records no receive completion. When the rank had one
// request open, a receive, the wait completed it; its sender, tag, size and
// communicator are those of its send when exactly one send to the rank is
// unmatched. With none yet, the send is still to be read (EZTrace's ranks
// keep clocks of their own, so a send may be stamped after the receive
// ended): the next send to the rank that no other receive takes is its.
bool ImportBuilder::reconstruct_unrecorded_receive(RankState& r) {
  if (r.requests.size() != 1 || !r.requests.begin()->second.receive) return false;
  auto& inbox = inbox_[where_rank_.value()];
  if (inbox.size() > 1 || (inbox.size() == 1 && inbox.begin()->second.size() != 1)) return false;
  const PendingId irecv = r.requests.begin()->second.irecv;
  complete_request(r, SourceRequest(r.requests.begin()->first), "request");
  reading_order_mattered_ = true;
  if (inbox.empty()) {
    awaiting_send_[where_rank_.value()].emplace_back(irecv, record_ns_);
    return true;
  }
  const auto [sender, tag, comm] = inbox.begin()->first;
  const InFlight& send = inbox.begin()->second.front();
  fill_unrecorded_receive(irecv, sender, send.bytes, tag, comm, kOnlySendRepair);
  note_lag(sender, where_rank_.value(), send.send_ns, record_ns_);
  inbox.clear();
  return true;
}

// EZTrace's C MPI_Waitall, MPI_Waitany, MPI_Testall, ... record no
// completion at all, so a program that reuses its requests (a halo exchange
// in a loop) would find them still open. An MPI_Waitall that records none
// completes every open request, in the order they were started (a Waitall
// over all of them, the usual call), and so does MPI_Finalize for what is
// still open. A receive takes the earliest unmatched send to the rank (per
// channel, sends stay in order), or the next one still to be read.
void ImportBuilder::complete_every_open_request(RankState& r) {
  std::vector<std::pair<uint64_t, uint64_t>> open;  // (record index, source request): the order they began
  open.reserve(r.requests.size());
  for (const auto& [request, state] : r.requests) open.emplace_back(state.record_index, request);
  std::sort(open.begin(), open.end());
  for (const auto& [record, request] : open) {
    const OpenRequest state = r.requests.at(request);
    complete_request(r, SourceRequest(request), "request");
    if (state.receive && !pending_[state.irecv].ready) take_earliest_send(state.irecv);
  }
  ++tally_.repairs["completions missing under " + r.call +
                   " (the source records none): every open request completed by it"];
}

// A request started again while open: a fault of the source, unless it
// records no completions (EZTrace's C MPI_Waitany, MPI_Testall, ...), where
// the program completed it in a call that left no record. Then it completes
// here, where its handle is reused; its ibsec name is freed only after the
// new request has taken one, since the wait is placed after the new start.
std::optional<uint32_t> ImportBuilder::complete_reused_request(RankState& r, SourceRequest request) {
  const auto found = r.requests.find(request.value());
  if (found == r.requests.end()) return std::nullopt;
  if (!completions_unrecorded_) fail("request", "request " + std::to_string(request.value()) + " is already open");
  const OpenRequest open = found->second;
  complete_request(r, request, "request", false);
  if (open.receive && !pending_[open.irecv].ready) take_earliest_send(open.irecv);
  ++tally_.repairs
        ["request started again while open (the source records no completions under MPI_Waitany, "
         "MPI_Testall, ...): completed where it is reused"];
  return open.name;
}

void ImportBuilder::take_earliest_send(PendingId irecv) {
  reading_order_mattered_ = true;
  auto& inbox = inbox_[where_rank_.value()];
  if (inbox.empty()) {
    awaiting_send_[where_rank_.value()].emplace_back(irecv, record_ns_);
    return;
  }
  auto earliest = std::min_element(inbox.begin(), inbox.end(), [](const auto& a, const auto& b) {
    return a.second.front().send_ns < b.second.front().send_ns;
  });
  const auto [sender, tag, comm] = earliest->first;
  const InFlight send = earliest->second.front();
  fill_unrecorded_receive(irecv, sender, send.bytes, tag, comm, kEarliestSendRepair);
  note_lag(sender, where_rank_.value(), send.send_ns, record_ns_);
  earliest->second.pop_front();
  if (earliest->second.empty()) inbox.erase(earliest);
}

void ImportBuilder::fill_unrecorded_receive(PendingId irecv, uint32_t sender, uint64_t bytes, uint32_t tag,
                                            uint32_t comm, const char* repair) {
  TraceEvent& receive = event(irecv);
  receive.peer = sender;
  receive.bytes = bytes;
  receive.tag = tag;
  receive.comm = comm;
  pending_[irecv].ready = true;
  ++tally_.repairs[repair];
}

void ImportBuilder::request_cancelled(WorldRank rank, SourceRequest request) {
  RankState& r = in_call(rank, "request cancellation");
  const auto found = r.requests.find(request.value());
  if (found == r.requests.end()) fail("request", "request " + std::to_string(request.value()) + " was never started");
  if (!found->second.receive) fail("request", "a cancelled send cannot be expressed in the ibsec format");
  pending_[found->second.irecv].dropped = true;
  pending_[found->second.irecv].ready = true;
  ++tally_.repairs["cancelled receive request left out"];
  r.free_names.push_back(found->second.name);
  r.requests.erase(found);
}

void ImportBuilder::collective(WorldRank rank, TraceOp op, TraceComm comm, std::optional<WorldRank> root, uint64_t sent,
                               uint64_t received) {
  RankState& r = in_call(rank, "collective");
  check_member(comm, rank, "communicator");
  if (has_root(op) != root.has_value()) fail("root", op_name(op) + (root ? " takes no root" : " needs a root"));
  if (root) check_member(comm, *root, "root");
  const PendingId id = new_event(op);
  pending_[id].ready = false;  // sized once every member has called it
  event(id).comm = comm.value();
  if (root) event(id).root = root->value();
  r.actions.push_back({Action::Kind::kBlocks, id});
  join_collective(r, id, comm, root, sent, received);
}

void ImportBuilder::alltoallv(WorldRank rank, TraceComm comm, std::vector<uint64_t> sent_to_each) {
  RankState& r = in_call(rank, "collective");
  check_member(comm, rank, "communicator");
  if (sent_to_each.size() != comms_.at(comm.value()).size()) {
    fail("sendcounts", std::to_string(sent_to_each.size()) + " counts for a communicator of " +
                           std::to_string(comms_.at(comm.value()).size()) + " members");
  }
  const PendingId id = new_event(TraceOp::kAlltoallv);
  pending_[id].ready = false;
  event(id).comm = comm.value();
  r.actions.push_back({Action::Kind::kBlocks, id});
  const uint64_t sent = std::accumulate(sent_to_each.begin(), sent_to_each.end(), uint64_t{0});
  join_collective(r, id, comm, std::nullopt, sent, 0,
                  std::make_shared<const std::vector<uint64_t>>(std::move(sent_to_each)));
}

void ImportBuilder::join_collective(RankState& r, PendingId id, TraceComm comm, std::optional<WorldRank> root,
                                    uint64_t sent, uint64_t received,
                                    std::shared_ptr<const std::vector<uint64_t>> sent_to_each) {
  const uint64_t sequence = r.collectives_called[comm.value()]++;
  const auto& members = comms_.at(comm.value());
  auto [it, fresh] = collectives_.try_emplace({comm.value(), sequence});
  CollectiveInstance& instance = it->second;
  const TraceOp op = event(id).op;
  const std::optional<uint32_t> root_rank = root ? std::optional(root->value()) : std::nullopt;
  if (fresh) {
    instance.op = op;
    instance.root = root_rank;
    instance.members.resize(members.size());
  } else if (instance.op != op) {
    fail("collectiveOp", "collective #" + std::to_string(sequence) + " on communicator " +
                             std::to_string(comm.value()) + " is " + op_name(op) + " here but " + op_name(instance.op) +
                             " on another member");
  } else if (instance.root != root_rank) {
    fail("root", "collective #" + std::to_string(sequence) + " (" + op_name(op) + ") on communicator " +
                     std::to_string(comm.value()) + " has another root on another member");
  }
  const uint32_t position = position_.at(comm.value()).at(event(id).rank);
  instance.members[position] = CollectiveInstance::Member{id, sent, received, std::move(sent_to_each)};
  if (++instance.arrived < members.size()) return;
  size_collective(instance, comm.value());
  collectives_.erase(it);
}

// Sizes as EZTrace and the capture library see them: what the caller's own
// buffer argument held (count x type size); alltoall per destination,
// alltoallv summed over destinations. Vector collectives take each member's
// part from that member's record.
void ImportBuilder::size_collective(CollectiveInstance& instance, uint32_t comm) {
  const size_t n = instance.members.size();
  std::vector<uint64_t> sent(n);
  std::vector<uint64_t> received(n);
  for (size_t i = 0; i < n; ++i) {
    sent[i] = instance.members[i]->sent;
    received[i] = instance.members[i]->received;
  }
  const auto by_position = [&](const std::vector<uint64_t>& parts) {
    auto counts = std::make_shared<std::vector<uint32_t>>();
    for (uint64_t part : parts) counts->push_back(fits_u32(part, "bytes"));
    return counts;
  };
  const auto set_counts = [](TraceEvent& e, std::shared_ptr<const std::vector<uint32_t>> counts) {
    e.bytes = std::accumulate(counts->begin(), counts->end(), uint64_t{0});
    e.counts = std::move(counts);
  };
  const auto own_part_only = [&](size_t member, const std::vector<uint64_t>& parts) {
    std::vector<uint64_t> own(n, 0);
    own[member] = parts[member];
    return by_position(own);
  };
  const bool rooted = instance.root.has_value();
  const size_t root_position = rooted ? position_.at(comm).at(*instance.root) : 0;
  switch (instance.op) {
    case TraceOp::kAlltoallv:
      if (std::all_of(instance.members.begin(), instance.members.end(),
                      [](const auto& m) { return m->sent_to_each; })) {
        for (auto& m : instance.members) set_counts(event(m->event), by_position(*m->sent_to_each));
        break;
      }
      for (size_t i = 0; i < n; ++i) {
        std::vector<uint64_t> spread(n, sent[i] / n);
        for (size_t j = 0; j < sent[i] % n; ++j) ++spread[j];
        set_counts(event(instance.members[i]->event), by_position(spread));
      }
      tally_.repairs
          ["alltoallv per-member counts are not in OTF2: each caller's bytes spread evenly over the members (an "
           "approximation)"] += n;
      break;
    case TraceOp::kAllgatherv:
    case TraceOp::kReduceScatter: {
      const auto counts = by_position(instance.op == TraceOp::kAllgatherv ? sent : received);
      for (auto& m : instance.members) set_counts(event(m->event), counts);
      break;
    }
    case TraceOp::kGatherv:
    case TraceOp::kScatterv: {
      const auto& parts = instance.op == TraceOp::kGatherv ? sent : received;
      for (size_t i = 0; i < n; ++i) {
        set_counts(event(instance.members[i]->event),
                   i == root_position ? by_position(parts) : own_part_only(i, parts));
      }
      break;
    }
    case TraceOp::kBarrier:
      break;
    default: {
      const bool received_side = instance.op == TraceOp::kBcast || instance.op == TraceOp::kScatter;
      const auto& sizes = received_side ? received : sent;
      const auto [low, high] = std::minmax_element(sizes.begin(), sizes.end());
      if (*low != *high) ++tally_.repairs[op_name(instance.op) + " sizes differ between members: the largest taken"];
      const uint32_t bytes = fits_u32(*high, "bytes");
      for (auto& m : instance.members) event(m->event).bytes = bytes;
    }
  }
  for (auto& m : instance.members) pending_[m->event].ready = true;
  tally_.collective_calls += n;
}

uint64_t ImportBuilder::watermark() const {
  uint64_t lowest = now_ns_;
  for (const RankState& r : ranks_) {
    if (r.finished || !r.seen) continue;
    if (r.compute_from) lowest = std::min(lowest, *r.compute_from);
    if (r.in_call) lowest = std::min(lowest, r.call_start);
  }
  return lowest;
}

void ImportBuilder::flush(uint64_t watermark) {
  while (!placed_.empty()) {
    const PendingId id = placed_.next();
    const Pending& next = pending_[id];
    if (placed_.next_start() >= watermark || !next.ready) return;
    if (!next.dropped) {
      if (is_send(next.event.op)) {
        ++tally_.messages;
        tally_.message_bytes += next.event.bytes;
      }
      sink_(next.event);
    }
    placed_.pop();
    pending_.release(id);
  }
}

void ImportBuilder::refuse_what_is_open() {
  for (uint32_t rank = 0; rank < processes_; ++rank) {
    const RankState& r = ranks_[rank];
    if (r.in_call) {
      where_rank_ = WorldRank(rank);
      where_record_ = r.call_record;
      fail("leave", r.call + " is entered and never left: the source ends inside it (truncated?)");
    }
    for (const auto& [request, open] : r.requests) {
      where_rank_ = WorldRank(rank);
      where_record_ = open.record_index;
      fail("request", std::string(open.receive ? "receive" : "send") + " request " + std::to_string(request) +
                          (open.receive && !open.recorded
                               ? " never completes with its sender and size, and no send matches it unambiguously"
                               : " never completes"));
    }
  }
  if (!collectives_.empty()) {
    const auto& [key, instance] = *collectives_.begin();
    std::string missing;
    const auto& members = comms_.at(key.first);
    for (size_t i = 0; i < instance.members.size(); ++i) {
      if (instance.members[i]) continue;
      if (!missing.empty()) missing += ',';  // appended apart: GCC 12 warns falsely (-Wrestrict) on "," + string
      missing += std::to_string(members[i]);
    }
    throw TraceError(source_, TraceLocation::end(), "communicator",
                     "collective #" + std::to_string(key.second) + " (" + op_name(instance.op) + ") on communicator " +
                         std::to_string(key.first) + " is never called by world ranks " + missing);
  }
  for (uint32_t receiver = 0; receiver < processes_; ++receiver) {
    if (inbox_[receiver].empty()) continue;
    const auto& [key, sizes] = *inbox_[receiver].begin();
    throw TraceError(source_, TraceLocation::end(), "receiver",
                     std::to_string(sizes.size()) + " send(s) from rank " + std::to_string(std::get<0>(key)) +
                         " to rank " + std::to_string(receiver) + " tag " + std::to_string(std::get<1>(key)) +
                         " communicator " + std::to_string(std::get<2>(key)) + " are never received");
  }
  for (const auto& [receiver, receives] : awaiting_send_) {
    if (receives.empty()) continue;
    throw TraceError(source_, TraceLocation::end(), "sender",
                     "a receive of rank " + std::to_string(receiver) +
                         " completed under MPI_Wait without a record, and no send to that rank is left to match it");
  }
  if (!early_receives_.empty()) {
    const auto& [key, times] = *early_receives_.begin();
    throw TraceError(source_, TraceLocation::end(), "sender",
                     std::to_string(times.size()) + " receive(s) of rank " + std::to_string(std::get<0>(key)) +
                         " from rank " + std::to_string(std::get<1>(key)) + " tag " + std::to_string(std::get<2>(key)) +
                         " communicator " + std::to_string(std::get<3>(key)) + " match no send");
  }
}

void note_clock_shifts(ImportTally& tally, const std::vector<uint64_t>& offsets) {
  std::string shifted;
  for (uint32_t rank = 0; rank < offsets.size(); ++rank) {
    if (offsets[rank] == 0) continue;
    shifted += (shifted.empty() ? "" : ", ") + std::to_string(rank) + " by " + std::to_string(offsets[rank]) + " ns";
  }
  if (shifted.empty()) return;
  tally.repairs["ranks' clocks disagree (a receive recorded before its send began): rank clocks shifted later, " +
                shifted + " (the least constant shifts that put every receive after its send)"] +=
      static_cast<uint64_t>(std::count_if(offsets.begin(), offsets.end(), [](uint64_t o) { return o > 0; }));
}

// Longest paths from a virtual rank joined to every rank by 0 (Bellman-Ford):
// a rank's shift is the most its lags demand. A lap that still lengthens a
// path after `processes` rounds is a cycle of lags with a positive sum.
std::vector<uint64_t> clock_offsets(const std::string& source, uint32_t processes, const ClockLags& lags) {
  std::vector<int64_t> shift(processes, 0);
  for (uint32_t round = 0; round <= processes; ++round) {
    bool longer = false;
    for (const auto& [pair, lag] : lags) {
      const auto [sender, receiver] = pair;
      if (shift[sender] + lag > shift[receiver]) {
        if (round == processes) {
          throw TraceError(source, TraceLocation::end(), "time",
                           "the ranks' clocks disagree and no constant shift per rank puts every receive after its "
                           "send: the messages from rank " +
                               std::to_string(sender) + " to rank " + std::to_string(receiver) + " (lag " +
                               std::to_string(lag) + " ns) close a cycle whose lags add up to more than 0");
        }
        shift[receiver] = shift[sender] + lag;
        longer = true;
      }
    }
    if (!longer) break;
  }
  return {shift.begin(), shift.end()};
}

void ImportBuilder::finish() {
  refuse_what_is_open();
  flush(kNever);
}

}  // namespace ibsec::traces
