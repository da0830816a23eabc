// Mending the ranks' clocks of an imported trace after it was made: every
// event of rank r moves `shifts[r]` ns later and the events are put back in
// the format's order (START, then rank, then each rank's own order), as the
// import would have made them had it read the source with the clocks
// mended. Valid only when no event depended on the order in which the ranks'
// records were read (ImportBuilder::reading_order_mattered).
//
// Memory: the events within the largest shift of the one being read, since
// no event still to come can go before one that starts that much earlier.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "traces/trace_reader.h"

namespace ibsec::traces {

// Reads every remaining event of `in` and hands each to `sink`, shifted and
// in order. Throws TraceError.
void shift_rank_clocks(TraceReader& in, const std::vector<uint64_t>& shifts,
                       const std::function<void(const TraceEvent&)>& sink);

}  // namespace ibsec::traces
