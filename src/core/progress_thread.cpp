// The optional progress thread (BATON_ASYNC_PROGRESS=1).
//
// It drives the progress engine in the background so that communication proceeds while the
// application computes or waits on something else (a GPU, a file, a sleep). Three states:
//
// - polling: it polls under the engine lock and yields the core between polls while anything
//   moved in the last `yield_ns` (1 ms, BATON_YIELD_US). It does not sleep between operations
//   that follow each other closely: waking a sleeping thread costs tens of microseconds here,
//   longer than a whole 64 KiB collective, so a thread that slept after each operation would
//   start the next one too late to hide it behind a short wait.
// - deferring: while an application thread waits inside MPI (progress_wait), that thread drives
//   progress and this one sleeps on a private futex word, in naps of defer_check_ns (1 ms). It
//   keeps napping while the application keeps calling MPI (progress_app_activity moved during
//   the nap): such an application drives MPI itself, and waking the thread whenever a wait ended
//   or a call started work (a system call, then a fourth runnable thread on two cores) made
//   8-byte collectives take 1.5-80 us instead of 0.5 in about half the launches. It comes back
//   after a nap in which the application made no call (small work it left in flight then
//   moves within a millisecond), or at once for urgent new work: an operation large enough to
//   hand over (progress_new_work's `urgent`, core::thread_work_min_bytes).
// - asleep: nothing moved for `yield_ns`: it sleeps on the rank's doorbell, which other ranks
//   ring when they write to this rank and local calls ring when they start new work.
//
// Starting work rings only a thread that sleeps (progress_new_work), so a start costs no system
// call while the thread is polling.
#include <pthread.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "core/futex.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"

