#include "core/slab.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <new>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

namespace baton::core {

namespace {
constexpr size_t grow_bytes = size_t{64} * 1024;  // made read-write at a time (at least)
constexpr size_t page = 4096;
}

void slab::grow() {
  uintptr_t base = base_.load(std::memory_order_relaxed);
  if (base == 0) {
    void* p = ::mmap(nullptr, reserve_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    base = reinterpret_cast<uintptr_t>(p);
    base_.store(base, std::memory_order_relaxed);
#if defined(__SANITIZE_ADDRESS__)
    // Objects here hold heap pointers (names, vectors): LeakSanitizer must scan the arena as it
    // scans the heap, or everything a live communicator owns would be reported as leaked.
    __lsan_register_root_region(p, reserve_);
#endif
  }
  // mprotect works on whole pages; the limit holds() tests is the whole objects below them.
  const size_t step = (std::max(grow_bytes, stride_) + page - 1) / page * page;
  if (mapped_ + step > reserve_) throw std::bad_alloc();
  if (::mprotect(reinterpret_cast<void*>(base + mapped_), step, PROT_READ | PROT_WRITE) != 0) throw std::bad_alloc();
  mapped_ += step;
  // Release: a thread that sees the new limit in holds() sees the mapping (and its zeros).
  limit_.store(mapped_ / stride_ * stride_, std::memory_order_release);
}

void* slab::alloc() {
  std::lock_guard<std::mutex> g(m_);
  if (nfree_ > quarantine) {
    free_node* f = free_head_;
    free_head_ = f->next;
    if (free_head_ == nullptr) free_tail_ = nullptr;
    --nfree_;
    f->next = nullptr;  // the slot reads as zeros again
    return f;
  }
  if (used_ + stride_ > limit_.load(std::memory_order_relaxed)) grow();
  void* p = reinterpret_cast<void*>(base_.load(std::memory_order_relaxed) + used_);
  used_ += stride_;
  return p;
}

void slab::release(void* p) noexcept {
  std::memset(p, 0, stride_);
  std::lock_guard<std::mutex> g(m_);
  auto* f = static_cast<free_node*>(p);
  if (free_tail_ != nullptr)
    free_tail_->next = f;
  else
    free_head_ = f;
  free_tail_ = f;
  ++nfree_;
}

}  // namespace baton::core
