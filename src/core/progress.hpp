// The progress engine: one per process. Every MPI call that may wait or test drives it.
//
// Subsystems register a poll function (point-to-point transports now, collective schedules
// later); progress_poll() runs each once. A poll's work scales with the events that happened.
// Waiting spins briefly, then yields, then sleeps on the transport's doorbell (futex), so ranks
// that outnumber cores don't burn them.
#pragma once

#include <sched.h>

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

struct backoff_policy {
  int spin_polls = 2000;   // polls before the first yield
  int yield_polls = 200;   // polls with sched_yield before sleeping
  long sleep_ns = 2000000; // futex timeout when asleep (the doorbell normally wakes first)
};
backoff_policy& progress_backoff();

// Waits until done() holds, driving progress. Expects the engine lock held (guard) and releases
// it while yielding or sleeping.
template <class Done>
void progress_wait(engine_guard& guard, Done done) {
  const backoff_policy& b = progress_backoff();
  int idle = 0;
  for (;;) {
    if (done()) return;
    bool moved = progress_poll();
    if (done()) return;
    if (moved) {
      idle = 0;
      continue;
    }
    ++idle;
    if (idle < b.spin_polls) {
      if (rt().threaded && (idle & 63) == 0) {
        guard.unlock();
        guard.lock();
      }
      __builtin_ia32_pause();
      continue;
    }
    if (idle < b.spin_polls + b.yield_polls) {
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
    idle = b.spin_polls;  // after a sleep, yield a little before sleeping again
  }
}

}  // namespace baton::core
