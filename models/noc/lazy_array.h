// A fixed-size array whose memory the kernel supplies page by page on first touch: an
// anonymous private mapping, zero-filled, never written by the constructor. For storage
// sized for the worst case but mostly unused, such as VC buffers deep enough for a long
// link's credit round trip (models/noc/router.h): what a run never touches costs
// address space, not memory. (A std::vector value-initialises every element, so every
// page of it is resident from the start.)
//
// T must be trivially copyable and destructible: elements are bytes until written, and
// all-zero bytes is what an untouched element reads as.
#pragma once
#include <sys/mman.h>

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace fm {

template <class T>
class LazyArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "LazyArray holds plain data: its elements are never constructed");

 public:
  LazyArray() = default;
  explicit LazyArray(size_t n) : n_(n) {
    if (!n) return;
    void* p = mmap(nullptr, bytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    p_ = static_cast<T*>(p);  // page-aligned, so aligned for any T
  }
  LazyArray(LazyArray&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  LazyArray& operator=(LazyArray&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  LazyArray(const LazyArray&) = delete;
  LazyArray& operator=(const LazyArray&) = delete;
  ~LazyArray() {
    if (p_) munmap(p_, bytes());
  }
  T& operator[](size_t i) { return p_[i]; }
  const T& operator[](size_t i) const { return p_[i]; }
  size_t size() const { return n_; }

 private:
  size_t bytes() const { return n_ * sizeof(T); }
  T* p_ = nullptr;
  size_t n_ = 0;
};

}  // namespace fm
