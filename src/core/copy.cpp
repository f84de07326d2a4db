#include "core/copy.hpp"

#include <sys/uio.h>

#include <cstdint>
#include <cstdlib>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace baton::core {

namespace {
#if defined(__x86_64__)
__attribute__((target("avx2"))) void copy_avx2(void* dst, const void* src, size_t n) noexcept {
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  // Align the destination to 32 bytes with one unaligned store, then stream aligned stores.
  size_t head = (32 - (reinterpret_cast<uintptr_t>(d) & 31)) & 31;
  if (head) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s)));
    d += head;
    s += head;
    n -= head;
  }
  while (n >= 128) {
    __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s));
    __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 32));
    __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 64));
    __m256i e = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 96));
    _mm256_store_si256(reinterpret_cast<__m256i*>(d), a);
    _mm256_store_si256(reinterpret_cast<__m256i*>(d + 32), b);
    _mm256_store_si256(reinterpret_cast<__m256i*>(d + 64), c);
    _mm256_store_si256(reinterpret_cast<__m256i*>(d + 96), e);
    d += 128;
    s += 128;
    n -= 128;
  }
  while (n >= 32) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(d), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s)));
    d += 32;
    s += 32;
    n -= 32;
  }
  if (n) std::memcpy(d, s, n);
}

using copy_fn = void (*)(void*, const void*, size_t) noexcept;
copy_fn pick() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) return copy_avx2;
  return [](void* d, const void* s, size_t n) noexcept { std::memcpy(d, s, n); };
}
const copy_fn g_copy = pick();
#endif
}  // namespace

namespace {
using vm_rw = ssize_t (*)(pid_t, const struct iovec*, unsigned long, const struct iovec*, unsigned long,
                          unsigned long);
bool cma_transfer(vm_rw fn, int pid, uint64_t addr, char* mine, uint64_t len) noexcept {
  uint64_t got = 0;
  while (got < len) {
    struct iovec local {
      mine + got, size_t(len - got)
    };
    struct iovec remote {
      reinterpret_cast<char*>(addr) + got, size_t(len - got)
    };
    const ssize_t n = fn(pid_t(pid), &local, 1, &remote, 1, 0);
    if (n <= 0) return false;
    got += uint64_t(n);
  }
  return true;
}
}  // namespace

bool cma_read(int pid, uint64_t addr, void* dst, uint64_t len) noexcept {
  return cma_transfer(::process_vm_readv, pid, addr, static_cast<char*>(dst), len);
}

bool cma_write(int pid, uint64_t addr, const void* src, uint64_t len) noexcept {
  return cma_transfer(::process_vm_writev, pid, addr, const_cast<char*>(static_cast<const char*>(src)), len);
}

bool cma_wanted() noexcept {
  static const bool on = [] {
    const char* v = std::getenv("BATON_SHM_CMA");
    return !(v && std::strcmp(v, "0") == 0);
  }();
  return on;
}

void copy_bytes_large(void* dst, const void* src, size_t n) noexcept {
#if defined(__x86_64__)
  g_copy(dst, src, n);
#else
  std::memcpy(dst, src, n);
#endif
}

}  // namespace baton::core
