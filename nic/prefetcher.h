// The card's coscheduling-aware prefetcher (§3.3), apart from its pipelines:
// which keys to fetch into the prefetch buffer, and in what order. The card
// takes the process that last handed it a message to be the one on the CPU;
// a packet for another local process is the coschedulers' hint that it will
// run soon, so its recently evicted keys (FrequentKeyLists) are queued, once
// per switch of process. The card reads the queue when its key memory's port
// is idle, one key at a time (Cic::pump_prefetches), so the timing stays
// with the card and this class holds only the choice (docs/cic.md).
#pragma once

#include <cstdint>
#include <deque>
#include <optional>

#include <boost/container/small_vector.hpp>

#include "core/types.h"
#include "nic/frequent_keys.h"
#include "nic/key_lookup.h"

namespace ibsec::nic {

class Prefetcher {
 public:
  // `list_entries` > 0: keys remembered per process.
  Prefetcher(uint32_t list_entries, uint32_t total_processes)
      : lists_(list_entries), total_processes_(total_processes) {}

  // `process` handed the card a message: it is taken to be on its CPU.
  void handed_over(ProcessId process);
  // A packet arrived for `process`. Unless it is the process taken to be
  // running, or its keys were queued since the last switch, queues those of
  // its keys neither on the card nor coming, and returns true (a trigger).
  bool arrived_for(ProcessId process, const KeyLookup& lookup);
  // The SKC evicted `key`: whichever of its two processes lives here keeps it.
  void evicted(SessionKeyId key);
  // A demand miss fetches `key` itself: true if it was queued here.
  bool cancel(SessionKeyId key);

  // The next key to read, now in flight; none while one is in flight or none is queued.
  std::optional<SessionKeyId> start_next();
  // The key in flight has been loaded: returns it.
  SessionKeyId finish();
  [[nodiscard]] bool has_queued() const { return !in_flight_ && !queue_.empty(); }

 private:
  void note_local(ProcessId process);
  [[nodiscard]] bool is_local(uint32_t process) const;

  FrequentKeyLists lists_;
  uint32_t total_processes_;
  // The processes seen sending or receiving here, in the order first seen:
  // a node's few, not a flag for every process of the run (nodes x
  // processes bits over all cards, 512 MiB at 65 536 nodes).
  boost::container::small_vector<uint32_t, 4> local_processes_;
  ProcessId running_ = ProcessId::none();         // inferred: the last process to hand over a message
  ProcessId prefetched_for_ = ProcessId::none();  // the last process whose keys were queued
  std::deque<SessionKeyId> queue_;
  std::optional<SessionKeyId> in_flight_;
};

}  // namespace ibsec::nic
