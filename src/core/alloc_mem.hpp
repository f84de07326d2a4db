// Memory handed out by MPI_Alloc_mem and given back by MPI_Free_mem (MPI-4.1 section 8.2).
//
// Blocks come from the C heap (posix_memalign), aligned to a cache line (64 bytes), or to a page
// for blocks of a page or more, or to the caller's larger alignment (the mpi_minimum_memory_alignment
// info key). Every live block is recorded, so that freeing an address that is not one (never
// allocated, already freed, or pointing inside a block) is detected and refused. A size of 0 gives
// a distinct, freeable address of a zero-sized block. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/error.hpp"

namespace baton::core {

constexpr size_t mem_cache_line = 64;

// The alignment used for a block of `size` bytes when the caller asks for nothing larger.
size_t mem_default_alignment(int64_t size);

// errc::arg for a negative size or an alignment that is not a power of two; errc::no_mem when the
// block cannot be had (more than the node's physical memory, or the allocator fails).
[[nodiscard]] errc mem_alloc(int64_t size, size_t min_alignment, void** out);

// errc::base when `base` is not the start of a live block (nullptr is accepted: nothing to do).
[[nodiscard]] errc mem_free(void* base);

// Number of live blocks (for tests).
size_t mem_live_blocks();

}  // namespace baton::core
