// Items of several ranks handed on in (START, rank) order, each rank's in
// the order it gave them: each rank's items, already in START order, wait in
// a queue of their own behind a heap of the queues' first items, so ordering
// costs a heap of ranks, not of every item waiting. Used by the import's
// builder (events made) and by the clock shift (events moved).
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
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
    if (queue.empty()) {
      heads_.emplace_back(start_ns, rank);
      std::push_heap(heads_.begin(), heads_.end(), std::greater<>{});
    }
    queue.push_back({start_ns, std::move(item)});
  }
  [[nodiscard]] bool empty() const { return heads_.empty(); }
  // The first item in order, and its START; only when not empty.
  [[nodiscard]] uint64_t next_start() const { return heads_.front().first; }
  [[nodiscard]] T& next() { return queues_[heads_.front().second].front().item; }
  void pop() {
    const uint32_t rank = heads_.front().second;
    std::deque<Entry>& queue = queues_[rank];
    queue.pop_front();
    if (queue.empty()) {
      std::pop_heap(heads_.begin(), heads_.end(), std::greater<>{});
      heads_.pop_back();
      return;
    }
    replace_first_head({queue.front().start_ns, rank});
  }

 private:
  struct Entry {
    uint64_t start_ns;  // beside the item: ordering reads no item
    T item;
  };
  using Head = std::pair<uint64_t, uint32_t>;  // (START, rank) of a non-empty queue's first item

  // The first rank's next item takes its place among the heads, moved down
  // in one pass: the same rank often goes next again, and then nothing
  // moves (a pop and a push of the heap would move it down and up again).
  void replace_first_head(Head head) {
    size_t hole = 0;
    for (size_t child = 1; child < heads_.size(); child = 2 * hole + 1) {
      if (child + 1 < heads_.size() && heads_[child + 1] < heads_[child]) ++child;
      if (head < heads_[child]) break;
      heads_[hole] = heads_[child];
      hole = child;
    }
    heads_[hole] = head;
  }

  std::vector<std::deque<Entry>> queues_;
  std::vector<Head> heads_;  // a heap, smallest first (std::push_heap with std::greater)
};

}  // namespace ibsec::traces
