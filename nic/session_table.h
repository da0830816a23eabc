// What a card keeps per session direction between one of its own processes
// and another process: the next sequence number to send, or the arrivals
// checked for reordering.
//
// A look-up in a hash table reads two lines that no recent look-up read
// (the control bytes, then the slot), and under uniform traffic on a large
// fabric both come from memory: the two look-ups a packet makes took about
// an eighth of a 1 024-node run's time. A row of the remote processes per
// local process reads one. Rows cost processes x the value for each local
// process, whether the traffic meets one remote process or all of them, so
// a table keeps rows only while a row is small (kRowBytes: 1 024 processes
// of 8-byte values) and only for its first kRows local processes; the
// directions of any other local process, and all of them beyond that many
// processes (a row at 65 536 nodes would be 256 KiB a card), go to a hash
// table (SessionMap). Only look-ups are made, never walks in table order,
// so where an entry is kept cannot reach a result.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "nic/session_map.h"

namespace ibsec::nic {

template <typename Value>
class SessionTable {
 public:
  // The largest row kept, and the local processes given one.
  static constexpr uint64_t kRowBytes = 8 * 1024;
  static constexpr uint32_t kRows = 4;

  explicit SessionTable(uint32_t total_processes)
      : processes_(total_processes),
        rows_allowed_(uint64_t{total_processes} * sizeof(Value) <= kRowBytes ? kRows : 0) {}

  // The entry of the direction between `local`, a process on this card,
  // and `remote` (< the processes given at construction), value-initialised
  // on first use. It stays where it is while the table lives.
  Value& operator()(uint32_t local, uint32_t remote) {
    if (Value* row = row_of(local)) return row[remote];
    if (rows_used_ < rows_allowed_) {
      row_process_[rows_used_] = local;
      rows_[rows_used_] = std::make_unique<Value[]>(processes_);
      return rows_[rows_used_++][remote];
    }
    return others_[session_direction(local, remote)];
  }

  // Asks the memory for the entry's line, if it is in a row (a hint).
  void prefetch(uint32_t local, uint32_t remote) const {
    if (const Value* row = row_of(local)) __builtin_prefetch(&row[remote], 1);
  }

  // How many local processes have a row (the rest are hashed).
  [[nodiscard]] uint32_t rows() const { return rows_used_; }

 private:
  // The row of `local`, or none.
  [[nodiscard]] Value* row_of(uint32_t local) const {
    for (uint32_t row = 0; row < rows_used_; ++row) {
      if (row_process_[row] == local) return rows_[row].get();
    }
    return nullptr;
  }

  uint32_t processes_;
  uint32_t rows_allowed_;
  uint32_t rows_used_ = 0;
  std::array<uint32_t, kRows> row_process_{};
  std::array<std::unique_ptr<Value[]>, kRows> rows_;
  SessionMap<Value> others_;  // keyed by (local, remote)
};

}  // namespace ibsec::nic
