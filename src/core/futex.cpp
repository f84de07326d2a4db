#include "core/futex.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

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

}  // namespace baton::core
