#include "traces/import/rank_clock_shift.h"

#include <queue>
#include <tuple>

#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace ibsec::traces {
namespace {

struct Shifted {
  TraceEvent event;  // already shifted
  uint64_t index;    // its place in the input, which keeps a rank's events in their order
};

struct Later {
  bool operator()(const Shifted& a, const Shifted& b) const {
    return std::tie(a.event.start_ns, a.event.rank, a.index) > std::tie(b.event.start_ns, b.event.rank, b.index);
  }
};

}  // namespace

void shift_rank_clocks(const std::string& in, const std::string& out, const std::vector<uint64_t>& shifts) {
  TraceReader reader(in);
  TraceWriter writer(out, reader.header(), TraceEncoding::kBinary, TraceCompression::kNone, "out");
  std::priority_queue<Shifted, std::vector<Shifted>, Later> waiting;
  TraceEvent event;
  uint64_t index = 0;
  while (reader.next(event)) {
    // Every event still to come starts no earlier than this one unshifted,
    // and shifts only delay: what starts before it now is in its place.
    while (!waiting.empty() && waiting.top().event.start_ns < event.start_ns) {
      writer.write(waiting.top().event);
      waiting.pop();
    }
    if (event.rank >= shifts.size()) reader.fail("rank", "no clock shift for rank " + std::to_string(event.rank));
    const uint64_t shift = shifts[event.rank];
    event.start_ns += shift;
    event.end_ns += shift;
    waiting.push({event, index++});
  }
  for (; !waiting.empty(); waiting.pop()) writer.write(waiting.top().event);
  writer.finish();
}

}  // namespace ibsec::traces
