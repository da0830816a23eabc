#include "traces/import/rank_clock_shift.h"

#include "core/slot_pool.h"
#include "core/types.h"
#include "traces/import/rank_queues.h"

namespace ibsec::traces {

namespace {

// An event read and waiting for its turn.
using WaitingEvent = StrongId<struct WaitingEventTag, uint32_t>;

}  // namespace

// Each rank's events are already in their order and move together. Each
// event is read into a slot of `held`, reused once it is handed on, and only
// its handle waits in the queues: an event is never copied or moved.
void shift_rank_clocks(TraceReader& reader, const std::vector<uint64_t>& shifts,
                       const std::function<void(const TraceEvent&)>& sink) {
  SlotPool<TraceEvent, WaitingEvent> held;
  RankQueues<WaitingEvent> waiting(shifts.size());
  const auto hand_on_first = [&] {
    const WaitingEvent first = waiting.next();
    sink(held[first]);
    waiting.pop();
    held.release(first);
  };
  for (;;) {
    const WaitingEvent slot = held.acquire();
    TraceEvent& event = held[slot];  // valid until the next acquire
    if (!reader.next(event)) break;
    // Every event still to come starts no earlier than this one unshifted,
    // and shifts only delay: what starts before it now is in its place.
    while (!waiting.empty() && waiting.next_start() < event.start_ns) hand_on_first();
    if (event.rank >= shifts.size()) reader.fail("rank", "no clock shift for rank " + std::to_string(event.rank));
    event.start_ns += shifts[event.rank];
    event.end_ns += shifts[event.rank];
    waiting.push(event.rank, event.start_ns, slot);
  }
  while (!waiting.empty()) hand_on_first();
}

}  // namespace ibsec::traces
