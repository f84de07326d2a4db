// A FIFO over a growable circular buffer: once it has grown to the deepest backlog seen, pushes
// and pops allocate nothing (std::deque allocates a block every few dozen pushes of a churning
// queue).
#pragma once

#include <cstddef>
#include <vector>

namespace baton::core {

template <class T>
class fifo {
 public:
  bool empty() const { return n_ == 0; }
  size_t size() const { return n_; }
  T& front() { return buf_[head_]; }
  void push_back(const T& x) {
    if (n_ == buf_.size()) grow();
    buf_[(head_ + n_) % buf_.size()] = x;
    ++n_;
  }
  void pop_front() {
    head_ = (head_ + 1) % buf_.size();
    --n_;
  }

 private:
  void grow() {
    std::vector<T> b(buf_.empty() ? 64 : buf_.size() * 2);
    for (size_t i = 0; i < n_; ++i) b[i] = buf_[(head_ + i) % buf_.size()];
    buf_.swap(b);
    head_ = 0;
  }
  std::vector<T> buf_;
  size_t head_ = 0, n_ = 0;
};

}  // namespace baton::core
