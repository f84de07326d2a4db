// The progress engine: one per process. Every MPI call that may wait or test drives it.
//
// Subsystems register a poll function (point-to-point transports now, collective schedules
// later); progress_poll() runs each once. A poll's work scales with the events that happened.
// Waiting spins briefly, then yields, then sleeps on the transport's doorbell (futex), so ranks
// that outnumber cores don't burn them.
#pragma once

#include <sched.h>
#include <time.h>

#include <atomic>
#include <cstdint>

#include "core/runtime.hpp"
#include "core/stall.hpp"

namespace baton::core {

using poll_fn = bool (*)();

void progress_add_poller(poll_fn fn);
void progress_remove_poller(poll_fn fn);
// Runs every registered poller once; true if any made progress.
bool progress_poll();
// progress_poll for the test calls (MPI_Test and its kin: the engine lock held): a program that
// tests in a loop instead of waiting also gets the stall checks (core/stall.hpp) that a sleeping
// wait runs, once its tests have moved nothing for stall_check_ns, then every stall_check_ns
// (the clock is read every 64 idle tests). A check that failed something counts as progress.
bool progress_poll_test();

// The doorbell a sleeping thread of this process waits on: a futex word plus a count of sleepers.
// By default both are process-local; the shared-memory transport points them into the shared
// segment so that other ranks ring them when they write to this rank. A thread about to sleep
// arms (counts itself, fences), polls once more, then sleeps; whoever publishes work for it
// fences and rings only when someone sleeps.
void progress_set_doorbell(std::atomic<uint32_t>* bell, std::atomic<uint32_t>* sleepers);
uint32_t progress_arm();
void progress_sleep(uint32_t token, long timeout_ns);
// A transport with its own wakeup (UCX's event fd) arms it here before a thread sleeps; the hook
// runs without the engine lock and returns false when there is work already (then no sleep).
void progress_set_sleep_hook(bool (*hook)());
// Whether a rank this one may be waiting for runs on this thread's core (the shared-memory
// transport's check: each rank of the host notes its core when it asks, and looks for others
// noted there): share_none, share_stay (shared with ranks of higher index on the host), or
// share_move (with one of lower index: this rank is the one to move, see progress_give_way).
// share_none without a check.
enum share_state : int { share_none = 0, share_stay = 1, share_move = 2 };
void progress_set_share_check(share_state (*check)());
share_state progress_core_shared();
// Whether a spinning wait should yield its core now (out of line: only waits past give_way_ns ask):
// - another rank of the host is noted on this core (progress_core_shared): two ranks left on one
//   core beside a busy process spun 50 us per hand-over, and their 8-byte message rate fell from
//   about 15 to 0.3 million/s in four launches of six (3.6 with the yield alone). Where the host
//   has a core per rank (spinning is on), the rank of higher index also moves off the core (at
//   most every 20 ms: its affinity without this core, then back), so that the kernel, which had
//   balanced the two half-idle ranks against the busy process, places them apart again (14-15 in
//   six launches of six);
// - under MPI_THREAD_MULTIPLE, another application thread of this rank waits too: with two threads
//   per rank on two cores (bench/pt2pt_mt_rate.c) the rate fell to about 1 million messages/s in
//   one launch of four or five on an idle machine (now 8.0-8.9).
bool progress_give_way();
void progress_disarm();
// Wakes the threads of this process asleep on the doorbell (new local work for the progress
// thread, or a completion another thread waits for).
void progress_kick();

// The optional progress thread (BATON_ASYNC_PROGRESS=1): started at MPI_Init, stopped at
// MPI_Finalize (src/core/progress_thread.cpp). Threads waiting in MPI count themselves so the
// progress thread stays out of their way.
bool progress_thread_wanted();
bool progress_thread_active();
// Wakes the progress thread if it sleeps on the doorbell. No system call while it is awake.
void progress_thread_wake();
// Nonblocking collectives whose steps move less than this start in the application's call even
// with the progress thread on: handing them over would cost more than the whole operation.
constexpr uint64_t thread_work_min_bytes = 4096;
// Whether this host's ranks are at least as many as the cores this process may use (set when
// the progress thread starts): then the progress thread keeps to its application thread's core.
bool progress_no_spare_core();
// The core an application thread last started work on (-1: not known), which the progress
// thread follows when there is no spare core.
inline std::atomic<int>& progress_app_cpu() {
  static std::atomic<int> c{-1};
  return c;
}
// The core the progress thread keeps to while it holds the engine lock (-1: any core), else
// progress_no_holder. An application thread on that core that finds the lock taken has
// preempted the holder, and blocks at once rather than spinning (src/core/progress.cpp).
constexpr int progress_no_holder = -2;
inline std::atomic<int>& progress_engine_holder_cpu() {
  static std::atomic<int> c{progress_no_holder};
  return c;
}
// New work was started by an application thread: wake the progress thread if it sleeps, and
// tell it the core this thread runs on (sched_getcpu reads the rseq area: no system call).
// When this thread has moved to another core, it moves the progress thread there itself
// (progress_thread_follow): the progress thread may be unable to run where it is, on a core now
// kept busy by another process, and so could never move itself.
void progress_thread_follow(int cpu);
inline void progress_new_work() {
  if (!progress_thread_active()) return;
  if (progress_no_spare_core()) {
    const int cpu = sched_getcpu();
    std::atomic<int>& app = progress_app_cpu();
    if (app.load(std::memory_order_relaxed) != cpu) {
      app.store(cpu, std::memory_order_relaxed);
      progress_thread_follow(cpu);
    }
  }
  progress_thread_wake();
}
// BATON_PROGRESS_CORE, checked at start-up (errc::arg with a message when it is malformed or names
// a core this process may not use): unset or "idle", the progress thread runs at SCHED_IDLE as
// described above; "auto", it gets a core of its own where this process's cores are at least two
// per rank of this host (the last ones: core list[count - 1 - host index]), else SCHED_IDLE;
// "c0,c1,...", core c[host index % count]. A thread with a core of its own runs at the normal
// policy, bound there, and polls between operations without yielding.
[[nodiscard]] errc progress_core_check();
// The core the progress thread has to itself (-1: none, the SCHED_IDLE design).
int progress_dedicated_core();
void progress_thread_start();
void progress_thread_stop();
// Application threads driving progress in progress_wait (not while they sleep there): the
// progress thread stays off the engine while there are any.
std::atomic<int>& progress_waiters();
// Whether waits count themselves in progress_waiters: with the progress thread, and under
// MPI_THREAD_MULTIPLE (progress_give_way reads the count).
bool progress_waiters_counted();
// Sources of work that nobody rings the doorbell for (the counters a CUDA stream writes for a
// CUDA queue): while non-zero, waiting threads and the progress thread never sleep longer than
// unbelled_sleep_ns between polls.
inline std::atomic<int>& progress_unbelled() {
  static std::atomic<int> n{0};
  return n;
}
constexpr long unbelled_sleep_ns = 20000;

// Waiting is measured in time, not polls: a poll costs anything from 10 ns to microseconds.
struct backoff_policy {
  uint64_t spin_ns = 50000;     // pure polling (with pause) for this long after the last progress
  uint64_t yield_ns = 1000000;  // then polling with sched_yield until this long
  long sleep_ns = 10000000;     // then sleeping on the doorbell (futex timeout as a safety net)
};
backoff_policy& progress_backoff();
// Spinning waits check from this long on whether they keep what they wait for off their core
// (progress_wait); shorter waits, a ping-pong's, never pay for the check.
constexpr uint64_t give_way_ns = 2000;
// Called at start-up with the number of ranks on this host: when they outnumber the cores this
// process may use, waiting skips the spinning phase (unless BATON_SPIN_US says otherwise).
void progress_set_local_ranks(int nlocal);

// A call that may not wait (a nonblocking start, an enqueue) but whose next move depends on a
// peer that is usually a few hundred cycles behind in a loop of small operations: tries `done`
// up to brief_polls times, a pause between tries, and says whether it held. Finishing within the
// call costs less than setting up what finishes later (a run and a request, queue records).
// Skipped when this host's ranks outnumber its cores (the peer may not be running).
constexpr int brief_polls = 8;
template <class Done>
bool poll_briefly(Done done) {
  if (progress_backoff().spin_ns == 0) return false;
  for (int i = 0; i < brief_polls; ++i) {
    __builtin_ia32_pause();
    if (done()) return true;
  }
  return false;
}

inline uint64_t progress_now_ns() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

// Waits until done() holds, driving progress. Expects the engine lock held (guard) and releases
// it while yielding or sleeping. Returns as soon as done() has returned true once: it is never
// called again after that (callers pass steps whose work happens inside the test).
template <class Done>
void progress_wait(engine_guard& guard, Done done) {
  const bool thread = progress_waiters_counted();
  if (done()) return;
  // Tell the progress thread (if any) that this thread polls, so it stays out of the way, and the
  // application's other threads that it waits here.
  struct waiter_count {
    bool on;
    explicit waiter_count(bool t) : on(t) {
      if (on) progress_waiters().fetch_add(1, std::memory_order_seq_cst);
    }
    ~waiter_count() {
      if (on) progress_waiters().fetch_sub(1, std::memory_order_seq_cst);
    }
  } counted(thread);
  const backoff_policy& b = progress_backoff();
  uint64_t idle_since = 0;  // 0: progress was made on the last poll
  uint64_t slept_since = 0;  // first wake-up from a sleep since the last progress (the watchdog)
  uint64_t checked_at = 0;   // the last stall check (core/stall.hpp)
  bool warned = false;
  unsigned polls = 0;
  for (;;) {
    if (done()) return;
    bool moved = progress_poll();
    if (done()) return;
    if (moved) {
      idle_since = 0;
      slept_since = 0;
      warned = false;
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
    // Spinning is for a peer that runs on another core: past give_way_ns, a wait that may keep
    // what it waits for off this very core yields instead (progress_give_way).
    if (idle < b.spin_ns && (idle < give_way_ns || !progress_give_way())) {
      // Let other threads at the lock every 32 idle polls.
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
    uint32_t token = progress_arm();
    // done() may have side effects (a collective's shared-memory step does its work in it and
    // then tells its peers it is finished), so once it has held it must not be called again.
    const bool moved_late = progress_poll();
    if (!moved_late && done()) {
      progress_disarm();
      return;
    }
    if (!moved_late) {
      guard.unlock();
      // Asleep, this thread drives nothing: the progress thread may poll meanwhile.
      if (thread) progress_waiters().fetch_sub(1, std::memory_order_seq_cst);
      progress_sleep(token, progress_unbelled().load(std::memory_order_relaxed) ? unbelled_sleep_ns : b.sleep_ns);
      if (thread) progress_waiters().fetch_add(1, std::memory_order_seq_cst);
      guard.lock();
    }
    progress_disarm();
    // After a sleep, go back to yielding (not spinning) before sleeping again.
    const uint64_t now = progress_now_ns();
    idle_since = now - b.spin_ns;
    // The stall watchdog (core/stall.hpp): asleep this long without progress, say on what.
    if (moved_late) {
      slept_since = 0;
      warned = false;
    } else if (slept_since == 0) {
      slept_since = now;
      checked_at = now;
    } else {
      if (now - checked_at >= stall_check_ns) {
        checked_at = now;
        if (stall_check()) continue;  // something was failed: poll (done() may hold now)
      }
      if (!warned && stall_warn_ns() != 0 && now - slept_since >= stall_warn_ns()) {
        warned = true;
        stall_report(now - slept_since);
      }
    }
  }
}

}  // namespace baton::core
