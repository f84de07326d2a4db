// Byte copies for the transports' data paths.
//
// glibc's memcpy uses `rep movsb` for mid-size copies on CPUs that advertise fast string moves;
// on AMD Zen under KVM (these machines) that path runs at about 2 GB/s instead of 30+ when the
// destination is 16 but not 64-byte aligned — which is where malloc'd buffers and ring payloads
// land. copy_bytes() uses an AVX2 loop with aligned stores for anything past a few hundred bytes
// and plain memcpy below that.
#pragma once

#include <cstddef>
#include <cstring>

namespace baton::core {

void copy_bytes_large(void* dst, const void* src, size_t n) noexcept;

inline void copy_bytes(void* dst, const void* src, size_t n) noexcept {
  if (n <= 256) {
    std::memcpy(dst, src, n);
    return;
  }
  copy_bytes_large(dst, src, n);
}

}  // namespace baton::core
