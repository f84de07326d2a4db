#include "core/futex.hpp"

#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <ctime>

namespace baton::core {

void futex_wake(std::atomic<uint32_t>* word) {
  // Not FUTEX_PRIVATE: the word may live in memory shared with other processes.
  ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE, 1 << 30, nullptr, nullptr, 0);
}

void futex_wait(std::atomic<uint32_t>* word, uint32_t expected, long timeout_ns) {
  struct timespec ts {
    timeout_ns / 1000000000L, timeout_ns % 1000000000L
  };
  ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT, expected, &ts, nullptr, 0);
}

bool asym_fence_register() {
  if (const char* v = std::getenv("BATON_ASYM_FENCE"); v && std::strcmp(v, "0") == 0) return false;
  const long cmds = ::syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0);
  if (cmds < 0 || !(cmds & MEMBARRIER_CMD_GLOBAL_EXPEDITED)) return false;
  return ::syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0) == 0;
}

void sleeper_fence() {
  if (asym_fence_on && ::syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0) == 0) return;
  full_fence();
}

}  // namespace baton::core
