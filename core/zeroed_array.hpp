#pragma once
/// A fixed-size array of trivially copyable values that start as all-zero bytes. A large one is
/// a fresh anonymous mapping: the kernel supplies zero pages on first touch, so a checker whose
/// state is mostly never touched (the scratch and output slots of a big machine) pays for the
/// slots a schedule uses, not for all of them up front; and it asks for transparent huge pages,
/// so that touching it costs one page fault per 2 MiB instead of per 4 KiB (checkers over p^2
/// chunks are bound by exactly that). Small ones come from calloc.

#include <cstddef>
#include <type_traits>

namespace phasecheck {

namespace detail {
/// Zeroed memory of `bytes` bytes; throws std::bad_alloc. Release with release_zeroed.
void* allocate_zeroed(std::size_t bytes);
void release_zeroed(void* p, std::size_t bytes) noexcept;
}  // namespace detail

template <class T>
class ZeroedArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  ZeroedArray() = default;
  explicit ZeroedArray(std::size_t n)
      : data_(static_cast<T*>(detail::allocate_zeroed(n * sizeof(T)))), size_(n) {}
  ZeroedArray(ZeroedArray&& o) noexcept : data_(o.data_), size_(o.size_) {
    o.data_ = nullptr;
    o.size_ = 0;
  }
  ZeroedArray& operator=(ZeroedArray&& o) noexcept {
    if (this != &o) {
      detail::release_zeroed(data_, size_ * sizeof(T));
      data_ = o.data_;
      size_ = o.size_;
      o.data_ = nullptr;
      o.size_ = 0;
    }
    return *this;
  }
  ZeroedArray(const ZeroedArray&) = delete;
  ZeroedArray& operator=(const ZeroedArray&) = delete;
  ~ZeroedArray() { detail::release_zeroed(data_, size_ * sizeof(T)); }

  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  std::size_t size() const { return size_; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace phasecheck
