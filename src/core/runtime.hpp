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
  int local_rank = 0;
  // Ranks this transport reaches through shared memory are "local" above. Ranks on other hosts
  // (and, with BATON_TRANSPORT=ucx, every other rank) go through UCX: use_ucx says it is in use.
  bool use_ucx = false;
  int host_color = 0;  // lowest world rank on this host (MPI_COMM_TYPE_SHARED)

  thread_level level = thread_level::single;
  bool threaded = false;  // engine lock in use (MPI_THREAD_MULTIPLE)
  std::mutex engine_mutex;
  // Threads spinning for the engine lock (engine_guard): the progress thread lets go of the lock
  // between polls while this is non-zero, so application calls never queue behind it.
  std::atomic<int> engine_contenders{0};
  std::atomic<bool> initialized{false};
  std::atomic<bool> finalized{false};
  void* main_thread = nullptr;

  comm* world = nullptr;
  comm* self = nullptr;
  double wtime_base = 0;
};

runtime& rt();

[[nodiscard]] errc runtime_init(thread_level requested, thread_level* provided);
[[nodiscard]] errc runtime_finalize();
[[noreturn]] void runtime_abort(int code, const std::string& message);
bool runtime_is_main_thread();
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
