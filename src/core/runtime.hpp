// The process-wide runtime: start-up and shut-down, the world, thread support, the engine lock.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/pmi.hpp"

namespace baton::core {

enum class thread_level : int { single = 0, funneled = 1, serialized = 2, multiple = 3 };

struct runtime {
  pmi_client pmi;
  int world_rank = 0;
  int world_size = 1;
  std::string hostname;
  std::vector<int> local_of_world;  // world rank -> index on this host, -1 if remote
  std::vector<int> world_of_local;  // index on this host -> world rank
  int host_ranks = 1;  // ranks on this host, whichever transport joins them
  int host_index = 0;  // this rank's index among them (in world rank order)
  int local_rank = 0;
  // Ranks this transport reaches through shared memory are "local" above. Ranks on other hosts
  // (and, with BATON_TRANSPORT=ucx, every other rank) go through UCX: use_ucx says it is in use.
  bool use_ucx = false;
  int host_color = 0;  // lowest world rank on this host (MPI_COMM_TYPE_SHARED)
  // World rank -> its host, named by the host's lowest world rank (the same on every rank). With
  // BATON_TRANSPORT=ucx every rank is a host of its own, as the transports see it. The host-aware
  // collectives (src/coll/hosts.hpp) group communicators by it.
  std::vector<int> host_of_world;

  thread_level level = thread_level::single;
  bool threaded = false;  // engine lock in use (MPI_THREAD_MULTIPLE)
  std::mutex engine_mutex;
  // Threads spinning for the engine lock (engine_guard): the progress thread lets go of the lock
  // between polls while this is non-zero, so application calls never queue behind it.
  std::atomic<int> engine_contenders{0};
  // The World model (MPI_Init / MPI_Finalize): what MPI_Initialized and MPI_Finalized report.
  std::atomic<bool> initialized{false};
  std::atomic<bool> finalized{false};
  // The runtime serves MPI calls: the World model is initialized and not finalized, or at least
  // one session is (runtime_acquire / runtime_release).
  std::atomic<bool> active{false};
  void* main_thread = nullptr;

  comm* world = nullptr;
  comm* self = nullptr;
  // Every process of the launch, never handed to the user: the parent of the context agreements
  // of MPI_Comm_create_from_group (context pair 2, so nothing a user communicator carries can
  // match its traffic). It exists whenever the runtime is up, with or without the World model.
  comm* processes = nullptr;
  double wtime_base = 0;
};

runtime& rt();

// The layers above core come up and go down through hooks, so that core names none of them. Each
// layer defines its hook in its own folder (src/p2p/p2p_runtime.cpp, src/coll/coll_runtime.cpp)
// with an explicit place in the order; src/comm/runtime_hooks.cpp, the layer that sees all of
// them, registers them before the runtime first comes up. runtime_init runs, after the bootstrap
// and the built-in communicators, every `init` in ascending order (the first failure stops the
// start-up); runtime_finalize, after stopping the progress thread, every `quiesce` in ascending
// order (finish what this process still owes the others: sends in flight), then every `finalize`
// in descending order (release). Any of the three may be nullptr.
enum class runtime_hook_order : int { transport = 100, p2p = 200, coll = 300, comm = 400 };
struct runtime_hook {
  const char* name;
  runtime_hook_order order;
  errc (*init)();
  void (*quiesce)();
  void (*finalize)();
};
// An ordered table of hooks: the runtime keeps one (runtime_hook_add), tests make their own.
class runtime_hook_table {
 public:
  static constexpr int capacity = 8;
  // Adds h in its place (kept by address; adding it again does nothing); errc::intern when the
  // table is full or another hook has h's order.
  [[nodiscard]] errc add(const runtime_hook* h);
  int size() const { return n_; }
  const runtime_hook* at(int i) const { return i >= 0 && i < n_ ? hooks_[i] : nullptr; }
  // Every init in ascending order; stops at the first failure and returns it.
  [[nodiscard]] errc init_all() const;
  // Every quiesce in ascending order, then every finalize in descending order.
  void shutdown_all() const;

