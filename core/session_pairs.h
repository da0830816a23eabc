// Session key ids: one key per pair of communicating processes. The id is
// in every packet's header in clear, so the cards, the statistics and an
// attacker on the wire all read it the same way.
#pragma once

#include <cstdint>

#include "core/types.h"

namespace ibsec {

// One key per pair of communicating processes (fine-grained scheme, §3.1):
// the same key serves both directions, so the id depends on the pair only.
constexpr SessionKeyId session_key(uint32_t process_a, uint32_t process_b, uint32_t total_processes) {
  const uint64_t lo = process_a < process_b ? process_a : process_b;
  const uint64_t hi = process_a < process_b ? process_b : process_a;
  return SessionKeyId(lo * total_processes + hi);
}

// The pair of processes a session key protects (lower id first): the inverse of session_key.
struct ProcessPair {
  uint32_t lo;
  uint32_t hi;
};
constexpr ProcessPair session_pair(SessionKeyId key, uint32_t total_processes) {
  return {static_cast<uint32_t>(key.value() / total_processes), static_cast<uint32_t>(key.value() % total_processes)};
}

}  // namespace ibsec
