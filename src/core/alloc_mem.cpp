#include "core/alloc_mem.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <unordered_map>

namespace baton::core {

namespace {

struct block_registry {
  std::mutex mu;
  std::unordered_map<void*, int64_t> live;  // start -> size
};

block_registry& blocks() {
  static block_registry r;
  return r;
}

size_t page_size() {
  static const size_t p = [] {
    long v = sysconf(_SC_PAGESIZE);
    return v > 0 ? size_t(v) : size_t(4096);
  }();
  return p;
}

// The node's physical memory in bytes (0 if unknown): a request above it is refused as out of
// memory rather than handed to an overcommitting allocator (or to a sanitizer that aborts).
int64_t physical_memory() {
  static const int64_t m = [] {
    long pages = sysconf(_SC_PHYS_PAGES);
    return pages > 0 ? int64_t(pages) * int64_t(page_size()) : int64_t(0);
  }();
  return m;
}

}  // namespace

size_t mem_default_alignment(int64_t size) {
  return size >= int64_t(page_size()) ? page_size() : mem_cache_line;
}

errc mem_alloc(int64_t size, size_t min_alignment, void** out) {
  if (size < 0) return error_set(errc::arg, "negative size %lld", static_cast<long long>(size));
  if (min_alignment == 0 || (min_alignment & (min_alignment - 1)) != 0)
    return error_set(errc::arg, "alignment %zu is not a power of two", min_alignment);
  const size_t align = std::max(mem_default_alignment(size), min_alignment);
  if (const int64_t phys = physical_memory(); phys > 0 && size > phys)
    return error_set(errc::no_mem, "cannot allocate %lld bytes: more than this node's %lld bytes of memory",
                     static_cast<long long>(size), static_cast<long long>(phys));
  void* p = nullptr;
  // A zero-sized block still gets its own address (one byte), so it can be told apart and freed.
  if (int rc = posix_memalign(&p, align, size == 0 ? 1 : size_t(size)); rc != 0 || p == nullptr)
    return error_set(errc::no_mem, "cannot allocate %lld bytes aligned to %zu: out of memory",
                     static_cast<long long>(size), align);
  block_registry& r = blocks();
  try {
    std::lock_guard lock(r.mu);
    r.live.emplace(p, size);
  } catch (...) {
    std::free(p);
    return error_set(errc::no_mem, "out of memory recording the block");
  }
  *out = p;
  return errc::success;
}

errc mem_free(void* base) {
  if (base == nullptr) return errc::success;
  block_registry& r = blocks();
  {
    std::lock_guard lock(r.mu);
    auto it = r.live.find(base);
    if (it == r.live.end()) {
      // Say whether the address falls inside a live block (a common mistake) or nowhere.
      for (const auto& [start, size] : r.live) {
        auto* s = static_cast<char*>(start);
        if (static_cast<char*>(base) > s && static_cast<char*>(base) < s + size)
          return error_set(errc::base, "address %p points %td bytes inside the block of %lld bytes at %p: pass the "
                           "address MPI_Alloc_mem returned", base, static_cast<char*>(base) - s,
                           static_cast<long long>(size), start);
      }
      return error_set(errc::base, "address %p was not returned by MPI_Alloc_mem, or was already freed", base);
    }
    r.live.erase(it);
  }
  std::free(base);
  return errc::success;
}

size_t mem_live_blocks() {
  block_registry& r = blocks();
  std::lock_guard lock(r.mu);
  return r.live.size();
}

}  // namespace baton::core
