// Objects of one type built in place in one block, each an odd number of
// cache lines from the next.
//
// Allocated one by one, objects of a few KiB lie a multiple of the
// allocator's size-class spacing apart (512 bytes and more at these sizes),
// so one field of every object falls in an eighth or less of a cache's sets:
// on a 1 024-node fabric the cards' hot lines crowded those sets while the
// rest stayed idle. An odd number of lines apart, the same field of
// consecutive objects walks through every set (docs/performance.md, "Links
// beside their ports, objects an odd number of lines apart").
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <stdexcept>
#include <utility>

namespace ibsec {

template <typename T>
class StaggeredArray {
 public:
  static constexpr size_t kLineBytes = 64;
  // sizeof(T) rounded up to whole lines, and up again to an odd count.
  static constexpr size_t kStrideBytes = ((sizeof(T) + kLineBytes - 1) / kLineBytes | 1) * kLineBytes;
  static_assert(alignof(T) <= kLineBytes, "every object starts on a line");

  explicit StaggeredArray(size_t capacity)
      : storage_(static_cast<std::byte*>(::operator new (capacity* kStrideBytes, std::align_val_t{kLineBytes}))),
        capacity_(capacity) {}
  ~StaggeredArray() {
    while (size_ > 0) std::destroy_at(&(*this)[--size_]);
    ::operator delete (storage_, std::align_val_t{kLineBytes});
  }
  StaggeredArray(const StaggeredArray&) = delete;
  StaggeredArray& operator=(const StaggeredArray&) = delete;

  // Builds the next object in place; the capacity is fixed at construction.
  template <typename... Args>
  T& emplace_back(Args&&... args) {
    if (size_ == capacity_) throw std::logic_error("StaggeredArray: built beyond its capacity");
    T* object = std::construct_at(reinterpret_cast<T*>(storage_ + size_ * kStrideBytes), std::forward<Args>(args)...);
    ++size_;
    return *object;
  }

  T& operator[](size_t i) { return *std::launder(reinterpret_cast<T*>(storage_ + i * kStrideBytes)); }
  const T& operator[](size_t i) const { return *std::launder(reinterpret_cast<const T*>(storage_ + i * kStrideBytes)); }
  [[nodiscard]] size_t size() const { return size_; }

 private:
  std::byte* storage_;
  size_t capacity_;
  size_t size_ = 0;
};

}  // namespace ibsec
