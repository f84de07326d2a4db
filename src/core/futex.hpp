// futex wait/wake on a 32-bit word (process-private or in shared memory), and a full fence.
#pragma once

#include <atomic>
#include <cstdint>

namespace baton::core {

void futex_wake(std::atomic<uint32_t>* word);
// Sleeps while *word == expected, at most timeout_ns (or until woken).
void futex_wait(std::atomic<uint32_t>* word, uint32_t expected, long timeout_ns);

// Full fence, cheaper than mfence on x86.
inline void full_fence() {
#if defined(__x86_64__)
  asm volatile("lock; orl $0, (%%rsp)" ::: "memory", "cc");
#else
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

}  // namespace baton::core
