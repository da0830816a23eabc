#include "traces/trace_checker.h"

#include <limits>
#include <string>

namespace ibsec::traces {
namespace {

std::string on_comm(uint32_t comm) { return comm == 0 ? "" : " on communicator " + std::to_string(comm); }

std::string describe(const TraceEvent& e) {
  return std::string(name(e.op)) + " " + std::to_string(e.rank) + (is_send(e.op) ? " -> " : " <- ") +
         std::to_string(e.peer) + " tag " + std::to_string(e.tag) + on_comm(e.comm);
}

// What must agree between the members' calls of one collective: the op and
// root always; the byte count for ops where every member gives the same
// one; the counts where every member lists the same (allgatherv,
// reduce_scatter). An alltoallv member lists what it sends (the replay sends
// that); a gatherv or scatterv member other than the root only its own part
// (zero elsewhere), which must be what the root lists for it.
bool same_bytes_everywhere(TraceOp op) {
  switch (blocking_form(op)) {
    case TraceOp::kAlltoallv:
    case TraceOp::kGatherv:
    case TraceOp::kScatterv:
      return false;
    default:
      return true;
  }
}

}  // namespace

TraceChecker::TraceChecker(std::string path, uint32_t processes, const std::map<uint32_t, Communicator>& communicators)
    : path_(std::move(path)), communicators_(communicators) {
  open_requests_.resize(processes);
  for (const auto& [id, comm] : communicators_) comms_[id].calls.assign(comm.members.size(), 0);
}

void TraceChecker::fail(const std::string& field, const std::string& problem) const {
  throw TraceError(path_, where_, field, problem);
}

void TraceChecker::fail_at(TraceLocation where, const std::string& field, const std::string& problem) const {
  throw TraceError(path_, where, field, problem);
}

void TraceChecker::add(const TraceEvent& event, TraceLocation where) {
  where_ = where;
  if (is_send(event.op) || is_receive(event.op)) match(event);
  if (opens_request(event.op) || event.op == TraceOp::kWait) track_request(event);
  if (is_collective(event.op)) track_collective(event);
}

// MPI's non-overtaking rule: between two ranks with one tag, the k-th send
// matches the k-th receive, so a FIFO per channel pairs them.
void TraceChecker::match(const TraceEvent& e) {
  const bool sending = is_send(e.op);
  const Channel channel = sending ? Channel{e.rank, e.peer, e.tag, e.comm} : Channel{e.peer, e.rank, e.tag, e.comm};
  const uint64_t time =
      sending ? e.start_ns : (e.op == TraceOp::kRecv ? e.end_ns : std::numeric_limits<uint64_t>::max());
  auto& waiting = channels_[channel];
  if (waiting.empty() || waiting.front().is_send == sending) {
    waiting.push_back({e.bytes, time, where_, sending});
    return;
  }
  const Pending other = waiting.front();
  waiting.pop_front();
  if (waiting.empty()) channels_.erase(channel);
  if (other.bytes != e.bytes) {
    fail("bytes", describe(e) + " has " + std::to_string(e.bytes) + " bytes but its match at " +
                      other.where.describe() + " has " + std::to_string(other.bytes));
  }
  // A message cannot arrive before it was sent; traces that claim so would
  // also deadlock in replay.
  const uint64_t send_start = sending ? time : other.time;
  const uint64_t receive_end = sending ? other.time : time;
  if (receive_end < send_start) {
    fail(sending ? "start" : "end", describe(e) + ": the receive ends at " + std::to_string(receive_end) +
                                        " ns, before its send starts at " + std::to_string(send_start) +
                                        " ns (match at " + other.where.describe() + ")");
  }
}

void TraceChecker::track_request(const TraceEvent& e) {
  auto& open = open_requests_[e.rank];
  if (opens_request(e.op)) {
    const auto [at, added] = open.emplace(e.request, where_);
    if (!added) {
      fail("req", "request " + std::to_string(e.request) + " of rank " + std::to_string(e.rank) +
                      " is still open (opened at " + at->second.describe() + ")");
    }
  } else if (open.erase(e.request) == 0) {
    fail("req", "rank " + std::to_string(e.rank) + " has no open request " + std::to_string(e.request));
  }
}

// Members may run ahead of each other; the calls not yet made by all are kept
// and each member's k-th call is compared with the first one made.
void TraceChecker::track_collective(const TraceEvent& e) {
  CommProgress& comm = comms_.at(e.comm);
  const auto& members = communicators_.at(e.comm);
  const size_t member = members.position(e.rank);
  const uint64_t k = comm.calls[member]++;
  const size_t slot = k - comm.first_open;
  if (slot == comm.open.size()) {
    comm.open.push_back({e.op, e.root, e.bytes, e.counts, where_});
    comm.arrivals.push_back(0);
  }
  compare_collective(e, k, comm.open[slot]);
  if (++comm.arrivals[slot] == members.members.size()) {
    while (!comm.arrivals.empty() && comm.arrivals.front() == members.members.size()) {
      comm.open.pop_front();
      comm.arrivals.pop_front();
      ++comm.first_open;
    }
  }
}

void TraceChecker::compare_collective(const TraceEvent& e, uint64_t k, Collective& first) const {
  auto mismatch = [&](const std::string& field) {
    fail(field, "collective #" + std::to_string(k + 1) + " of rank " + std::to_string(e.rank) + " on communicator " +
                    std::to_string(e.comm) + " does not match the one at " + first.where.describe() + " (" +
                    std::string(name(first.op)) + " root " + std::to_string(first.root) + " bytes " +
                    std::to_string(first.bytes) + ")");
  };
  if (first.op != e.op) mismatch("op");
  if (first.root != e.root) mismatch("root");
  if (same_bytes_everywhere(e.op)) {
    if (first.bytes != e.bytes) mismatch(has_counts(e.op) ? "counts" : "bytes");
    if (has_counts(e.op) && *first.counts != *e.counts) mismatch("counts");
    return;
  }
  if (blocking_form(e.op) != TraceOp::kAlltoallv) compare_parts(e, first);
}

// The replay moves what each member lists as its own part; the root's list
// must say the same, or the trace describes two different collectives.
void TraceChecker::compare_parts(const TraceEvent& e, Collective& first) const {
  const auto& members = communicators_.at(e.comm);
  const std::string op(name(e.op));
  if (e.rank == e.root) {
    for (const MemberPart& part : first.early_parts) {
      if ((*e.counts)[part.position] != part.bytes) {
        fail("counts", op + " of root " + std::to_string(e.rank) + " lists " +
                           std::to_string((*e.counts)[part.position]) + " bytes for rank " + std::to_string(part.rank) +
                           ", whose own call (" + part.where.describe() + ") gives " + std::to_string(part.bytes));
      }
    }
    first.root_counts = e.counts;
    first.root_where = where_;
    first.early_parts.clear();
    return;
  }
  // A member other than the root lists its own part only.
  const size_t own = members.position(e.rank);
  for (size_t i = 0; i < e.counts->size(); ++i) {
    if (i != own && (*e.counts)[i] != 0) {
      fail("counts", op + " of rank " + std::to_string(e.rank) +
                         ", not the root, lists a count for another member (position " + std::to_string(i) + ")");
    }
  }
  const uint32_t part = (*e.counts)[own];
  if (!first.root_counts) {
    first.early_parts.push_back({e.rank, own, part, where_});
  } else if ((*first.root_counts)[own] != part) {
    fail("counts", op + " of rank " + std::to_string(e.rank) + " gives " + std::to_string(part) +
                       " bytes as its part, but its root (rank " + std::to_string(e.root) + ", " +
                       first.root_where.describe() + ") lists " + std::to_string((*first.root_counts)[own]));
  }
}

void TraceChecker::finish() const {
  const auto at_end = TraceLocation::end();
  // The earliest unmatched message, so the report does not depend on hashing.
  const std::pair<const Channel, std::deque<Pending>>* first = nullptr;
  for (const auto& entry : channels_) {
    if (first == nullptr || entry.second.front().where.index < first->second.front().where.index) first = &entry;
  }
  if (first != nullptr) {
    const auto& [channel, waiting] = *first;
    const Pending& p = waiting.front();
    fail_at(at_end, "",
            std::string(p.is_send ? "send " : "receive ") + std::to_string(channel.source) + " -> " +
                std::to_string(channel.destination) + " tag " + std::to_string(channel.tag) + " (" +
                std::to_string(p.bytes) + " bytes, " + p.where.describe() + ") was never " +
                (p.is_send ? "received" : "sent"));
  }
  for (uint32_t rank = 0; rank < open_requests_.size(); ++rank) {
    for (const auto& [request, where] : open_requests_[rank]) {
      fail_at(at_end, "",
              "request " + std::to_string(request) + " of rank " + std::to_string(rank) + " (opened at " +
                  where.describe() + ") was never waited for");
    }
  }
  for (const auto& [id, comm] : comms_) {
    if (comm.open.empty()) continue;
    const Collective& c = comm.open.front();
    const auto& members = communicators_.at(id).members;
    for (size_t m = 0; m < members.size(); ++m) {
      if (comm.calls[m] <= comm.first_open) {
        fail_at(at_end, "",
                std::string(name(c.op)) + " on communicator " + std::to_string(id) + " (" + c.where.describe() +
                    ") was never called by rank " + std::to_string(members[m]));
      }
    }
  }
}

void check_whole_trace(TraceReader& reader, const std::function<void(const TraceEvent&)>& visit) {
  TraceChecker checker(reader.path(), reader.header().processes, reader.communicators());
  TraceEvent event;
  while (reader.next(event)) {
    checker.add(event, reader.location());
    if (visit) visit(event);
  }
  checker.finish();
}

}  // namespace ibsec::traces
