#include "traces/import/rank_clock_shift.h"

#include <deque>
#include <functional>
#include <queue>
#include <utility>

namespace ibsec::traces {

// Each rank's events are already in their order and move together, so they
// wait in a queue of their own; a heap of the queues' first events (start,
// rank) says which goes next, whatever the length of the queues.
void shift_rank_clocks(TraceReader& reader, const std::vector<uint64_t>& shifts,
                       const std::function<void(const TraceEvent&)>& sink) {
  std::vector<std::deque<TraceEvent>> waiting(shifts.size());
  using Head = std::pair<uint64_t, uint32_t>;  // (shifted start, rank) of a non-empty queue's first event
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  const auto hand_on_first = [&] {
    const uint32_t rank = heads.top().second;
    heads.pop();
    sink(waiting[rank].front());
    waiting[rank].pop_front();
    if (!waiting[rank].empty()) heads.emplace(waiting[rank].front().start_ns, rank);
  };
  TraceEvent event;
  while (reader.next(event)) {
    // Every event still to come starts no earlier than this one unshifted,
    // and shifts only delay: what starts before it now is in its place.
    while (!heads.empty() && heads.top().first < event.start_ns) hand_on_first();
    if (event.rank >= shifts.size()) reader.fail("rank", "no clock shift for rank " + std::to_string(event.rank));
    event.start_ns += shifts[event.rank];
    event.end_ns += shifts[event.rank];
    std::deque<TraceEvent>& queue = waiting[event.rank];
    if (queue.empty()) heads.emplace(event.start_ns, event.rank);
    queue.push_back(std::move(event));
  }
  while (!heads.empty()) hand_on_first();
}

}  // namespace ibsec::traces
