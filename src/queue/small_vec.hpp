// A fixed-size array that lives on the stack up to N elements (the common Startall/Waitall sizes)
// and on the heap beyond: the enqueue calls allocate nothing in the steady state.
#pragma once

#include <cstddef>
#include <vector>

namespace baton::queue {

template <class T, size_t N = 16>
class small_vec {
 public:
  explicit small_vec(size_t n) : n_(n) {
    if (n > N) {
      heap_.resize(n);
      p_ = heap_.data();
    }
  }
  small_vec(const small_vec&) = delete;
  small_vec& operator=(const small_vec&) = delete;
  T* data() { return p_; }
  size_t size() const { return n_; }
  T& operator[](size_t i) { return p_[i]; }
  T* begin() { return p_; }
  T* end() { return p_ + n_; }

 private:
  T inline_[N];  // filled by the caller
  std::vector<T> heap_;
  T* p_ = inline_;
  size_t n_;
};

}  // namespace baton::queue
