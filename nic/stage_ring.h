// The packets one stage of a card's pipeline holds (its look-ups, its GCM
// work), first in, first out, up to a capacity set when the card is built.
// The first kInline places are kept in the ring itself and the rest apart,
// and the ring starts again from its first place whenever it empties: at
// light load a stage holds one packet at a time, which then always sits in
// the ring's own cache line (the pipeline's), never in memory apart that
// would have to come in for it (docs/performance.md).
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>

namespace ibsec::nic {

template <typename T, size_t kInline>
class StageRing {
  static_assert(kInline >= 1, "a ring keeps at least its first place in itself");

 public:
  // Walks the entries oldest first.
  template <typename Ring, typename Value>
  class Iterator {
   public:
    using iterator_concept = std::forward_iterator_tag;
    using iterator_category = std::forward_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using reference = Value&;

    Iterator() = default;
    Iterator(Ring* ring, size_t index) : ring_(ring), index_(index) {}
    reference operator*() const { return ring_->at(index_); }
    Value* operator->() const { return &ring_->at(index_); }
    Iterator& operator++() {
      ++index_;
      return *this;
    }
    Iterator operator++(int) {
      Iterator before = *this;
      ++index_;
      return before;
    }
    bool operator==(const Iterator& other) const { return index_ == other.index_; }

   private:
    friend class StageRing;
    Ring* ring_ = nullptr;
    size_t index_ = 0;  // from the oldest
  };
  using iterator = Iterator<StageRing, T>;
  using const_iterator = Iterator<const StageRing, const T>;

  explicit StageRing(size_t capacity)
      : capacity_(static_cast<uint32_t>(capacity)),
        more_(capacity > kInline ? std::make_unique<T[]>(capacity - kInline) : nullptr) {
    assert(capacity >= 1 && capacity <= UINT32_MAX && "a stage holds at least one packet");
  }

  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] bool full() const { return size_ == capacity_; }
  [[nodiscard]] size_t size() const { return size_; }

  T& front() { return at(0); }
  [[nodiscard]] const T& front() const { return at(0); }
  T& back() { return at(size_ - 1); }
  [[nodiscard]] const T& back() const { return at(size_ - 1); }

  void push_back(const T& entry) {
    assert(!full() && "a stage takes no more than its capacity");
    place((first_ + size_) % capacity_) = entry;
    ++size_;
  }
  void pop_front() {
    assert(!empty());
    first_ = --size_ == 0 ? 0 : (first_ + 1) % capacity_;
  }
  // Removes one entry, keeping the others in order.
  void erase(iterator entry) {
    for (size_t i = entry.index_; i + 1 < size_; ++i) at(i) = at(i + 1);
    if (--size_ == 0) first_ = 0;
  }

  iterator begin() { return iterator(this, 0); }
  iterator end() { return iterator(this, size_); }
  [[nodiscard]] const_iterator begin() const { return const_iterator(this, 0); }
  [[nodiscard]] const_iterator end() const { return const_iterator(this, size_); }

 private:
  T& at(size_t index) { return place((first_ + index) % capacity_); }
  [[nodiscard]] const T& at(size_t index) const { return const_cast<StageRing*>(this)->at(index); }
  T& place(size_t p) { return p < kInline ? inline_[p] : more_[p - kInline]; }

  uint32_t capacity_;
  uint32_t first_ = 0;  // the oldest entry's place
  uint32_t size_ = 0;
  T inline_[kInline]{};
  std::unique_ptr<T[]> more_;
};

}  // namespace ibsec::nic
