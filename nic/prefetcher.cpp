#include "nic/prefetcher.h"

#include <algorithm>
#include <cassert>

#include "core/session_pairs.h"

namespace ibsec::nic {

void Prefetcher::handed_over(ProcessId process) {
  running_ = process;
  note_local(process);
  if (prefetched_for_ == process) prefetched_for_ = ProcessId::none();
}

bool Prefetcher::arrived_for(ProcessId process, const KeyLookup& lookup) {
  note_local(process);
  if (process == running_ || process == prefetched_for_) return false;
  prefetched_for_ = process;
  for (const SessionKeyId key : lists_.keys(process.value())) {
    const bool on_card = lookup.skc().contains(key) || lookup.buffer()->contains(key);
    const bool coming = std::ranges::find(queue_, key) != queue_.end() || in_flight_ == key;
    if (!on_card && !coming) queue_.push_back(key);
  }
  return true;
}

void Prefetcher::evicted(SessionKeyId key) {
  const auto [lo, hi] = session_pair(key, total_processes_);
  if (is_local(lo)) lists_.record(lo, key);
  if (is_local(hi)) lists_.record(hi, key);
}

bool Prefetcher::cancel(SessionKeyId key) { return std::erase(queue_, key) > 0; }

std::optional<SessionKeyId> Prefetcher::start_next() {
  if (!has_queued()) return std::nullopt;
  in_flight_ = queue_.front();
  queue_.pop_front();
  return in_flight_;
}

SessionKeyId Prefetcher::finish() {
  assert(in_flight_ && "a prefetch finished that was never started");
  const SessionKeyId key = *in_flight_;
  in_flight_.reset();
  return key;
}

void Prefetcher::note_local(ProcessId process) {
  if (!is_local(process.value())) local_processes_.push_back(process.value());
}

bool Prefetcher::is_local(uint32_t process) const {
  return std::find(local_processes_.begin(), local_processes_.end(), process) != local_processes_.end();
}

}  // namespace ibsec::nic
