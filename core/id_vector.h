// A vector indexed by one kind of strong id (core/types.h), so that a table of
// processes is indexed by a ProcessId and cannot be indexed by a CpuId.
#pragma once

#include <cstddef>
#include <ranges>
#include <utility>
#include <vector>

#include "core/types.h"

namespace ibsec {

// The ids 0 .. count-1 of one kind: `for (const CpuId c : ids<CpuId>(n))`.
template <typename Id>
constexpr auto ids(size_t count) {
  using Rep = typename Id::rep_type;
  return std::views::iota(Rep{0}, static_cast<Rep>(count)) | std::views::transform([](Rep v) { return Id(v); });
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
