// The optional progress thread (BATON_ASYNC_PROGRESS=1).
//
// It drives the progress engine in the background so that communication proceeds while the
// application computes or waits on something else. It never spins for long: when a poll finds
// nothing to do it sleeps on the doorbell, which other ranks ring when they write to this rank
// and local calls ring (progress_kick) when they start new work. While an application thread is
// itself waiting inside MPI, that thread drives progress and this one stays asleep, so latency-
// bound operations don't pay for a second poller.
#include <pthread.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "core/progress.hpp"
#include "core/runtime.hpp"

namespace baton::core {

namespace {
std::thread* g_thread = nullptr;
bool g_active = false;
std::atomic<bool> g_stop{false};

void loop() {
  pthread_setname_np(pthread_self(), "baton-progress");
  engine_guard g;
  int idle = 0;
  uint64_t idle_since = 0;  // when the polls stopped finding work (unbelled sources only)
  while (!g_stop.load(std::memory_order_relaxed)) {
    const bool unbelled = progress_unbelled().load(std::memory_order_relaxed) > 0;
    if (progress_waiters().load(std::memory_order_relaxed) == 0) {
      if (progress_poll()) {
        idle = 0;
        idle_since = 0;
        continue;
      }
      if (unbelled && idle_since == 0) idle_since = progress_now_ns();
      // Work in flight: keep polling, yielding the core to the application between polls. A
      // source nobody rings for (a CUDA stream's counter) gets the same for the waiting policy's
      // yield time after the last progress, then short sleeps (below).
      if (++idle < 64 || progress_inflight().load(std::memory_order_relaxed) > 0 ||
          (unbelled && progress_now_ns() - idle_since < progress_backoff().yield_ns)) {
        g.unlock();
        sched_yield();
        g.lock();
        continue;
      }
    }
    idle = 0;
    uint32_t token = progress_arm();
    bool late = progress_waiters().load(std::memory_order_relaxed) == 0 && progress_poll();
    if (!late && !g_stop.load(std::memory_order_relaxed)) {
      g.unlock();
      // 50 ms safety net, the doorbell wakes it; short sleeps while an unbelled source waits.
      progress_sleep(token, unbelled ? unbelled_sleep_ns : 50000000);
      g.lock();
    }
    progress_disarm();
  }
}
}  // namespace

bool progress_thread_wanted() {
  const char* v = std::getenv("BATON_ASYNC_PROGRESS");
  return v && *v && std::strcmp(v, "0") != 0;
}

bool progress_thread_active() { return g_active; }

void progress_thread_start() {
  if (g_thread) return;
  g_stop.store(false);
  g_active = true;
  g_thread = new std::thread(loop);
}

void progress_thread_stop() {
  if (!g_thread) return;
  g_stop.store(true);
  g_active = false;
  // If it is asleep it is armed, so the kick reaches it; if it is about to sleep, the kick moves
  // the doorbell past its token and its sleep returns at once.
  progress_kick();
  g_thread->join();
  delete g_thread;
  g_thread = nullptr;
}

}  // namespace baton::core
