#include "core/sparse_array.h"

#include <sys/mman.h>

#include <new>
#include <utility>

namespace ibsec {

SmallPageMapping::SmallPageMapping(size_t bytes) : bytes_(bytes) {
  if (bytes == 0) return;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  // A hint that fails where the kernel has no transparent huge pages, whose pages are small anyway.
  madvise(p, bytes, MADV_NOHUGEPAGE);
  data_ = p;
}

SmallPageMapping::~SmallPageMapping() {
  if (data_ != nullptr) munmap(data_, bytes_);
}

SmallPageMapping::SmallPageMapping(SmallPageMapping&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

SmallPageMapping& SmallPageMapping::operator=(SmallPageMapping&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) munmap(data_, bytes_);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

}  // namespace ibsec
