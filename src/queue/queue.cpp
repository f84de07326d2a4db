// Queues: ordering of enqueued starts and waits (queue.hpp), the standard and thread types.
#include <algorithm>
#include <unordered_set>
#include <vector>

#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "queue/queue_internal.hpp"

namespace baton::queue {

namespace {

std::vector<queue*> g_listed;  // standard / cuda queues with operations left (engine lock)
bool g_poller_added = false;
bool g_in_poll = false;

void keep_error(queue* q, errc e, const char* what) {
  if (q->async_error != errc::success) return;
  q->async_error = e;
  q->async_message = std::string(what) + " (" + core::errc_name(e) + ": " + core::errc_description(e) + ")";
}

// The kept asynchronous error, reported once.
errc take_error(queue* q) {
  if (q->async_error == errc::success) return errc::success;
  errc e = q->async_error;
  q->async_error = errc::success;
  return core::error_set(e, "an operation of this queue failed while it ran asynchronously: %s",
                         q->async_message.c_str());
}

// Executes what the head of a standard or cuda queue allows. True if anything executed.
bool advance_slow(queue* q);
inline bool advance(queue* q) {
  // The common case on a poll: the head is a wait whose request has not completed.
  if (q->ops.empty()) return false;
  const op& h = q->ops.front();
  if (h.kind == op::wait && !h.r->is_complete()) return false;
  return advance_slow(q);
}

bool advance_slow(queue* q) {
  if (q->advancing) return false;  // re-entered from a start that drives progress
  q->advancing = true;
  bool moved = false;
  while (!q->ops.empty()) {
    op& o = q->ops.front();
    if (o.kind == op::start) {
      if (q->cu && !cuda_start_ready(q, o)) break;
      request* r = o.r;
      q->ops.pop_front();
      execute_start(q, r);
    } else {
      if (!o.r->is_complete()) break;
      op done = o;
      q->ops.pop_front();
      complete_wait(q, done);
      if (q->cu) cuda_wait_done(q, done);
    }
    moved = true;
  }
  q->advancing = false;
  return moved;
}

bool queue_poll() {
  if (g_listed.empty() || g_in_poll) return false;
  g_in_poll = true;
  bool moved = false;
  for (size_t i = 0; i < g_listed.size();) {
    queue* q = g_listed[i];
    moved |= advance(q);
    if (q->ops.empty()) {
      q->listed = false;
      if (q->cu) core::progress_unbelled().fetch_sub(1, std::memory_order_relaxed);
      g_listed[i] = g_listed.back();
      g_listed.pop_back();
    } else {
      ++i;
    }
  }
  g_in_poll = false;
  return moved;
}

void unlist(queue* q) {
  if (!q->listed) return;
  g_listed.erase(std::remove(g_listed.begin(), g_listed.end(), q), g_listed.end());
  q->listed = false;
  if (q->cu) core::progress_unbelled().fetch_sub(1, std::memory_order_relaxed);
}

// ---- thread type: the host executor ----

void run_task(queue* q, const op& o) {
  switch (o.kind) {
    case op::start: {
      core::engine_guard g;
      execute_start(q, o.r);
      break;
    }
    case op::wait: {
      core::engine_guard g;
      request* r = o.r;
      core::progress_wait(g, [r] { return r->is_complete(); });
      complete_wait(q, o);
      break;
    }
    case op::host:
      o.fn(o.arg);
      break;
  }
}

void executor_loop(queue* q) {
  executor& x = *q->ex;
  std::unique_lock<std::mutex> lk(x.m);
  for (;;) {
    x.work_cv.wait(lk, [&x] { return x.stop || !x.tasks.empty(); });
    if (x.tasks.empty()) break;  // stop, nothing left
    op o = x.tasks.front();
    x.tasks.pop_front();
    x.busy = true;
    lk.unlock();
    run_task(q, o);
    lk.lock();
    x.busy = false;
    if (x.tasks.empty()) x.idle_cv.notify_all();
  }
}

void executor_push(queue* q, const op* ops, int n) {
  executor& x = *q->ex;
  {
    std::lock_guard<std::mutex> lk(x.m);
    for (int i = 0; i < n; ++i) x.tasks.push_back(ops[i]);
  }
  x.work_cv.notify_one();
}

bool executor_idle(queue* q) {
  std::lock_guard<std::mutex> lk(q->ex->m);
  return q->ex->tasks.empty() && !q->ex->busy;
}

void executor_wait_idle(queue* q) {
  executor& x = *q->ex;
  std::unique_lock<std::mutex> lk(x.m);
  x.idle_cv.wait(lk, [&x] { return x.tasks.empty() && !x.busy; });
}

// ---- checks (no side effects) ----

inline errc check_start(queue* q, const request* r) {
  if (r->kind == core::req_kind::grequest)
    return core::error_set(errc::request, "a generalized request cannot be enqueued");
  if (!r->persistent)
    return core::error_set(
        errc::request, "only matched persistent requests can be enqueued (this one is nonblocking, not persistent)");
  if (!r->match_done)
    return core::error_set(errc::request, r->match
                                              ? "the request's match has not completed yet (MPI_Imatch pending)"
                                              : "the request is not matched (call MPI_Match or MPI_Matchall first)");
  if (r->device_stage && q->type != queue_type::cuda)
    return core::error_set(errc::buffer,
                           "the request's buffer is CUDA device memory: it can only be enqueued on a queue of "
                           "type MPIX_QUEUE_TYPE_CUDA");
  if (!r->queue) {
    if (r->active)
      return core::error_set(errc::request,
                             "the request is active (started with MPI_Start and not completed): only inactive "
                             "requests can be enqueued");
    return errc::success;
  }
  if (r->queue != q) return core::error_set(errc::request, "the request's start is pending on another queue");
  if (r->q_starts != r->q_waits)
    return core::error_set(errc::request,
                           "the request's previous enqueued start has no enqueued wait yet (MPI_Enqueue_wait first)");
  return errc::success;
}

inline errc check_wait(queue* q, const request* r) {
  if (!r->queue) {
    if (!r->persistent || !r->match_done)
      return core::error_set(errc::request,
                             "only matched persistent requests enqueued on this queue can be waited "
                             "for with MPI_Enqueue_wait");
    return core::error_set(errc::request, "no enqueued start of this request is pending (MPI_Enqueue_start first)");
  }
  if (r->queue != q)
    return core::error_set(errc::request, "the request's start was enqueued on another queue: wait for it there");
  if (r->q_starts != r->q_waits + 1)
    return core::error_set(errc::request, "a wait for the request's enqueued start is already enqueued");
  return errc::success;
}

errc check_failed(errc e, int i, int n) {
  if (n > 1) return core::error_set(e, "request %d of %d: %s", i, n, core::error_message().c_str());
  return e;
}

// Checks every request (none twice in the array); no side effects.
template <class Check>
errc check_all(queue* q, request* const* rs, int n, Check check) {
  for (int i = 0; i < n; ++i)
    if (errc e = check(q, rs[i]); e != errc::success) return check_failed(e, i, n);
  if (n <= 1) return errc::success;
  auto twice = [n](int i) {
    return check_failed(core::error_set(errc::request, "the request appears twice in the array"), i, n);
  };
  if (n <= 32) {
    for (int i = 1; i < n; ++i)
      for (int j = 0; j < i; ++j)
        if (rs[j] == rs[i]) return twice(i);
    return errc::success;
  }
  std::unordered_set<const request*> seen;
  for (int i = 0; i < n; ++i)
    if (!seen.insert(rs[i]).second) return twice(i);
  return errc::success;
}

// Checks every wait and claims it (++q_waits) as it goes, so that a request given twice fails the
// check on its second appearance (its wait is then "already enqueued") without a separate pass
// over pairs; on any error the claims are taken back and nothing has changed.
errc claim_waits(queue* q, request* const* rs, int n) {
  for (int i = 0; i < n; ++i) {
    if (errc e = check_wait(q, rs[i]); e != errc::success) {
      for (int j = 0; j < i; ++j) --rs[j]->q_waits;
      for (int j = 0; j < i; ++j)
        if (rs[j] == rs[i])
          return check_failed(core::error_set(errc::request, "the request appears twice in the array"), i, n);
      return check_failed(e, i, n);
    }
    ++rs[i]->q_waits;
  }
  return errc::success;
}

}  // namespace

void queue_list(queue* q) {
  if (q->listed) return;
  q->listed = true;
  g_listed.push_back(q);
  // The stream writes the counters a CUDA queue waits on; nothing rings the doorbell for them.
  if (q->cu) core::progress_unbelled().fetch_add(1, std::memory_order_relaxed);
}

void execute_start(queue* q, request* r) {
  r->active = true;
  errc e = errc::success;
  if (r->ops && r->ops->on_start) {
    e = r->ops->on_start(r);
  } else {
    e = core::error_set(errc::request, "the request has no start operation");
  }
  if (e != errc::success) {
    keep_error(q, e, "an enqueued start failed");
    r->status.error = e;
    r->mark_complete();
  }
}

namespace {
inline void finish_wait(queue* q, request* r, void* status, status_writer w, bool set_error) {
  if (w && status) w(r->status, status, set_error);
  if (r->status.error != errc::success) keep_error(q, r->status.error, "an enqueued operation completed with an error");
  r->active = false;
  if (++r->q_done == r->q_starts) {
    r->queue = nullptr;
    q->bound.fetch_sub(1, std::memory_order_relaxed);
    r->q_starts = r->q_waits = r->q_done = 0;
  }
}
}  // namespace

void complete_wait(queue* q, const op& o) {
  finish_wait(q, o.r, o.status, o.write, o.set_error);
}

bool queue_valid(const queue* q) {
  return core::slab_holds<queue>(q) && q->magic == queue_magic;
}

errc queue_create(queue_type t, void* external, queue** out) {
  if (t != queue_type::standard && !core::rt().threaded) {
    // The executor thread (thread type) or the progress thread (cuda type) calls into the engine
    // beside the application's thread: the engine lock goes on now (no other thread is in the
    // engine, or it would already be on) and stays on.
    core::runtime_enable_engine_lock();
  }
  auto* q = new queue;
  q->type = t;
  q->external = external;
  if (t == queue_type::cuda) {
    core::engine_guard g;
    if (errc e = cuda_create(q); e != errc::success) {
      delete q;
      return e;
    }
  }
  {
    core::engine_guard g;
    if (!g_poller_added) {
      core::progress_add_poller(queue_poll);
      g_poller_added = true;
    }
  }
  if (t == queue_type::cuda && !core::progress_thread_active()) core::progress_thread_start();
  if (t == queue_type::thread) {
    q->ex = new executor;
    q->ex->th = std::thread(executor_loop, q);
  }
  *out = q;
  return errc::success;
}

errc queue_destroy(queue* q) {
  // Checked first and again below (the executor or the poller may still finish a wait).
  auto unwaited = [q] {
    const uint32_t n = q->bound.load(std::memory_order_acquire);
    return n == 0 ? errc::success
                  : core::error_set(errc::arg,
                                    "the queue is not empty: %u request%s an enqueued start without an enqueued wait "
                                    "(MPI_Enqueue_wait, then MPI_Queue_fence first); the queue is still usable",
                                    unsigned(n), n == 1 ? " has" : "s have");
  };
  if (q->ex) {
    if (!executor_idle(q))
      return core::error_set(errc::arg,
                             "the queue is not empty: enqueued operations have not completed "
                             "(MPI_Queue_fence first)");
    if (errc e = unwaited(); e != errc::success) return e;
    {
      std::lock_guard<std::mutex> lk(q->ex->m);
      q->ex->stop = true;
    }
    q->ex->work_cv.notify_one();
    q->ex->th.join();
    delete q->ex;
    q->ex = nullptr;
  } else {
    core::engine_guard g;
    if (!q->ops.empty())
      return core::error_set(errc::arg,
                             "the queue is not empty: %zu enqueued operations have not completed "
                             "(MPI_Queue_fence first)",
                             q->ops.size());
    if (errc e = unwaited(); e != errc::success) return e;
    unlist(q);
    if (q->cu) cuda_destroy(q);
  }
  q->magic = 0;
  delete q;
  return errc::success;
}

namespace {
op make_op(op::kind_t k, request* r) {
  op o;
  o.kind = k;
  o.r = r;
  return o;
}
}  // namespace

errc enqueue_start(queue* q, request* const* rs, int n) {
  core::engine_guard g;
  if (q->async_error != errc::success) return take_error(q);
  if (errc e = check_all(q, rs, n, [](queue* qq, const request* r) { return check_start(qq, r); }); e != errc::success) return e;
  if (n == 0) return errc::success;
  if (q->type == queue_type::standard) {
    // A head wait whose request completed since the last call leaves now, so that a queue whose
    // earlier operations are all done takes the fast path below. If one has not, the engine
    // polls, once and then briefly (core::poll_briefly): in a loop like Example 13.1's the message
    // it waits for has usually arrived by the next iteration's starts or does within a few
    // hundred cycles, and executing them now costs less than queueing them (a loop that runs
    // ahead of its messages would otherwise notice each arrival only at its next enqueue call).
    if (!q->ops.empty()) advance(q);
    if (!q->ops.empty()) {
      core::progress_poll();  // runs queue_poll, which advances q
      if (!q->ops.empty()) core::poll_briefly([q] {
          core::progress_poll();
          return q->ops.empty();
        });
    }
    if (q->ops.empty()) {
      // Nothing earlier is pending: an enqueued start is MPI_Start (no operation record).
      for (int i = 0; i < n; ++i) {
        bind(q, rs[i]);
        ++rs[i]->q_starts;
        execute_start(q, rs[i]);
      }
      return errc::success;
    }
    // The head is a wait whose request has not completed: the starts wait their turn.
    for (int i = 0; i < n; ++i) {
      bind(q, rs[i]);
      ++rs[i]->q_starts;
      q->ops.emplace_back().r = rs[i];  // kind: start
    }
    queue_list(q);
    core::progress_new_work();
    return errc::success;
  }
  uint32_t seq = 0;
  if (q->cu) {
    if (errc e = cuda_record_starts(q, rs, n, &seq); e != errc::success) return e;
  }
  for (int i = 0; i < n; ++i) {
    bind(q, rs[i]);
    ++rs[i]->q_starts;
  }
  if (q->type == queue_type::thread) {
    executor& x = *q->ex;
    {
      std::lock_guard<std::mutex> lk(x.m);
      for (int i = 0; i < n; ++i) x.tasks.push_back(make_op(op::start, rs[i]));
    }
    x.work_cv.notify_one();
    return errc::success;
  }
  for (int i = 0; i < n; ++i) {
    op& o = q->ops.emplace_back();
    o.r = rs[i];
    o.seq = seq + static_cast<uint32_t>(i);
  }
  queue_list(q);
  advance(q);
  core::progress_new_work();
  return errc::success;
}

errc enqueue_wait(queue* q, request* const* rs, void* statuses, size_t stride, int n, status_writer w,
                  bool set_error) {
  core::engine_guard g;
  if (q->async_error != errc::success) return take_error(q);
  if (errc e = claim_waits(q, rs, n); e != errc::success) return e;
  if (n == 0) return errc::success;
  auto fill = [&](op& o, int i, uint32_t seq) -> op& {
    o.kind = op::wait;
    o.r = rs[i];
    o.status = statuses ? static_cast<char*>(statuses) + static_cast<size_t>(i) * stride : nullptr;
    o.write = w;
    o.set_error = set_error;
    o.seq = i == n - 1 ? seq : 0;  // cuda: the stream goes on after the last wait of the call
    return o;
  };
  auto make = [&](int i, uint32_t seq) {
    op o;
    return fill(o, i, seq);
  };
  if (q->type == queue_type::standard) {
    int i = 0;
    if (q->ops.empty()) {
      // One poll first if the first request has not completed: its message has often arrived
      // (the peers started at the same time), and completing now costs less than a record.
      if (!rs[0]->is_complete()) core::progress_poll();
      // Every earlier operation is done: waits whose requests already completed complete now
      // (in order, no operation record); the first that has not, and everything after it, go on
      // the queue.
      for (; i < n && rs[i]->is_complete(); ++i) {
        finish_wait(q, rs[i], statuses ? static_cast<char*>(statuses) + static_cast<size_t>(i) * stride : nullptr, w,
                    set_error);
      }
      if (i == n) return errc::success;
    }
    for (; i < n; ++i) fill(q->ops.emplace_back(), i, 0);
    queue_list(q);
    return errc::success;
  }
  uint32_t seq = 0;
  if (q->cu) {
    if (errc e = cuda_record_wait(q, rs, n, &seq); e != errc::success) {
      for (int i = 0; i < n; ++i) --rs[i]->q_waits;
      return e;
    }
  }
  if (q->type == queue_type::thread) {
    executor& x = *q->ex;
    {
      std::lock_guard<std::mutex> lk(x.m);
      for (int i = 0; i < n; ++i) x.tasks.push_back(make(i, seq));
    }
    x.work_cv.notify_one();
    return errc::success;
  }
  for (int i = 0; i < n; ++i) fill(q->ops.emplace_back(), i, seq);
  queue_list(q);
  advance(q);  // completion begins now; the poller finishes it
  return errc::success;
}

errc enqueue_host(queue* q, void (*fn)(void*), void* arg) {
  if (q->type != queue_type::thread)
    return core::error_set(errc::arg,
                           "host functions can only be enqueued on a queue of type "
                           "MPIX_QUEUE_TYPE_THREAD");
  {
    core::engine_guard g;
    if (errc e = take_error(q); e != errc::success) return e;
  }
  op o;
  o.kind = op::host;
  o.fn = fn;
  o.arg = arg;
  executor_push(q, &o, 1);
  return errc::success;
}

errc queue_fence(queue* q) {
  if (q->ex) {
    executor_wait_idle(q);
  } else {
    core::engine_guard g;
    // The queue is listed while it has operations, so the queue poller advances it on every
    // progress poll.
    advance(q);
    core::progress_wait(g, [q] { return q->ops.empty(); });
    if (q->cu) {
      if (errc e = cuda_fence_stream(q); e != errc::success) return e;
    }
  }
  core::engine_guard g;
  return take_error(q);
}

errc refuse_queued(const request*) {
  return core::error_set(errc::request,
                         "the request's enqueued start is pending on a queue: only MPI_Enqueue_wait on "
                         "that queue (or MPI_Queue_fence after it) returns it to the program");
}

}  // namespace baton::queue
