#include "core/request.hpp"

#include <atomic>
#include <mutex>
#include <new>

#include "core/runtime.hpp"

namespace baton::core {

namespace {
// A free list under a mutex, linked through the free requests' own memory (no container to grow).
// Requests are created and retired under the engine lock in threaded mode anyway; the mutex keeps
// the pool itself safe from any thread. It is taken only while more than one thread may call in
// (the engine lock is on: MPI_THREAD_MULTIPLE, the progress thread, thread or CUDA queues);
// otherwise one thread at a time uses the pool, and skipping it saves two atomic operations per
// request (an 8-byte nonblocking collective's start and completion). Constant-initialized with a
// trivial destructor, so no first-use guard and nothing to destroy at exit (requests may outlive
// statics); free objects stay allocated until the process ends.
struct free_node {
  free_node* next;
};
static_assert(sizeof(request) >= sizeof(free_node));
struct request_pool {
  std::mutex m;
  free_node* free = nullptr;
  // Written under the guard only (one writer at a time), read by any thread (MPI_T performance
  // variables): relaxed loads and stores, which cost what plain ones do.
  std::atomic<uint64_t> live{0};
  std::atomic<uint64_t> created{0};
  struct guard {
    std::mutex& m;
    bool on = rt().threaded;
    explicit guard(std::mutex& mm) : m(mm) {
      if (on) m.lock();
    }
    ~guard() {
      if (on) m.unlock();
    }
  };
};
constinit request_pool g_pool;
}  // namespace

request* request_new(req_kind kind) {
  request_pool& p = g_pool;
  void* mem = nullptr;
  {
    request_pool::guard g(p.m);
    p.live.store(p.live.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    p.created.store(p.created.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    if (free_node* f = p.free) {
      p.free = f->next;
      mem = f;
    }
  }
  if (!mem) mem = slab_of<request>.alloc();  // the request arena: handles are range-checked
  // Default-initialized, not value-initialized: every member has an initializer, and `request()`
  // would zero the whole object first (a `rep stos`, a sixth of an 8-byte Isend's time).
  request* r = new (mem) request;
  r->kind = kind;
  return r;
}

void request_delete(request* r) {
  if (r->shared) return;
  if (r->ops && r->ops->on_destroy) r->ops->on_destroy(r);
  if (r->device_stage) device_stage_release(r);
  r->magic = 0;
  r->~request();
  request_pool& p = g_pool;
  request_pool::guard g(p.m);
  p.live.store(p.live.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
  auto* f = reinterpret_cast<free_node*>(r);
  f->next = p.free;
  p.free = f;
}

uint64_t request_live_count() { return g_pool.live.load(std::memory_order_relaxed); }

uint64_t request_created_count() { return g_pool.created.load(std::memory_order_relaxed); }

}  // namespace baton::core
