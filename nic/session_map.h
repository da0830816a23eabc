// What a card keeps per session direction (a source process sending to a
// destination process): sequence numbers to send, arrivals to check for
// reordering, replay windows.
//
// The directions a run could have are processes², so a table indexed by
// them would cost 4 B x processes for every local process (16 GiB over the
// cards of 65 536 nodes), while a card meets only those its traffic uses.
// An open-addressing hash table keeps each entry in the table's own array:
// a look-up reads one control byte group and one slot, with no node of its
// own on the heap as std::unordered_map has (a bucket line and a node line
// a look-up, and an allocation a new session). Only look-ups are made, never
// walks in table order, so the table's order cannot reach a result.
#pragma once

#include <cstdint>

#include <absl/container/flat_hash_map.h>

namespace ibsec::nic {

// The key of one session direction.
constexpr uint64_t session_direction(uint32_t source_process, uint32_t destination_process) {
  return (static_cast<uint64_t>(source_process) << 32) | destination_process;
}

template <typename Value>
using SessionMap = absl::flat_hash_map<uint64_t, Value>;

}  // namespace ibsec::nic
