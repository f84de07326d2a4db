#include "core/progress.hpp"

#include "core/futex.hpp"
#include "core/stall.hpp"

#include <time.h>

#include <algorithm>
#include <cstdlib>
#include <atomic>
#include <vector>

namespace baton::core {

namespace {
std::vector<poll_fn>& pollers() {
  static std::vector<poll_fn> v;
  return v;
}
backoff_policy g_backoff;
std::atomic<uint32_t> g_local_bell{0};
std::atomic<uint32_t> g_local_sleepers{0};
std::atomic<uint32_t>* g_bell = &g_local_bell;
std::atomic<uint32_t>* g_sleepers = &g_local_sleepers;
std::atomic<int> g_waiters{0};
std::atomic<bool (*)()> g_sleep_hook{nullptr};
}  // namespace

void progress_add_poller(poll_fn fn) {
  auto& v = pollers();
  if (std::find(v.begin(), v.end(), fn) == v.end()) v.push_back(fn);
}

void progress_remove_poller(poll_fn fn) {
  auto& v = pollers();
  v.erase(std::remove(v.begin(), v.end(), fn), v.end());
}

// By index, not by iterator: a poller may add or remove pollers while it runs (a buffered-send
// flush poller removes itself once its flushes are done), which would invalidate an iterator.
bool progress_poll() {
  bool moved = false;
  std::vector<poll_fn>& v = pollers();
  for (size_t i = 0; i < v.size(); ++i) moved |= v[i]();
  return moved;
}

namespace {
uint32_t g_idle_tests = 0;          // test polls that moved nothing (engine lock held)
uint64_t g_idle_tests_checked = 0;  // the last check, or the first idle clock read (0: progress since)
}  // namespace

bool progress_poll_test() {
  if (progress_poll()) {
    g_idle_tests_checked = 0;
    return true;
  }
  if ((++g_idle_tests & 63) != 0) return false;
  const uint64_t now = progress_now_ns();
  if (g_idle_tests_checked == 0) {
    g_idle_tests_checked = now;
    return false;
  }
  if (now - g_idle_tests_checked < stall_check_ns) return false;
  g_idle_tests_checked = now;
  return stall_check();
}

void progress_set_doorbell(std::atomic<uint32_t>* bell, std::atomic<uint32_t>* sleepers) {
  g_bell = bell ? bell : &g_local_bell;
  g_sleepers = sleepers ? sleepers : &g_local_sleepers;
}

uint32_t progress_arm() {
  g_sleepers->fetch_add(1, std::memory_order_relaxed);
  uint32_t token = g_bell->load(std::memory_order_acquire);
  sleeper_fence();  // pairs with the producers' producer_fence() (core/futex.hpp)
  return token;
}

void progress_set_sleep_hook(bool (*hook)()) { g_sleep_hook.store(hook, std::memory_order_release); }

namespace {
// MPI_THREAD_MULTIPLE: several application threads may wait at once.
bool app_threads() { return rt().threaded && rt().level == thread_level::multiple; }

share_state (*g_share_check)() = nullptr;  // set and cleared while no other thread runs (init, finalize)

// Moves the calling thread off its core: its affinity without that core, which makes the kernel
// migrate it, then the affinity it had (it stays where it went). Nothing when it may use one core.
void move_off_core() {
  static thread_local uint64_t last = 0;
  const uint64_t now = progress_now_ns();
  if (last != 0 && now - last < 20000000) return;
  last = now;
  cpu_set_t mine;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0 || CPU_COUNT(&mine) < 2) return;
  const int here = sched_getcpu();
  if (here < 0 || !CPU_ISSET(here, &mine)) return;
  cpu_set_t others = mine;
  CPU_CLR(here, &others);
  if (sched_setaffinity(0, sizeof others, &others) == 0) (void)sched_setaffinity(0, sizeof mine, &mine);
}
}  // namespace

void progress_set_share_check(share_state (*check)()) { g_share_check = check; }

share_state progress_core_shared() { return g_share_check ? g_share_check() : share_none; }

bool progress_waiters_counted() {
  return progress_thread_active() || app_threads();
}

bool progress_give_way() {
  if (const share_state s = progress_core_shared(); s != share_none) {
    if (s == share_move && g_backoff.spin_ns > 0) move_off_core();
    return true;
  }
  return app_threads() && g_waiters.load(std::memory_order_relaxed) > 1;
}

void progress_sleep(uint32_t token, long timeout_ns) {
  if (auto hook = g_sleep_hook.load(std::memory_order_acquire); hook && !hook()) return;
  futex_wait(g_bell, token, timeout_ns);
}

void progress_disarm() { g_sleepers->fetch_sub(1, std::memory_order_relaxed); }

void progress_kick() {
  producer_fence();
  if (g_sleepers->load(std::memory_order_relaxed)) {
    g_bell->fetch_add(1, std::memory_order_release);
    futex_wake(g_bell);
  }
}

std::atomic<int>& progress_waiters() { return g_waiters; }
backoff_policy& progress_backoff() { return g_backoff; }

void engine_guard::acquire_contended() {
  std::mutex& m = rt().engine_mutex;
  std::atomic<int>& contenders = rt().engine_contenders;
  contenders.fetch_add(1, std::memory_order_relaxed);
  // Spin briefly (not at all when this host's ranks outnumber its cores), then yield (the holder
  // may be the progress thread, preempted on this very core) for as long as waiting for progress
  // would (BATON_YIELD_US), then block. Blocking early costs more than it saves: the progress
  // thread may hold the lock for one poll that copies and reduces 64 KiB (tens of microseconds
  // on a slow core), and a thread blocked in the kernel wakes tens of microseconds after the
  // release.
  const unsigned spins = g_backoff.spin_ns > 0 ? 64 : 0;
  const uint64_t start = progress_now_ns();
  for (unsigned i = 1;; ++i) {
    if (m.try_lock()) break;
    // The progress thread (SCHED_IDLE) holds it: if it was preempted (on this core, or on
    // another by a thread there), it runs again only where a core goes idle, and a yield hands
    // it none. Block after a short spin (at once when it keeps to this very core).
    const int holder = progress_engine_holder_cpu().load(std::memory_order_relaxed);
    if (holder != progress_no_holder && (i > 64 || holder == sched_getcpu())) {
      m.lock();
      break;
    }
    if (i <= spins)
      __builtin_ia32_pause();
    else
      sched_yield();
    if ((i & 31) == 0 && progress_now_ns() - start > g_backoff.yield_ns) {
      m.lock();
      break;
    }
  }
  contenders.fetch_sub(1, std::memory_order_relaxed);
}

void progress_set_local_ranks(int nlocal) {
  if (std::getenv("BATON_SPIN_US")) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  const int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
  // More ranks than cores: a waiting rank likely holds the core its peer needs, so it yields at
  // once instead of spinning first (measured here at 4 ranks on 2 cores: an 8-byte allreduce
  // 66-80 us -> 5 us).
  if (nlocal > cpus) g_backoff.spin_ns = 0;
}

namespace {
// BATON_SPIN_US / BATON_YIELD_US tune how long a waiting rank spins and yields before sleeping.
struct backoff_from_env {
  backoff_from_env() {
    if (const char* v = std::getenv("BATON_SPIN_US")) g_backoff.spin_ns = std::strtoull(v, nullptr, 10) * 1000;
    if (const char* v = std::getenv("BATON_YIELD_US")) g_backoff.yield_ns = std::strtoull(v, nullptr, 10) * 1000;
  }
} g_backoff_env;
}  // namespace

}  // namespace baton::core
