// Objects kept in one vector and handed out by index, with released slots
// reused: the hot paths of the model move small handles and allocate only
// while a pool grows. A slot is reset to a value-initialised T when it is
// handed out again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace ibsec {

// Handle is an unsigned integer or a StrongId over one.
template <typename T, typename Handle = uint32_t>
class SlotPool {
 public:
  // A slot holding T{} (or `value`), reused if one is free.
  Handle acquire(T value = T{}) {
    if (free_.empty()) {
      slots_.push_back(std::move(value));
      return handle(slots_.size() - 1);
    }
    const Handle h = free_.back();
    free_.pop_back();
    slots_[index(h)] = std::move(value);
    return h;
  }
  void release(Handle h) { free_.push_back(h); }

  T& operator[](Handle h) { return slots_[index(h)]; }
  const T& operator[](Handle h) const { return slots_[index(h)]; }

  [[nodiscard]] size_t in_use() const { return slots_.size() - free_.size(); }
  [[nodiscard]] size_t capacity() const { return slots_.size(); }

 private:
  static size_t index(Handle h) {
    if constexpr (std::is_integral_v<Handle>) {
      return h;
    } else {
      return h.value();
    }
  }
  static Handle handle(size_t i) { return Handle(static_cast<typename HandleRep<Handle>::type>(i)); }

  template <typename H, bool = std::is_integral_v<H>>
  struct HandleRep {
    using type = H;
  };
  template <typename H>
  struct HandleRep<H, false> {
    using type = typename H::rep_type;
  };

  std::vector<T> slots_;
  std::vector<Handle> free_;
};

}  // namespace ibsec
