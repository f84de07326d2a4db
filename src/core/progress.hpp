// The progress engine: one per process. Every MPI call that may wait or test drives it.
//
// Subsystems register a poll function (point-to-point transports now, collective schedules
// later); progress_poll() runs each once. A poll's work scales with the events that happened.
// Waiting spins briefly, then yields, then sleeps on the transport's doorbell (futex), so ranks
// that outnumber cores don't burn them.
#pragma once

#include <sched.h>
#include <time.h>

#include <cstdint>

#include "core/runtime.hpp"

namespace baton::core {

using poll_fn = bool (*)();

void progress_add_poller(poll_fn fn);
void progress_remove_poller(poll_fn fn);
// Runs every registered poller once; true if any made progress.
bool progress_poll();

// The doorbell a sleeping rank waits on. arm() announces the sleep and returns a token; sleep()
// blocks until the doorbell rings or the timeout passes; disarm() ends the announcement.
struct sleeper {
  uint32_t (*arm)() = nullptr;
  void (*sleep)(uint32_t token, long timeout_ns) = nullptr;
  void (*disarm)() = nullptr;
};
void progress_set_sleeper(const sleeper& s);
const sleeper& progress_sleeper();

// Wake any thread of this process sleeping in progress_wait (threaded mode).
void progress_notify_local();

// Waiting is measured in time, not polls: a poll costs anything from 10 ns to microseconds.
struct backoff_policy {
  uint64_t spin_ns = 50000;     // pure polling (with pause) for this long after the last progress
  uint64_t yield_ns = 1000000;  // then polling with sched_yield until this long
  long sleep_ns = 10000000;     // then sleeping on the doorbell (futex timeout as a safety net)
};
backoff_policy& progress_backoff();

inline uint64_t progress_now_ns() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

// Waits until done() holds, driving progress. Expects the engine lock held (guard) and releases
// it while yielding or sleeping.
template <class Done>
void progress_wait(engine_guard& guard, Done done) {
  const backoff_policy& b = progress_backoff();
  uint64_t idle_since = 0;  // 0: progress was made on the last poll
  unsigned polls = 0;
  for (;;) {
    if (done()) return;
    bool moved = progress_poll();
    if (done()) return;
    if (moved) {
      idle_since = 0;
      continue;
    }
    // Read the clock only every 32 idle polls.
    if (idle_since == 0) {
      idle_since = progress_now_ns();
      polls = 0;
    }
    if ((++polls & 31) != 0) {
      __builtin_ia32_pause();
      continue;
    }
    const uint64_t idle = progress_now_ns() - idle_since;
    if (idle < b.spin_ns) {
      if (rt().threaded) {
        guard.unlock();
        __builtin_ia32_pause();
        guard.lock();
      }
      continue;
    }
    if (idle < b.yield_ns) {
      guard.unlock();
      sched_yield();
      guard.lock();
      continue;
    }
    const sleeper& s = progress_sleeper();
    if (!s.arm) {
      guard.unlock();
      sched_yield();
      guard.lock();
      continue;
    }
    uint32_t token = s.arm();
    bool late = progress_poll() || done();
    if (!late) {
      guard.unlock();
      s.sleep(token, b.sleep_ns);
      guard.lock();
    }
    s.disarm();
    // After a sleep, go back to yielding (not spinning) before sleeping again.
    idle_since = progress_now_ns() - b.spin_ns;
  }
}

}  // namespace baton::core
