// An array of plain values most of which are never written: a switch's
// input buffer slots, of which light load uses the first few of each
// buffer. Its entries start unspecified; a page of it costs memory only once
// an entry on it is written, on small pages whatever the allocator's are.
//
// The engine's allocator puts its arenas on 2 MiB pages
// (apps/allocator_options.cpp), where the first write to an array would make
// every page of it resident: a 65 536-node fat tree's slots would take
// 250 MiB more. So an array of kOwnMappingBytes (four small pages) or more
// is mapped straight from the operating system, on small pages; a smaller
// one comes from the allocator, on its huge pages, where its first entries,
// the ones used, cost no TLB misses of their own (a 4-ary 5-tree's switch
// has 6 KiB of slots; radix 64 at the default depth, 48 KiB).
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>

namespace ibsec {

// Anonymous memory mapped on small pages, untouched until written.
class SmallPageMapping {
 public:
  SmallPageMapping() = default;
  explicit SmallPageMapping(size_t bytes);
  ~SmallPageMapping();
  SmallPageMapping(SmallPageMapping&& other) noexcept;
  SmallPageMapping& operator=(SmallPageMapping&& other) noexcept;
  SmallPageMapping(const SmallPageMapping&) = delete;
  SmallPageMapping& operator=(const SmallPageMapping&) = delete;

  [[nodiscard]] void* data() const { return data_; }

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

template <typename T>
class SparseArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "entries are plain values, never constructed nor destroyed");

 public:
  static constexpr size_t kOwnMappingBytes = 16 * 1024;  // at 32 KiB, radix-42 switches' 32 256 B stayed resident

  SparseArray() = default;
  explicit SparseArray(size_t count) {
    if (count * sizeof(T) >= kOwnMappingBytes) {
      mapping_ = SmallPageMapping(count * sizeof(T));
      data_ = static_cast<T*>(mapping_.data());
    } else {
      allocated_ = std::make_unique_for_overwrite<T[]>(count);
      data_ = allocated_.get();
    }
  }

  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  // Whether the entries are in a mapping of their own (kOwnMappingBytes or more).
  [[nodiscard]] bool mapped() const { return mapping_.data() != nullptr; }
  [[nodiscard]] T* data() { return data_; }
  [[nodiscard]] const T* data() const { return data_; }

 private:
  SmallPageMapping mapping_;
  std::unique_ptr<T[]> allocated_;
  T* data_ = nullptr;
};

}  // namespace ibsec
