// A vector indexed by one kind of strong id (core/types.h), so that a table of
// processes is indexed by a ProcessId and cannot be indexed by a CpuId.
#pragma once

#include <cstddef>
#include <iterator>
#include <utility>
#include <vector>

#include "core/types.h"

namespace ibsec {

// The ids 0 .. count-1 of one kind: `for (const CpuId c : ids<CpuId>(n))`.
// A plain range rather than iota | transform, which clang 14 cannot compile
// against libstdc++ 12 (the fuzz and sanitizer builds use clang).
template <typename Id>
class IdRange {
 public:
  using Rep = typename Id::rep_type;
  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Id;
    using difference_type = std::ptrdiff_t;
    using reference = Id;
    using pointer = void;

    constexpr iterator() = default;
    constexpr explicit iterator(Rep at) : at_(at) {}
    constexpr Id operator*() const { return Id(at_); }
    constexpr iterator& operator++() {
      ++at_;
      return *this;
    }
    constexpr iterator operator++(int) {
      const iterator was = *this;
      ++at_;
      return was;
    }
    constexpr bool operator==(const iterator&) const = default;

   private:
    Rep at_ = 0;
  };

  constexpr explicit IdRange(size_t count) : count_(static_cast<Rep>(count)) {}
  [[nodiscard]] constexpr iterator begin() const { return iterator(0); }
  [[nodiscard]] constexpr iterator end() const { return iterator(count_); }

 private:
  Rep count_;
};

template <typename Id>
constexpr IdRange<Id> ids(size_t count) {
  return IdRange<Id>(count);
}

template <typename Id, typename T>
class IdVector {
 public:
  IdVector() = default;
  explicit IdVector(size_t count, const T& value = T{}) : items_(count, value) {}

  // decltype(auto): a reference, or std::vector<bool>'s proxy.
  decltype(auto) operator[](Id id) { return items_[id.value()]; }
  decltype(auto) operator[](Id id) const { return items_[id.value()]; }

  template <typename... Args>
  T& emplace_back(Args&&... args) {
    return items_.emplace_back(std::forward<Args>(args)...);
  }
  void push_back(T value) { items_.push_back(std::move(value)); }

  // The id the next element added gets.
  [[nodiscard]] Id next_id() const { return Id(static_cast<typename Id::rep_type>(items_.size())); }
  [[nodiscard]] auto ids() const { return ibsec::ids<Id>(items_.size()); }
  [[nodiscard]] size_t size() const { return items_.size(); }
  [[nodiscard]] bool empty() const { return items_.empty(); }
  auto begin() { return items_.begin(); }
  auto end() { return items_.end(); }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }

 private:
  std::vector<T> items_;
};

}  // namespace ibsec