namespace baton::core {

namespace {
std::thread* g_thread = nullptr;
bool g_active = false;
std::atomic<bool> g_stop{false};
// pt_running: polling or deferring (awake); pt_doorbell: asleep on the doorbell; pt_deferred:
// asleep on g_defer_word until the application's waiters leave.
enum : int { pt_running = 0, pt_doorbell = 1, pt_deferred = 2 };
std::atomic<int> g_state{pt_running};
std::atomic<uint32_t> g_defer_word{0};
constexpr long safety_sleep_ns = 50000000;  // 50 ms: the futex timeouts are only a safety net
constexpr long defer_check_ns = 1000000;    // 1 ms: a deferring thread looks again this often

void wake_deferred() {
  g_defer_word.fetch_add(1, std::memory_order_seq_cst);
  futex_wake(&g_defer_word);
}

// An application thread waits inside MPI: stay off the engine until it leaves. Called without
// the engine lock. It sleeps at once rather than yielding: a thread that stays runnable looks
// like load, and with two ranks on two cores the scheduler may then pair the two waiting
// application threads on one core (measured: a 64 KiB allreduce 17 -> 67 us).
//
// It goes on deferring, once no thread waits any more, while the application keeps calling MPI
// (progress_app_activity moved during the last defer_check_ns): an application that calls MPI
// that often drives it itself, and a fourth runnable thread on two cores only gets in its way.
// A ring of the deferral word (urgent new work, MPI_Finalize) ends it as soon as nobody waits.
void defer() {
  while (!g_stop.load(std::memory_order_relaxed)) {
    const uint32_t seen = progress_app_activity().load(std::memory_order_relaxed);
    const uint32_t token = g_defer_word.load(std::memory_order_seq_cst);
    g_state.store(pt_deferred, std::memory_order_seq_cst);
    // Dekker with progress_thread_wake() and progress_thread_stop(): either they see pt_deferred
    // and ring, or the token has moved and the wait returns at once.
    if (!g_stop.load(std::memory_order_seq_cst)) futex_wait(&g_defer_word, token, defer_check_ns);
    g_state.store(pt_running, std::memory_order_seq_cst);
    const bool rung = g_defer_word.load(std::memory_order_seq_cst) != token;
    if (progress_waiters().load(std::memory_order_seq_cst) == 0 &&
        (rung || progress_app_activity().load(std::memory_order_relaxed) == seen))
      return;
  }
}

// The engine lock, for the progress thread: taken only when free and nobody else wants it
// (application threads spin for it, src/core/progress.cpp), so the thread never delays an
// application call and never blocks on the lock.
bool try_engine() {
  if (rt().engine_contenders.load(std::memory_order_relaxed) > 0) return false;
  if (!rt().engine_mutex.try_lock()) return false;
  engine_guard::held() = true;
  return true;
}
void release_engine() {
  engine_guard::held() = false;
  rt().engine_mutex.unlock();
}

// The thread holds the engine lock only for single polls; it checks for waiting application
// threads before each, without the lock.
void loop() {
  pthread_setname_np(pthread_self(), "baton-progress");
  const backoff_policy& b = progress_backoff();
  uint64_t last_moved = progress_now_ns();
  while (!g_stop.load(std::memory_order_relaxed)) {
    if (progress_waiters().load(std::memory_order_relaxed) > 0) {
      defer();
      last_moved = progress_now_ns();
      continue;
    }
    if (!try_engine()) {
      sched_yield();
      continue;
    }
    const bool moved = progress_poll();
    release_engine();
    if (moved) {
      last_moved = progress_now_ns();
      continue;
    }
    if (progress_now_ns() - last_moved < b.yield_ns) {
      sched_yield();
      continue;
    }
    // Nothing moved for a while: sleep on the doorbell (armed first, then one more poll, so a
    // doorbell rung meanwhile is not missed).
    if (!try_engine()) continue;
    g_state.store(pt_doorbell, std::memory_order_seq_cst);
    const uint32_t token = progress_arm();
    const bool late = progress_waiters().load(std::memory_order_relaxed) > 0 || progress_poll();
    release_engine();
    // A source nobody rings for (a CUDA stream's counter) is polled every unbelled_sleep_ns, going
    // straight back to sleep when a poll finds nothing (no yield phase between the sleeps).
    const bool unbelled = progress_unbelled().load(std::memory_order_relaxed) > 0;
    if (!late && !g_stop.load(std::memory_order_relaxed))
      progress_sleep(token, unbelled ? unbelled_sleep_ns : safety_sleep_ns);
    progress_disarm();
    g_state.store(pt_running, std::memory_order_seq_cst);
    if (!unbelled) last_moved = progress_now_ns();
  }
}
}  // namespace

bool progress_thread_wanted() {
  const char* v = std::getenv("BATON_ASYNC_PROGRESS");
  return v && *v && std::strcmp(v, "0") != 0;
}

bool progress_thread_active() { return g_active; }

void progress_thread_wake(bool urgent) {
  switch (g_state.load(std::memory_order_seq_cst)) {
    case pt_doorbell:
      progress_kick();
      break;
    case pt_deferred:
      if (urgent) wake_deferred();
      break;
    default:
      break;
  }
}

void progress_waiter_leave() {
  // No wake-up here: a deferred thread comes back by itself once the application stops calling
  // MPI (defer_check_ns), or for urgent new work.
  progress_waiters().fetch_sub(1, std::memory_order_seq_cst);
}

void progress_thread_start() {
  if (g_thread) return;
  g_stop.store(false);
  g_state.store(pt_running);
  g_active = true;
  g_thread = new std::thread(loop);
}

void progress_thread_stop() {
  if (!g_thread) return;
  g_stop.store(true, std::memory_order_seq_cst);
  g_active = false;
  // If it is asleep it is armed, so the kick reaches it; if it is about to sleep, the kick moves
  // the doorbell past its token and its sleep returns at once. Likewise for the deferred word.
  progress_kick();
  wake_deferred();
  g_thread->join();
  delete g_thread;
  g_thread = nullptr;
}

}  // namespace baton::core
