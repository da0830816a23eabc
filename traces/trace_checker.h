// The checks that need more than one event: every send has its receive (same
// bytes, MPI's matching order), every request its wait, every collective all
// its communicator's members with the same arguments. Fed event by event
// after the reader's own checks; memory grows only with what is still
// unmatched, so a long trace streams through.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "traces/trace_reader.h"

namespace ibsec::traces {

class TraceChecker {
 public:
  // The trace at `path` (named in errors) of `processes` ranks and these communicators.
  TraceChecker(std::string path, uint32_t processes, const std::map<uint32_t, Communicator>& communicators);

  // Checks the next event, found at `where`. Throws TraceError.
  void add(const TraceEvent& event, TraceLocation where);
  // After the last event: everything must be matched. Throws TraceError.
  void finish() const;

 private:
  // MPI matches within a communicator: (communicator, source, tag).
  struct Channel {
    uint32_t source;
    uint32_t destination;
    uint32_t tag;
    uint32_t comm;
    bool operator==(const Channel&) const = default;
  };
  struct ChannelHash {
    size_t operator()(const Channel& c) const noexcept {
      return std::hash<uint64_t>{}((uint64_t{c.source} << 32 | c.destination) * 0x9e3779b97f4a7c15ULL ^
                                   (uint64_t{c.comm} << 32 | c.tag));
    }
  };
  struct Pending {
    uint64_t bytes = 0;
    uint64_t time = 0;  // send: START; receive: END (blocking) or 0 (non-blocking)
    TraceLocation where;
    bool is_send = false;
  };
  // A gatherv or scatterv member's own part, kept until the root's call lists what it expects of it.
  struct MemberPart {
    uint32_t rank;
    size_t position;
    uint32_t bytes;
    TraceLocation where;
  };
  struct Collective {
    TraceOp op;
    uint32_t root;
    uint64_t bytes;
    std::shared_ptr<const std::vector<uint32_t>> counts;
    TraceLocation where;
    // gatherv, scatterv: the root's counts once it has called, and the parts of members that called before it.
    std::shared_ptr<const std::vector<uint32_t>> root_counts = {};
    TraceLocation root_where = {};
    std::vector<MemberPart> early_parts = {};
  };
  struct CommProgress {
    std::vector<uint64_t> calls;    // per member
    std::deque<Collective> open;    // calls not yet made by every member
    std::deque<uint32_t> arrivals;  // how many members made each open call
    uint64_t first_open = 0;        // index of open.front()
  };

  void match(const TraceEvent& event);
  void track_request(const TraceEvent& event);
  void track_collective(const TraceEvent& event);
  void compare_collective(const TraceEvent& event, uint64_t k, Collective& first) const;
  // gatherv, scatterv: every member's own part is what the root lists for it.
  void compare_parts(const TraceEvent& event, Collective& first) const;

  [[noreturn]] void fail(const std::string& field, const std::string& problem) const;
  [[noreturn]] void fail_at(TraceLocation where, const std::string& field, const std::string& problem) const;

  std::string path_;
  std::map<uint32_t, Communicator> communicators_;
  TraceLocation where_;  // of the event being checked
  // (source, destination, tag) -> what is waiting for its other half; only
  // one side can be waiting at a time.
  std::unordered_map<Channel, std::deque<Pending>, ChannelHash> channels_;
  std::vector<std::unordered_map<uint32_t, TraceLocation>> open_requests_;  // per rank
  std::map<uint32_t, CommProgress> comms_;
};

// Reads every remaining event of `reader` through all checks, handing each
// to `visit`. Throws TraceError at the first problem.
void check_whole_trace(TraceReader& reader, const std::function<void(const TraceEvent&)>& visit = {});

}  // namespace ibsec::traces
