// Byte copies for the transports' data paths.
//
// glibc's memcpy uses `rep movsb` for mid-size copies on CPUs that advertise fast string moves;
// on AMD Zen under KVM (these machines) that path runs at about 2 GB/s instead of 30+ when the
// destination is 16 but not 64-byte aligned — which is where malloc'd buffers and ring payloads
// land. copy_bytes() uses an AVX2 loop with aligned stores for anything past a few hundred bytes
// and plain memcpy below that.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace baton::core {

void copy_bytes_large(void* dst, const void* src, size_t n) noexcept;

// Single copy between processes of one host (process_vm_readv, "CMA"): wanted unless
// BATON_SHM_CMA=0 (read once; give every rank the same value, since collectives select their
// algorithms by it). Where dirty cache lines move slowly between cores (the Zen 5 Firecracker
// machines: 1 MiB written by one rank and copied out by another costs ~600 us, a kernel copy
// from the peer's clean buffer ~60), reading the sender's buffer beats two copies through
// shared memory for every message past the eager limit.
bool cma_wanted() noexcept;
// Reads `len` bytes at `addr` in process `pid` into dst (process_vm_readv), or writes them from
// src (process_vm_writev), looping over short transfers; false when the kernel refuses.
bool cma_read(int pid, uint64_t addr, void* dst, uint64_t len) noexcept;
bool cma_write(int pid, uint64_t addr, const void* src, uint64_t len) noexcept;

inline void copy_bytes(void* dst, const void* src, size_t n) noexcept {
  if (n <= 256) {
    std::memcpy(dst, src, n);
    return;
  }
  copy_bytes_large(dst, src, n);
}

}  // namespace baton::core
