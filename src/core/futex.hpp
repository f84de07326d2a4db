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

// Asymmetric fence for the sleep/wake handshake (a producer publishes, then checks whether the
// consumer sleeps; a consumer announces its sleep, then checks once more for work). Each side
// needs a store-load fence between its store and its load. Producers publish on every message and
// consumers go to sleep rarely, so when the kernel offers membarrier(GLOBAL_EXPEDITED) the
// consumer pays for both: it forces a full barrier on every CPU running a registered process, and
// the producer's fence becomes a compiler barrier. On only when every process that may produce
// for this one registered (src/p2p/engine.cpp decides for the ranks of one host after its barrier).
inline bool asym_fence_on = false;
// Registers this process for membarrier(GLOBAL_EXPEDITED); false when the kernel or the sandbox
// refuses it, or BATON_ASYM_FENCE=0.
bool asym_fence_register();
inline void producer_fence() {
  if (asym_fence_on)
    asm volatile("" ::: "memory");
  else
    full_fence();
}
// The consumer's side, between announcing its sleep and its last check for work.
void sleeper_fence();

}  // namespace baton::core