 private:
  const runtime_hook* hooks_[capacity] = {};
  int n_ = 0;
};
// Registers h with the runtime's table. Call before runtime_init.
[[nodiscard]] errc runtime_hook_add(const runtime_hook* h);
// The runtime's table (tests).
const runtime_hook_table& runtime_hooks();

// Brings the runtime up (bootstrap, the layers' hooks) and takes it down. MPI entry points go
// through runtime_acquire / runtime_release below; unit tests call these directly (after
// registering the hooks of the layers they use).
[[nodiscard]] errc runtime_init(thread_level requested, thread_level* provided);
[[nodiscard]] errc runtime_finalize();

// The runtime's users: the World model (world = true: MPI_Init / MPI_Finalize) and each session
// (MPI_Session_init / MPI_Session_finalize). The first acquire brings the runtime up; a later one
// reuses it. Releasing the last user:
// - after MPI_Finalize, takes the runtime down at once (as MPI_Finalize always did);
// - otherwise (sessions only, the World model never initialized) leaves it up but idle ("dormant")
//   so that a later MPI_Session_init or MPI_Init can use it again, and takes it down when the
//   process exits (the process manager expects one finalize per process, and Baton's PMI
//   bootstrap cannot run twice in one process).
// An acquire after the runtime went down fails with errc::other (MPI_Session_init after
// MPI_Finalize when no session was left alive).
// Thread level: the first acquire fixes it from its request (as MPI_Init_thread did); a later one
// may raise it only while no other thread can be inside the engine (the level so far is single or
// funneled, or the engine lock is already on) and, for MPI_THREAD_MULTIPLE, not under UCX (its
// worker was made for one thread); otherwise it gets the current level. *provided is the level the
// caller gets.
[[nodiscard]] errc runtime_acquire(bool world, thread_level requested, thread_level* provided);
[[nodiscard]] errc runtime_release(bool world);
[[noreturn]] void runtime_abort(int code, const std::string& message);
bool runtime_is_main_thread();
// BATON_THREAD_LEVEL (0-3): the highest thread level MPI_Init_thread grants; -1 when unset or
// out of range (no cap).
int thread_level_cap();
double wtime();

// Serializes the engine when several threads may call in (MPI_THREAD_MULTIPLE, the progress
// thread, a queue executor thread); free otherwise. A guard taken by a thread that already holds
// the lock (a queue starting a request from inside a poller) does nothing.
class engine_guard {
 public:
  engine_guard() : locked_(rt().threaded && !held()) {
    if (locked_) {
      acquire();
      held() = true;
    }
  }
  ~engine_guard() { unlock(); }
  engine_guard(const engine_guard&) = delete;
  engine_guard& operator=(const engine_guard&) = delete;
  void unlock() {
    if (locked_ && held()) {
      held() = false;
      rt().engine_mutex.unlock();
    }
  }
  void lock() {
    if (locked_ && !held()) {
      acquire();
      held() = true;
    }
  }
  // Whether the calling thread holds the engine lock.
  static bool& held() {
    static thread_local bool h = false;
    return h;
  }

 private:
  // Holders keep the lock for short stretches (a poll, a start, a 64 KiB copy) and the other
  // thread (often the progress thread, which lets go as soon as someone waits) releases it within
  // microseconds, so spin for a while before blocking: a thread that blocks in the kernel is
  // woken tens of microseconds after the release.
  static void acquire() {
    if (!rt().engine_mutex.try_lock()) acquire_contended();
  }
  static void acquire_contended();  // src/core/progress.cpp
  bool locked_;
};

// Turns the engine lock on for good (a queue type that runs MPI work on its own thread needs it
// whatever thread level the program asked for). Call only while no other thread is in the engine.
inline void runtime_enable_engine_lock() { rt().threaded = true; }

}  // namespace baton::core
