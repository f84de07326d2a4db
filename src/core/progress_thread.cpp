// The optional progress thread (BATON_ASYNC_PROGRESS=1).
//
// It drives the progress engine in the background so that communication proceeds while the
// application computes or waits on something else (a GPU, a file, a sleep). It runs under the
// SCHED_IDLE policy: the kernel gives it a core only when nothing else wants that core, so it
// never takes time from the application, and the moment the application sleeps or blocks (the
// wait this thread exists for) it is already runnable on that core, without a wake-up. Waking a
// sleeping thread costs tens of microseconds on these machines, longer than a whole 64 KiB
// collective; a context switch to a runnable one on the same core costs about two.
//
// Where the host has no spare core (its ranks at least as many as the cores), the thread keeps to
// the core its application thread last started work on (progress_app_cpu), so it is there when
// that thread sleeps, not on a core another rank's application is about to use. With a spare
// core it is left free to run there.
//
// Two states:
// - polling: it polls under the engine lock and relaxes between polls (a few pause instructions;
//   sched_yield if the kernel refused SCHED_IDLE) while anything moved in the last `yield_ns`
//   (1 ms, BATON_YIELD_US). While an application thread drives progress inside MPI (waits in
//   progress_wait, not asleep there) it stays off the engine and only relaxes: at SCHED_IDLE that
//   costs the application nothing, and the thread is ready when the wait ends.
// - asleep: nothing moved for `yield_ns`: it sleeps on the rank's doorbell, which other ranks
//   ring when they write to this rank and local calls ring when they start new work.
//
// Starting work rings only a thread that sleeps (progress_new_work), so a start costs no system
// call while the thread is polling.
//
// With a core of its own (BATON_PROGRESS_CORE: machines with spare cores), the thread runs at the
// normal policy, bound to that core, and relaxes between polls with pause instructions only: it
// progresses while the application computes, not just while it sleeps.
//
// BATON_PROGRESS_TRACE=<file prefix> records when the thread runs (state changes, the engine
// lock, its core) in a ring of the last 64K events, written to <prefix>.<pid> at MPI_Finalize.
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "core/futex.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"

