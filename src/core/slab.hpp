// Baton-owned arenas for objects whose addresses are handed to users as handles (communicators,
// requests, windows, groups, info objects, error handlers, sessions, queues, messages, files):
// a handle is checked with a range and alignment test against its kind's arena before anything is
// read through it, so any garbage value (random, misaligned, a pointer into the stack or the
// heap, a freed object) gives the kind's error class instead of a crash, at the cost of two
// compares. Memory inside the arena is always mapped (zero until first used, cleared when an
// object is freed), so reading an object's magic word there is safe.
//
// Each kind's arena is a virtual range reserved with PROT_NONE on first use and made readable
// and writable in steps as objects are carved from it; memory freed goes to the arena's free
// list, never back to the system (as the request pool always did). A kind uses it by deriving
// from slab_allocated<T> (class-level operator new / delete) and checking handles with
// slab_holds<T>(p) before reading the magic.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace baton::core {

class slab {
 public:
  constexpr slab(size_t stride, size_t reserve) : stride_(stride), reserve_(reserve) {}
  slab(const slab&) = delete;
  slab& operator=(const slab&) = delete;

  // Memory for one object (stride bytes, 64-byte aligned, zero or cleared); throws std::bad_alloc
  // when the arena is exhausted or the system refuses memory.
  void* alloc();
  // Back to the arena: cleared (so the freed object's magic word reads 0) and reused by alloc()
  // only once `quarantine` newer objects have been freed after it (oldest first): a handle kept
  // after its free keeps giving the kind's error instead of naming whatever object came next.
  void release(void* p) noexcept;
  // p's offset in the arena, and how many bytes from the start are mapped (slab_holds).
  uintptr_t offset(const void* p) const noexcept {
    return reinterpret_cast<uintptr_t>(p) - base_.load(std::memory_order_relaxed);
  }
  size_t limit() const noexcept { return limit_.load(std::memory_order_acquire); }

 private:
  struct free_node {
    free_node* next;
  };
  void grow();
  static constexpr size_t quarantine = 64;
  const size_t stride_, reserve_;
  std::mutex m_;
  std::atomic<uintptr_t> base_{0};
  std::atomic<size_t> limit_{0};  // bytes from base_ holding whole object slots, all mapped
  size_t mapped_ = 0;             // bytes from base_ that are mapped read-write (whole pages)
  size_t used_ = 0;               // bytes carved into objects
  free_node* free_head_ = nullptr;  // freed slots, oldest first
  free_node* free_tail_ = nullptr;
  size_t nfree_ = 0;
};

// One arena per kind: objects are placed every `stride` bytes (the size rounded up to a cache
// line), in a reserve of `reserve` bytes of address space (only what is used is backed).
template <class T>
struct slab_traits {
  static constexpr size_t stride = (sizeof(T) + 63) / 64 * 64;
  static constexpr size_t reserve = size_t{1} << 32;  // 4 GiB of address space
};

template <class T>
inline constinit slab slab_of{slab_traits<T>::stride, slab_traits<T>::reserve};

// Whether p is the start of an object slot of T's arena (live, freed or never used): then its
// magic word may be read. The stride is a constant, so the alignment test is a multiply.
template <class T>
inline bool slab_holds(const void* p) noexcept {
  const uintptr_t off = slab_of<T>.offset(p);
  return off < slab_of<T>.limit() && off % slab_traits<T>::stride == 0;
}

// Derive from this (T itself as the argument) to allocate T's objects from its arena.
template <class T>
struct slab_allocated {
  static void* operator new(size_t n) {
    (void)n;  // always sizeof(T) or less (no arrays of T are made)
    return slab_of<T>.alloc();
  }
  static void operator delete(void* p) noexcept {
    if (p) slab_of<T>.release(p);
  }
  // Placement forms (a class operator new hides the global ones): construction in memory the
  // caller took from the arena itself (the request pool).
  static void* operator new(size_t, void* where) noexcept { return where; }
  static void operator delete(void*, void*) noexcept {}
};

}  // namespace baton::core
