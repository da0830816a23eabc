#include "traces/import/rank_clock_shift.h"

#include <utility>

#include "traces/import/rank_queues.h"

namespace ibsec::traces {

// Each rank's events are already in their order and move together.
void shift_rank_clocks(TraceReader& reader, const std::vector<uint64_t>& shifts,
                       const std::function<void(const TraceEvent&)>& sink) {
  RankQueues<TraceEvent> waiting(shifts.size());
  const auto hand_on_first = [&] {
    sink(waiting.next());
    waiting.pop();
  };
  TraceEvent event;
  while (reader.next(event)) {
    // Every event still to come starts no earlier than this one unshifted,
    // and shifts only delay: what starts before it now is in its place.
    while (!waiting.empty() && waiting.next_start() < event.start_ns) hand_on_first();
    if (event.rank >= shifts.size()) reader.fail("rank", "no clock shift for rank " + std::to_string(event.rank));
    event.start_ns += shifts[event.rank];
    event.end_ns += shifts[event.rank];
    const uint64_t start_ns = event.start_ns;
    waiting.push(event.rank, start_ns, std::move(event));
  }
  while (!waiting.empty()) hand_on_first();
}

}  // namespace ibsec::traces
