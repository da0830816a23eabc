#include "nic/frequent_keys.h"

#include <algorithm>

namespace ibsec::nic {

void FrequentKeyLists::record(uint32_t process, SessionKeyId key) {
  std::vector<SessionKeyId>& list = lists_[process];
  auto found = std::ranges::find(list, key);
  if (found == list.end()) {
    if (list.size() < entries_) list.emplace_back();
    found = list.end() - 1;
  }
  std::move_backward(list.begin(), found, found + 1);
  list.front() = key;
}

std::span<const SessionKeyId> FrequentKeyLists::keys(uint32_t process) const {
  const auto found = lists_.find(process);
  if (found == lists_.end()) return {};
  return found->second;
}

}  // namespace ibsec::nic