namespace baton::core {

namespace {
std::thread* g_thread = nullptr;
bool g_active = false;
std::atomic<bool> g_stop{false};
bool g_no_spare_core = false;
// pt_running: polling (awake); pt_doorbell: asleep on the doorbell.
enum : int { pt_running = 0, pt_doorbell = 1 };
std::atomic<int> g_state{pt_running};
std::atomic<int> g_started{-1};  // -1 until progress_thread_start has set the thread up; then 1 with SCHED_IDLE
constexpr long safety_sleep_ns = 50000000;  // 50 ms: the futex timeouts are only a safety net
// The core the thread keeps to (-1: any), set by itself or by an application thread that moved
// (progress_thread_follow); the core it has to itself (BATON_PROGRESS_CORE), or -1.
std::atomic<int> g_pinned{-1};
int g_dedicated = -1;

// ---- BATON_PROGRESS_TRACE: when the thread runs ----
enum trace_event : uint8_t { ev_poll_moved, ev_poll_idle, ev_lock_busy, ev_app_waits, ev_sleep, ev_wake, ev_pin };
const char* const trace_names[] = {"poll_moved", "poll_idle", "lock_busy", "app_waits", "sleep", "wake", "pin"};
struct trace_rec {
  uint64_t ns;
  uint8_t ev;
  int16_t cpu;
};
constexpr size_t trace_cap = 1 << 16;
std::vector<trace_rec>* g_trace = nullptr;  // the thread's ring (only it writes; dumped after join)
size_t g_trace_n = 0;
trace_event g_trace_last = ev_pin;
void trace(trace_event ev) {
  if (!g_trace) return;
  // Runs of the same event collapse into their first record: the thread polls millions of times.
  if (ev == g_trace_last && ev != ev_pin) return;
  g_trace_last = ev;
  (*g_trace)[g_trace_n++ % trace_cap] = trace_rec{progress_now_ns(), uint8_t(ev), int16_t(sched_getcpu())};
}
void trace_dump() {
  const char* prefix = std::getenv("BATON_PROGRESS_TRACE");
  if (!g_trace || !prefix) return;
  const std::string path = std::string(prefix) + "." + std::to_string(getpid());
  if (FILE* f = std::fopen(path.c_str(), "w")) {
    const size_t n = std::min(g_trace_n, trace_cap);
    for (size_t i = g_trace_n - n; i < g_trace_n; ++i) {
      const trace_rec& r = (*g_trace)[i % trace_cap];
      std::fprintf(f, "%llu %s %d\n", static_cast<unsigned long long>(r.ns), trace_names[r.ev], r.cpu);
    }
    std::fclose(f);
  }
  delete g_trace;
  g_trace = nullptr;
  g_trace_n = 0;
}

// BATON_PROGRESS_CORE (see progress.hpp): the dedicated core for this rank, -1 for the SCHED_IDLE
// design, or an error.
errc choose_core(int* out) {
  *out = -1;
  const char* v = std::getenv("BATON_PROGRESS_CORE");
  if (!v || !*v || std::strcmp(v, "idle") == 0) return errc::success;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return errc::success;
  std::vector<int> mine;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) mine.push_back(c);
  const int ranks = rt().host_ranks, index = rt().host_index;
  if (std::strcmp(v, "auto") == 0) {
    if (int(mine.size()) >= 2 * ranks) *out = mine[mine.size() - 1 - size_t(index)];
    return errc::success;
  }
  std::vector<int> listed;
  for (const char* p = v; *p;) {
    char* end = nullptr;
    const long c = std::strtol(p, &end, 10);
    if (end == p || c < 0 || c >= CPU_SETSIZE || (*end && *end != ','))
      return error_set(errc::arg, "BATON_PROGRESS_CORE=%s: expected idle, auto or a list of core numbers (0,1,...)", v);
    listed.push_back(int(c));
    p = *end ? end + 1 : end;
  }
  const int c = listed[size_t(index) % listed.size()];
  if (!CPU_ISSET(c, &set))
    return error_set(errc::arg, "BATON_PROGRESS_CORE=%s: core %d is not among the %zu cores this process may use", v, c,
                     mine.size());
  *out = c;
  return errc::success;
}

// The engine lock, for the progress thread: taken only when free and nobody else wants it
// (application threads spin for it, src/core/progress.cpp), so the thread never delays an
// application call and never blocks on the lock. While it holds the lock it publishes the core it
// keeps to (progress_engine_holder_cpu): an application thread on that core that wants the lock
// has preempted it there, and blocks at once so that it can finish its poll.
bool try_engine(int cpu) {
  if (rt().engine_contenders.load(std::memory_order_relaxed) > 0) return false;
  if (!rt().engine_mutex.try_lock()) return false;
  engine_guard::held() = true;
  progress_engine_holder_cpu().store(cpu, std::memory_order_relaxed);
  return true;
}
void release_engine() {
  progress_engine_holder_cpu().store(progress_no_holder, std::memory_order_relaxed);
  engine_guard::held() = false;
  rt().engine_mutex.unlock();
}

void pin(pthread_t t, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  (void)pthread_setaffinity_np(t, sizeof set, &set);
}

// The thread holds the engine lock only for single polls; it checks for waiting application
// threads before each, without the lock.
// The starting thread has set its policy and core (progress_thread_start): under load a thread at
// SCHED_IDLE may not run for a long time, so it must not be left to set them itself.
void loop(bool follow, bool idle_policy) {
  // Between polls: a few pause instructions at SCHED_IDLE (the kernel preempts this thread for
  // anything else that wants the core), a yield otherwise. Also a yield while an application
  // thread waits in MPI, and every 64th time: a thread that yields its core (a waiting rank, an
  // OpenMP barrier) may hand it to this one, which then runs until the end of its time slice
  // (milliseconds) unless it gives the core back.
  unsigned relaxed = 0;
  const bool own_core = g_dedicated >= 0;
  auto relax = [idle_policy, own_core, &relaxed](bool app_waits) {
    if (!own_core && (!idle_policy || app_waits || (++relaxed & 63) == 0)) {
      sched_yield();
      return;
    }
    for (int k = 0; k < 16; ++k) __builtin_ia32_pause();
  };
  const backoff_policy& b = progress_backoff();
  uint64_t last_moved = progress_now_ns();
  while (!g_stop.load(std::memory_order_relaxed)) {
    if (follow) {
      const int app = progress_app_cpu().load(std::memory_order_relaxed);
      if (app >= 0 && app != g_pinned.load(std::memory_order_relaxed)) {
        g_pinned.store(app, std::memory_order_relaxed);
        pin(pthread_self(), app);
        trace(ev_pin);
      }
    }
    const int cpu = g_pinned.load(std::memory_order_relaxed);
    // An application thread drives progress inside MPI (progress_wait): stay off the engine.
    if (progress_waiters().load(std::memory_order_relaxed) > 0) {
      trace(ev_app_waits);
      relax(true);
      continue;
    }
    if (!try_engine(cpu)) {
      trace(ev_lock_busy);
      relax(true);
      continue;
    }
    const bool moved = progress_poll();
    release_engine();
    trace(moved ? ev_poll_moved : ev_poll_idle);
    if (moved) {
      last_moved = progress_now_ns();
      continue;
    }
    if (progress_now_ns() - last_moved < b.yield_ns) {
      relax(false);
      continue;
    }
    // Nothing moved for a while: sleep on the doorbell (armed first, then one more poll, so a
    // doorbell rung meanwhile is not missed).
    if (!try_engine(g_pinned.load(std::memory_order_relaxed))) continue;
    g_state.store(pt_doorbell, std::memory_order_seq_cst);
    const uint32_t token = progress_arm();
    const bool late = progress_waiters().load(std::memory_order_relaxed) > 0 || progress_poll();
    release_engine();
    // A source nobody rings for (a CUDA stream's counter) is polled every unbelled_sleep_ns, going
    // straight back to sleep when a poll finds nothing (no yield phase between the sleeps).
    const bool unbelled = progress_unbelled().load(std::memory_order_relaxed) > 0;
    if (!late && !g_stop.load(std::memory_order_relaxed)) {
      trace(ev_sleep);
      progress_sleep(token, unbelled ? unbelled_sleep_ns : safety_sleep_ns);
      trace(ev_wake);
    }
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

bool progress_no_spare_core() { return g_no_spare_core; }

int progress_dedicated_core() { return g_dedicated; }

errc progress_core_check() {
  int cpu = -1;
  return choose_core(&cpu);
}

void progress_thread_follow(int cpu) {
  if (!g_thread || g_pinned.load(std::memory_order_relaxed) == cpu) return;
  g_pinned.store(cpu, std::memory_order_relaxed);
  pin(g_thread->native_handle(), cpu);
}

void progress_thread_wake() {
  if (g_state.load(std::memory_order_seq_cst) == pt_doorbell) progress_kick();
}

void progress_thread_start() {
  if (g_thread) return;
  g_stop.store(false);
  g_state.store(pt_running);
  g_active = true;
  // With no spare core (this host's ranks, whatever transport joins them, at least as many as
  // the cores this process may use), keep to the application's core (-1: run anywhere).
  cpu_set_t set;
  CPU_ZERO(&set);
  const int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
  if (choose_core(&g_dedicated) != errc::success) g_dedicated = -1;  // refused at start-up already
  g_no_spare_core = g_dedicated < 0 && rt().host_ranks >= cpus;
  int cpu = g_dedicated;
  if (g_no_spare_core) {
    cpu = sched_getcpu();
    progress_app_cpu().store(cpu, std::memory_order_relaxed);
  }
  g_pinned.store(cpu, std::memory_order_relaxed);
  if (std::getenv("BATON_PROGRESS_TRACE")) {
    g_trace = new std::vector<trace_rec>(trace_cap);
    g_trace_n = 0;
  }
  const bool follow = g_no_spare_core;
  // The thread waits for its policy, core and name, set here, before it starts its loop: they are
  // in place when MPI_Init returns, even on a loaded host where a SCHED_IDLE thread may not get a
  // core for a long time (a check of its affinity after 20 collectives once found it unset).
  g_started.store(-1, std::memory_order_relaxed);
  g_thread = new std::thread([follow] {
    int idle;
    while ((idle = g_started.load(std::memory_order_acquire)) < 0) sched_yield();
    loop(follow, idle != 0);
  });
  const pthread_t h = g_thread->native_handle();
  pthread_setname_np(h, "baton-progress");
  sched_param sp{};
  // With a core of its own it keeps the normal policy.
  const bool idle_policy = g_dedicated < 0 && pthread_setschedparam(h, SCHED_IDLE, &sp) == 0;
  if (cpu >= 0) pin(h, cpu);
  g_started.store(idle_policy ? 1 : 0, std::memory_order_release);
}

void progress_thread_stop() {
  if (!g_thread) return;
  g_stop.store(true, std::memory_order_seq_cst);
  g_active = false;
  // If it is asleep it is armed, so the kick reaches it; if it is about to sleep, the kick moves
  // the doorbell past its token and its sleep returns at once.
  progress_kick();
  g_thread->join();
  delete g_thread;
  g_thread = nullptr;
  trace_dump();
}

}  // namespace baton::core
