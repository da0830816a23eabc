// Mending the ranks' clocks of an imported trace after it was written: every
// event of rank r moves `shifts[r]` ns later and the events are put back in
// the format's order (START, then rank, then each rank's own order), as the
// import would have written them had it read the source with the clocks
// mended. Valid only when no event depended on the order in which the ranks'
// records were read (ImportBuilder::reading_order_mattered).
//
// Memory: the events within the largest shift of the one being read, since
// no event still to come can go before one that starts that much earlier.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ibsec::traces {

// Reads the binary trace `in` and writes it to `out` (binary, uncompressed)
// with every rank's clock shifted. Throws TraceError.
void shift_rank_clocks(const std::string& in, const std::string& out, const std::vector<uint64_t>& shifts);

}  // namespace ibsec::traces
