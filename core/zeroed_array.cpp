#include "core/zeroed_array.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

namespace phasecheck::detail {
namespace {

constexpr std::size_t kMapped = std::size_t{2} << 20;  // from 2 MiB on: a mapping of its own

}  // namespace

void* allocate_zeroed(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  if (bytes < kMapped) {
    void* p = std::calloc(bytes, 1);
    if (!p) throw std::bad_alloc();
    return p;
  }
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  madvise(p, bytes, MADV_HUGEPAGE);  // a hint: without it the pages are 4 KiB, nothing else changes
#endif
  return p;
}

void release_zeroed(void* p, std::size_t bytes) noexcept {
  if (!p) return;
  if (bytes < kMapped)
    std::free(p);
  else
    munmap(p, bytes);
}

}  // namespace phasecheck::detail
