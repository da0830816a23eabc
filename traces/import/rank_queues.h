// Items of several ranks handed on in (START, rank) order, each rank's in
// the order it gave them: each rank's items, already in START order, wait in
// a queue of their own behind a heap of the queues' first items, so ordering
// costs a heap of ranks, not of every item waiting. Used by the import's
// builder (events made) and by the clock shift (events moved).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

namespace ibsec::traces {

template <typename T>
class RankQueues {
 public:
  explicit RankQueues(size_t ranks) : queues_(ranks) {}

  // `start_ns` no earlier than that of the rank's items pushed before.
  void push(uint32_t rank, uint64_t start_ns, T item) {
    std::deque<Entry>& queue = queues_[rank];
    if (queue.empty()) heads_.emplace(start_ns, rank);
    queue.push_back({start_ns, std::move(item)});
  }
  [[nodiscard]] bool empty() const { return heads_.empty(); }
  // The first item in order, and its START; only when not empty.
  [[nodiscard]] uint64_t next_start() const { return heads_.top().first; }
  [[nodiscard]] T& next() { return queues_[heads_.top().second].front().item; }
  void pop() {
    const uint32_t rank = heads_.top().second;
    heads_.pop();
    std::deque<Entry>& queue = queues_[rank];
    queue.pop_front();
    if (!queue.empty()) heads_.emplace(queue.front().start_ns, rank);
  }

 private:
  struct Entry {
    uint64_t start_ns;  // beside the item: ordering reads no item
    T item;
  };
  std::vector<std::deque<Entry>> queues_;
  using Head = std::pair<uint64_t, uint32_t>;  // (START, rank) of a non-empty queue's first item
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads_;
};

}  // namespace ibsec::traces
