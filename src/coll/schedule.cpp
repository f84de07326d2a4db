#include "coll/schedule.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "coll/coll.hpp"
#include "coll/hosts.hpp"
#include "coll/mismatch.hpp"
#include "coll/shm_region.hpp"
#include "core/comm.hpp"
#include "core/datatype.hpp"
#include "core/op.hpp"
#include "core/reduce.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "core/stall.hpp"
#include "p2p/p2p.hpp"

namespace baton::coll {

plan::~plan() {
  if (op) op->release();
  for (const core::datatype* t : types) t->release();
}

// ---- builder ----

uint32_t builder::add(step s, const std::vector<uint32_t>& after) {
  s.dep_begin = static_cast<uint32_t>(p_.deps.size());
  for (uint32_t d : after) p_.deps.push_back(d);
  s.dep_end = static_cast<uint32_t>(p_.deps.size());
  if (s.type && std::find(p_.types.begin(), p_.types.end(), s.type) == p_.types.end()) {
    s.type->retain();
    p_.types.push_back(s.type);
  }
  p_.steps.push_back(s);
  return static_cast<uint32_t>(p_.steps.size() - 1);
}

uint32_t builder::send(int peer, buf_ref src, int64_t count, const core::datatype* t,
                       std::initializer_list<uint32_t> after) {
  return add(make_step(step_kind::send, peer, src, {}, count, t), std::vector<uint32_t>(after));
}
uint32_t builder::recv(int peer, buf_ref dst, int64_t count, const core::datatype* t,
                       std::initializer_list<uint32_t> after) {
  return add(make_step(step_kind::recv, peer, dst, {}, count, t), std::vector<uint32_t>(after));
}
uint32_t builder::reduce(buf_ref in, buf_ref inout, int64_t count, const core::datatype* t,
                         std::initializer_list<uint32_t> after) {
  return add(make_step(step_kind::reduce, 0, in, inout, count, t), std::vector<uint32_t>(after));
}
uint32_t builder::copy(buf_ref src, buf_ref dst, int64_t count, const core::datatype* t,
                       std::initializer_list<uint32_t> after) {
  return add(make_step(step_kind::copy, 0, src, dst, count, t), std::vector<uint32_t>(after));
}

uint32_t builder::poll(poll_fn fn, int peer, buf_ref a, buf_ref b, int64_t count, const core::datatype* t,
                       std::initializer_list<uint32_t> after) {
  step s = make_step(step_kind::poll, peer, a, b, count, t);
  s.fn = fn;
  p_.uses_shm = true;
  return add(s, std::vector<uint32_t>(after));
}

uint32_t builder::task(poll_fn fn, void* arg, buf_ref a, int64_t count, const core::datatype* t,
                       const std::vector<uint32_t>& after) {
  step s = make_step(step_kind::task, 0, a, {}, count, t);
  s.fn = fn;
  s.arg = arg;
  return add(s, after);
}

uint8_t builder::temp(int64_t bytes) {
  uint8_t slot = static_cast<uint8_t>(slot_tmp + p_.ntmp);
  p_.tmp_bytes[p_.ntmp++] = bytes;
  return slot;
}

void builder::shm_data(int64_t bytes) { p_.shm_data_bytes = std::max(p_.shm_data_bytes, bytes); }

void builder::set_op(const core::op* op) {
  op->retain();
  p_.op = op;
}

namespace {
// The bit of plan::send_set for a send to `peer` of `ordinal`.
uint64_t send_bit(int peer, uint32_t ordinal) { return uint64_t(1) << ((uint32_t(peer) * 4099u + ordinal) % 64u); }
}  // namespace

void builder::finish() {
  const size_t n = p_.steps.size();
  for (const step& s : p_.steps)
    if (s.type) p_.max_step_bytes = std::max(p_.max_step_bytes, s.count * s.type->size());
  // successors from dependencies
  std::vector<uint32_t> nsucc(n, 0);
  for (const step& s : p_.steps)
    for (uint32_t i = s.dep_begin; i < s.dep_end; ++i) ++nsucc[p_.deps[i]];
  uint32_t at = 0;
  for (size_t i = 0; i < n; ++i) {
    p_.steps[i].succ_begin = at;
    p_.steps[i].succ_end = at;
    at += nsucc[i];
  }
  p_.succs.assign(at, 0);
  for (uint32_t j = 0; j < n; ++j) {
    const step& s = p_.steps[j];
    for (uint32_t i = s.dep_begin; i < s.dep_end; ++i) p_.succs[p_.steps[p_.deps[i]].succ_end++] = j;
  }
  // A chain of local steps (each depends on the one before) can run inline, in index order.
  p_.runs_inline = p_.ntmp == 0 && n > 0;
  for (uint32_t j = 0; j < n && p_.runs_inline; ++j) {
    const step& s = p_.steps[j];
    if (s.kind == step_kind::send || s.kind == step_kind::recv || s.kind == step_kind::task) p_.runs_inline = false;
    if (j > 0 && (s.dep_end - s.dep_begin != 1 || p_.deps[s.dep_begin] != j - 1)) p_.runs_inline = false;
  }
  // message ordinals per (peer, direction), in plan order
  std::map<int, uint32_t> sends, recvs;
  for (step& s : p_.steps) {
    if (s.kind == step_kind::send) s.ordinal = sends[s.peer]++ & 0xfff;
    if (s.kind == step_kind::recv) s.ordinal = recvs[s.peer]++ & 0xfff;
    if (s.kind == step_kind::send) p_.send_set |= send_bit(s.peer, s.ordinal);
  }
}

void* type_abi_handle(const core::datatype* t) {
  return t->is_predefined() ? reinterpret_cast<void*>(static_cast<uintptr_t>(t->abi_code()))
                            : const_cast<core::datatype*>(t);
}

// ---- execution ----

struct run {
  const plan* p = nullptr;
  core::comm* c = nullptr;
  void* base[max_slots] = {};
  char* tmp = nullptr;
  size_t tmp_cap = 0;  // bytes allocated at tmp (kept while the run sits in the pool)
  std::vector<uint32_t> waiting;
  std::vector<uint32_t> completed;  // finished steps not yet retired
  uint32_t remaining = 0;
  int tag_prefix = 0;
  uint32_t ctx = 0;      // matching context of its messages (the collective context, c->ctx + 1)
  uint64_t shm_seq = 0;  // plans with poll steps: this run's sequence number on the shared region
  const shm::region* g = nullptr;  // the region its poll steps use (the communicator's, or own)
  bool queued = false;
  bool unstarted = false;  // launched for the progress thread: no step started yet
  errc error = errc::success;
  core::request* user = nullptr;
  std::vector<core::request*> prepared;  // bound runs: step -> its prepared request (send/recv steps)
  bool bound = false;
  // Bound runs with their own region (persistent shared-memory collectives): sequence numbers are
  // start counts; pending poll steps wait in `polling` (capacity reserved at bind), and the run
  // sits in the list of such runs that the collective poller walks while any is pending.
  shm::region* own = nullptr;
  uint64_t starts = 0;
  std::vector<uint32_t> polling;
  run* poll_prev = nullptr;
  run* poll_next = nullptr;
  bool poll_linked = false;
  // Runs that are not bound, while their request is pending: the list that runs_fail walks.
  run* live_prev = nullptr;
  run* live_next = nullptr;
  // Messages in flight (reqs: per step, the request of a started send or receive); a failed run
  // (runs_fail) starts no more steps, cancels those in flight, completes its request once no
  // receive can write into the user's buffers any more, and is recycled once none is left (or,
  // orphaned, when its request was retired before that).
  std::vector<core::request*> reqs;
  bool failed = false;
  bool user_done = false;
  bool orphaned = false;
  // Stall checks that found its receive steps where they were (runs_to_probe), and `remaining`
  // at the last one.
  uint32_t stalled_checks = 0;
  uint32_t remaining_at_check = 0;
};

namespace {
std::vector<run*> g_ready;
// Poll steps waiting for their condition, per region (a communicator's), in the order of their
// runs' shared sequence numbers. A step of run q can only complete once this rank's run q - shm::slots is done
// (its slot must be free everywhere, or a peer must have published q, which needs the same), so a
// poll tries only the steps within shm::slots of the oldest pending one: the work per poll does not
// grow with the number of outstanding collectives.
struct polling_step {
  run* r;
  uint32_t idx;
  uint64_t seq;
};
struct polling_queue {
  const shm::region* g;
  std::deque<polling_step> steps;
};
// Queues that became empty stay (up to polling_keep of them) so that a communicator running one
// shared-memory collective after another does not build and free a deque (two allocations) each
// time; g_polling_busy counts the non-empty ones.
std::vector<polling_queue> g_polling;
size_t g_polling_busy = 0;
constexpr size_t polling_keep = 4;

void polling_add(run* r, uint32_t idx) {
  polling_queue* q = nullptr;
  for (polling_queue& pq : g_polling)
    if (pq.g == r->g) q = &pq;
  if (!q) {
    g_polling.push_back(polling_queue{r->g, {}});
    q = &g_polling.back();
  }
  const polling_step ps{r, idx, r->shm_seq};
  auto& d = q->steps;
  if (d.empty()) ++g_polling_busy;
  if (d.empty() || d.back().seq <= ps.seq) {
    d.push_back(ps);
    return;
  }
  // A successor step of a run in the window: its place is near the front.
  auto it = d.begin();
  while (it != d.end() && it->seq <= ps.seq) ++it;
  d.insert(it, ps);
}
uint64_t g_in_flight = 0;
bool g_registered = false;

void queue(run* r) {
  if (r->queued) return;
  r->queued = true;
  g_ready.push_back(r);
}

// Marks a step's request as started before start_internal returns it (it may complete inside).
core::request* const starting = reinterpret_cast<core::request*>(uintptr_t{1});

uint64_t seq_of(const core::comm* c, uint32_t bits);
uint32_t seq_bits(int tag);

// A receive step of r got fewer bytes than it posted: the sender's plan is not this one (a bcast
// root that passed a smaller count than its receivers, whose messages still met).
[[gnu::cold]] void short_recv(run* r, const core::request* q, const step& s) {
  if (r->error != errc::success) return;
  const core::comm* c = r->c;
  r->error = core::error_set(
      errc::truncate,
      "collective %llu on %s: this rank's %s receives %llu bytes from rank %d where it posted %lld; the ranks' counts "
      "or datatypes disagree (every rank of a collective must pass the same type signature)",
      (unsigned long long)seq_of(c, seq_bits(r->tag_prefix)),
      c->name.empty() ? "a communicator" : c->name.c_str(), r->p->al ? coll_name(r->p->al->kind) : "collective",
      (unsigned long long)q->status.bytes, s.peer, (long long)s.count * (long long)s.type->size());
}

void on_step_complete(core::request* q) {
  run* r = static_cast<run*>(q->ext);
  if (q->status.error != errc::success && r->error == errc::success) r->error = q->status.error;
  const step& s = r->p->steps[q->step];
  if (s.kind == step_kind::recv && q->status.bytes < uint64_t(s.count * s.type->size()) && !r->p->short_recvs)
      [[unlikely]]
    short_recv(r, q, s);
  r->reqs[q->step] = nullptr;
  r->completed.push_back(q->step);
  core::request_delete(q);
  queue(r);
}

// Bound runs keep their step requests: completion only records the step.
void on_bound_step_complete(core::request* q) {
  run* r = static_cast<run*>(q->ext);
  if (q->status.error != errc::success && r->error == errc::success) r->error = q->status.error;
  r->completed.push_back(q->step);
  queue(r);
}

char* address(run* r, buf_ref b) { return static_cast<char*>(r->base[b.slot]) + b.offset; }

void* type_handle(const core::datatype* t) { return type_abi_handle(t); }

void do_reduce(run* r, const step& s) {
  errc e = core::reduce_typed(*r->p->op, address(r, s.a), address(r, s.b), s.count, *s.type, type_handle(s.type));
  if (e != errc::success && r->error == errc::success) r->error = e;
}

bool try_poll(run* r, const step& s) {
  const poll_ctx ctx{r->c, r->g, r->shm_seq, r->base, r->p->op, &r->error};
  return s.fn(ctx, s);
}

// ---- bound runs with their own region: pending poll steps ----
// Intrusive lists of runs (no allocation when a run joins or leaves), through one pair of links.
template <run* run::*Prev, run* run::*Next>
void list_push(run*& head, run* r) {
  r->*Prev = nullptr;
  r->*Next = head;
  if (head) head->*Prev = r;
  head = r;
}
template <run* run::*Prev, run* run::*Next>
void list_remove(run*& head, run* r) {
  if (r->*Prev)
    (r->*Prev)->*Next = r->*Next;
  else
    head = r->*Next;
  if (r->*Next) (r->*Next)->*Prev = r->*Prev;
  r->*Prev = r->*Next = nullptr;
}

run* g_own_polling = nullptr;  // runs with pending poll steps of their own

void own_poll_add(run* r, uint32_t idx) {
  r->polling.push_back(idx);  // capacity reserved at bind
  if (r->poll_linked) return;
  r->poll_linked = true;
  list_push<&run::poll_prev, &run::poll_next>(g_own_polling, r);
}

void own_poll_unlink(run* r) {
  if (!r->poll_linked) return;
  list_remove<&run::poll_prev, &run::poll_next>(g_own_polling, r);
  r->poll_linked = false;
}

// Tries r's pending poll steps; the finished ones go to `completed` and the run is queued.
bool own_poll(run* r) {
  bool moved = false;
  for (size_t i = 0; i < r->polling.size();) {
    const uint32_t idx = r->polling[i];
    if (try_poll(r, r->p->steps[idx])) {
      r->polling[i] = r->polling.back();
      r->polling.pop_back();
      r->completed.push_back(idx);
      moved = true;
    } else {
      ++i;
    }
  }
  if (r->polling.empty()) own_poll_unlink(r);
  if (moved) queue(r);
  return moved;
}

// The bytes collectives send to other hosts (MPI_T baton_coll_remote_bytes / _messages): only
// the engine-lock holder counts, so plain stores suffice; readers in other threads see whole values.
std::atomic<uint64_t> g_remote_bytes{0}, g_remote_messages{0};
void count_remote_send(const core::comm* c, const step& s) {
  if (core::rt().local_of_world[size_t(c->world_rank(s.peer))] >= 0) return;
  g_remote_bytes.store(g_remote_bytes.load(std::memory_order_relaxed) + uint64_t(s.count) * s.type->size(),
                       std::memory_order_relaxed);
  g_remote_messages.store(g_remote_messages.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

void start_step(run* r, uint32_t idx) {
  const step& s = r->p->steps[idx];
  switch (s.kind) {
    case step_kind::send:
    case step_kind::recv:
      if (s.kind == step_kind::send && core::rt().use_ucx) count_remote_send(r->c, s);
      if (r->bound) {
        p2p::start_prepared(r->prepared[idx]);
        break;
      }
      {
        r->reqs[idx] = starting;
        core::request* q = p2p::start_internal(
            s.kind == step_kind::send ? core::req_kind::send : core::req_kind::recv, address(r, s.a), s.count, s.type,
            s.peer, r->tag_prefix | static_cast<int>(s.ordinal), r->c, r->ctx, on_step_complete, r, idx);
        if (r->reqs[idx] == starting) r->reqs[idx] = q;  // else it completed inside
      }
      break;
    case step_kind::reduce:
      do_reduce(r, s);
      r->completed.push_back(idx);
      break;
    case step_kind::copy: {
      uint64_t bytes = 0;
      (void)core::copy_typed(address(r, s.a), s.count, *s.type, address(r, s.b), s.count, *s.type, &bytes);
      r->completed.push_back(idx);
      break;
    }
    case step_kind::task:  // polled from the run's own list: it needs no region or sequence window
      if (try_poll(r, s))
        r->completed.push_back(idx);
      else
        own_poll_add(r, idx);
      break;
    case step_kind::poll:
      if (try_poll(r, s))
        r->completed.push_back(idx);
      else if (r->own)
        own_poll_add(r, idx);
      else
        polling_add(r, idx);
      break;
  }
}

run* g_live = nullptr;  // runs that are not bound, request pending (intrusive list)

void live_link(run* r) { list_push<&run::live_prev, &run::live_next>(g_live, r); }
void live_unlink(run* r) { list_remove<&run::live_prev, &run::live_next>(g_live, r); }

// The last collectives that finished here (runs_find_stray): a message of one of them still
// waiting unmatched came from a plan that sent more than this rank's took.
struct finished_run {
  uint64_t serial = 0;  // the communicator's (core::comm::serial)
  uint32_t ctx = 0;
  int prefix = 0;       // the run's tag prefix
  uint64_t sends = 0;   // its plan's send_set
};
constexpr size_t finished_keep = 64;
finished_run g_finished[finished_keep];
size_t g_finished_next = 0;

uint32_t seq_bits(int tag) { return uint32_t(tag >> 12) & 0x3ffff; }

void finish_run(run* r) {
  // (Runs on a region's communicator are never asked about: its logs are checked instead.)
  if (!r->bound && r->g == nullptr)
    g_finished[g_finished_next++ % finished_keep] = finished_run{r->c->serial, r->ctx, r->tag_prefix, r->p->send_set};
  core::request* u = r->user;
  u->status = core::req_status{};
  u->status.error = r->error;
  --g_in_flight;
  --r->c->coll_pending;
  if (!r->bound) live_unlink(r);
  r->user_done = true;
  u->mark_complete();
  if (core::rt().threaded) core::progress_kick();  // another thread may sleep waiting for it
}

void release_run(run* r);

// Whether a message step of r (a receive, with recvs_only) is still in flight (failed runs only:
// the hot path keeps no count).
bool in_flight(const run* r, bool recvs_only) {
  for (size_t i = 0; i < r->reqs.size(); ++i)
    if (r->reqs[i] != nullptr && (!recvs_only || r->p->steps[i].kind == step_kind::recv)) return true;
  return false;
}

// A failed run (runs_fail): its request completes once no receive of it is in flight (a cancelled
// send may wait for its receiver's answer: that holds up only the run's recycling).
void advance_failed(run* r) {
  r->completed.clear();
  r->queued = false;
  if (!r->user_done && !in_flight(r, true)) {
    finish_run(r);  // the last touch unless orphaned below: a waiter may retire it right after
    return;
  }
  if (r->orphaned && !in_flight(r, false)) release_run(r);
}

// Retires completed steps and starts their successors; finishes the run when nothing is left.
// The run is marked queued throughout, so completions that happen meanwhile only append to
// `completed`. Finishing is the last touch: a waiter may free the run right after.
void advance(run* r) {
  if (r->failed) [[unlikely]] {
    advance_failed(r);
    return;
  }
  if (r->unstarted) {
    r->unstarted = false;
    const uint32_t n = static_cast<uint32_t>(r->p->steps.size());
    for (uint32_t i = 0; i < n; ++i)
      if (r->waiting[i] == 0) start_step(r, i);
  }
  while (!r->completed.empty()) {
    uint32_t idx = r->completed.back();
    r->completed.pop_back();
    --r->remaining;
    const step& s = r->p->steps[idx];
    for (uint32_t i = s.succ_begin; i < s.succ_end; ++i) {
      uint32_t succ = r->p->succs[i];
      if (--r->waiting[succ] == 0) start_step(r, succ);
    }
  }
  r->queued = false;
  if (r->remaining == 0) finish_run(r);
}

bool run_ready() {
  if (g_ready.empty()) return false;
  static std::vector<run*> batch;  // swapped with g_ready, so neither allocates in the steady state
  batch.swap(g_ready);
  for (run* r : batch) advance(r);
  batch.clear();
  return true;
}

bool coll_poll() {
  bool moved = run_ready();
  bool polled = false;
  for (run* r = g_own_polling; r;) {
    run* next = r->poll_next;  // own_poll may unlink r
    polled |= own_poll(r);
    r = next;
  }
  if (g_polling_busy == 0) {
    if (polled) run_ready();
    return moved || polled;
  }
  size_t empty = 0;
  for (size_t k = 0; k < g_polling.size();) {
    auto& d = g_polling[k].steps;
    if (!d.empty()) {
      const uint64_t window_end = d.front().seq + uint64_t(d.front().r->g->nslots);
      for (auto it = d.begin(); it != d.end() && it->seq < window_end;) {
        const polling_step ps = *it;
        if (try_poll(ps.r, ps.r->p->steps[ps.idx])) {
          it = d.erase(it);
          ps.r->completed.push_back(ps.idx);
          queue(ps.r);
          polled = true;
        } else {
          ++it;
        }
      }
      if (d.empty()) --g_polling_busy;
    }
    if (d.empty() && ++empty > polling_keep) {
      g_polling[k] = std::move(g_polling.back());
      g_polling.pop_back();
    } else {
      ++k;
    }
  }
  if (polled) run_ready();
  return moved || polled;
}

// Finished runs are kept for reuse (with their step vectors and temporaries), so starting a
// collective allocates nothing in the common case. Runs are destroyed by whichever thread retires
// the request, outside the engine lock, hence the pool's own lock (taken only with threads).
constexpr size_t run_pool_max = 64;
constexpr size_t run_pool_tmp_max = size_t{4} << 20;  // larger temporaries are not kept
std::vector<run*> g_run_pool;
std::mutex g_run_pool_mutex;

struct pool_lock {
  bool on = core::rt().threaded;
  pool_lock() {
    if (on) g_run_pool_mutex.lock();
  }
  ~pool_lock() {
    if (on) g_run_pool_mutex.unlock();
  }
};

run* run_get() {
  {
    pool_lock g;
    if (!g_run_pool.empty()) {
      run* r = g_run_pool.back();
      g_run_pool.pop_back();
      return r;
    }
  }
  return new run;
}

void run_put(run* r) {
  r->completed.clear();
  r->error = errc::success;
  r->failed = r->user_done = r->orphaned = false;
  r->queued = false;
  r->unstarted = false;
  r->shm_seq = 0;
  r->g = nullptr;
  if (r->tmp_cap > run_pool_tmp_max) {
    std::free(r->tmp);
    r->tmp = nullptr;
    r->tmp_cap = 0;
  }
  {
    pool_lock g;
    if (g_run_pool.size() < run_pool_max) {
      g_run_pool.push_back(r);
      return;
    }
  }
  std::free(r->tmp);
  delete r;
}

}  // namespace

namespace {
void fail_run(run* r, errc e) {
  r->failed = true;
  r->error = e;
  r->unstarted = false;
  // Its poll steps leave the queues (nothing counts them any more).
  for (polling_queue& pq : g_polling) {
    auto& d = pq.steps;
    if (d.empty()) continue;
    d.erase(std::remove_if(d.begin(), d.end(), [r](const polling_step& ps) { return ps.r == r; }), d.end());
    if (d.empty()) --g_polling_busy;
  }
  own_poll_unlink(r);
  r->polling.clear();
  // A receive cancelled here completes at once (on_step_complete); a send once its receiver
  // answers; a message already matched completes as usual.
  for (size_t i = 0; i < r->reqs.size(); ++i) {
    core::request* q = r->reqs[i];
    if (q != nullptr && q != starting) (void)p2p::cancel(q);
  }
  queue(r);
}
}  // namespace

void runs_fail(core::comm* c, errc e) {
  for (run* r = g_live; r != nullptr;) {
    run* next = r->live_next;
    const bool io = std::any_of(r->p->steps.begin(), r->p->steps.end(),
                                [](const step& s) { return s.kind == step_kind::task; });
    if (r->c == c && !r->failed && !io) fail_run(r, e);
    r = next;
  }
}

namespace {
// Whether a receive step of r still waits for its message: not started, or posted and unmatched.
bool recv_waiting(const run* r, uint32_t i) {
  if (r->unstarted || r->waiting[i] > 0) return true;
  const core::request* q = r->reqs[i];
  return q != nullptr && q != starting && !q->matched_;
}
}  // namespace

namespace {
// The latest collective issued on c whose tags carry these sequence bits.
uint64_t seq_of(const core::comm* c, uint32_t bits) {
  return c->coll_seq > bits ? c->coll_seq - 1 - ((c->coll_seq - 1 - bits) & 0x3ffff) : bits;
}
// Runs whose stalls the message checks may read: pending, not failed, on a communicator without a
// region (whose logs know more), without file-access steps. (Agreements run on a context of their
// own: runs_pending and runs_to_probe, which name the collective context, leave them out.)
bool checkable(const run* r) {
  const core::comm* c = r->c;
  if (r->failed || r->tag_prefix < 0 || c->coll_failed != errc::success || shm::region_of(c)) return false;
  return std::none_of(r->p->steps.begin(), r->p->steps.end(), [](const step& s) { return s.kind == step_kind::task; });
}
}  // namespace

std::vector<waiting_for> runs_to_probe() {
  std::vector<waiting_for> out;
  for (run* r = g_live; r != nullptr; r = r->live_next) {
    if (!checkable(r) || r->ctx != r->c->ctx + 1) continue;
    r->stalled_checks = r->remaining == r->remaining_at_check ? r->stalled_checks + 1 : 0;
    r->remaining_at_check = r->remaining;
    if (r->stalled_checks < 3 || (r->stalled_checks - 3) % 10 != 0) continue;
    const size_t first = out.size();
    for (uint32_t i = 0; i < r->p->steps.size(); ++i) {
      const step& s = r->p->steps[i];
      if (s.kind != step_kind::recv || !recv_waiting(r, i)) continue;
      bool asked = false;
      for (size_t k = first; k < out.size(); ++k) asked |= out[k].peer == s.peer;
      if (!asked) out.push_back(waiting_for{r->c, seq_of(r->c, seq_bits(r->tag_prefix)), r->tag_prefix, s.peer, s.ordinal});
    }
  }
  return out;
}

probe_answer runs_answer_probe(core::comm* c, uint64_t seq, int tag_prefix, int peer, uint32_t ordinal) {
  if (c->coll_seq <= seq) return probe_answer::not_reached;
  const uint32_t ctx = c->ctx + 1;
  auto has_send = [&](const plan* p, int prefix) {
    if (prefix != tag_prefix) return false;  // the other blocking bit
    for (const step& s : p->steps)
      if (s.kind == step_kind::send && s.peer == peer && s.ordinal == ordinal) return true;
    return false;
  };
  for (const run* r = g_live; r != nullptr; r = r->live_next)
    if (r->c == c && r->ctx == ctx && seq_bits(r->tag_prefix) == seq_bits(tag_prefix))
      return has_send(r->p, r->tag_prefix) ? probe_answer::sends : probe_answer::never_sends;
  for (const finished_run& f : g_finished)
    if (f.serial == c->serial && f.ctx == ctx && seq_bits(f.prefix) == seq_bits(tag_prefix))
      return f.prefix == tag_prefix && (f.sends & send_bit(peer, ordinal)) ? probe_answer::sends
                                                                           : probe_answer::never_sends;
  return probe_answer::sends;  // not known any more (or not a run here): say nothing
}

std::vector<pending_collective> runs_pending() {
  std::vector<pending_collective> out;
  for (run* r = g_live; r != nullptr; r = r->live_next) {
    core::comm* c = r->c;
    if (!checkable(r) || r->ctx != c->ctx + 1) continue;
    const uint64_t seq = seq_of(c, seq_bits(r->tag_prefix));
    auto it = std::find_if(out.begin(), out.end(), [c](const pending_collective& p) { return p.c == c; });
    if (it == out.end())
      out.push_back(pending_collective{c, seq});
    else
      it->seq = std::max(it->seq, seq);
  }
  return out;
}

bool runs_find_stray(stray_message* out) {
  // The candidate runs by (context, sequence bits of the tag): a message of another collective
  // never carries a pending run's sequence number (see make_tag_prefix).
  std::unordered_map<uint64_t, run*> by_key;
  std::vector<uint32_t> ctxs;
  for (run* r = g_live; r != nullptr; r = r->live_next) {
    if (!checkable(r)) continue;
    by_key[uint64_t(r->ctx) << 32 | seq_bits(r->tag_prefix)] = r;
    if (std::find(ctxs.begin(), ctxs.end(), r->ctx) == ctxs.end()) ctxs.push_back(r->ctx);
  }
  for (uint32_t ctx : ctxs) {
    const std::vector<p2p::waiting_message> msgs = p2p::unexpected_on(ctx);
    // 1. A message of a pending collective that its plan has no receive for, or no room for.
    for (const p2p::waiting_message& m : msgs) {
      if (m.tag < 0) continue;  // persistent collectives, communicator creation
      const auto it = by_key.find(uint64_t(ctx) << 32 | seq_bits(m.tag));
      if (it == by_key.end()) continue;
      const run* r = it->second;
      int64_t room = -1;
      // The blocking bit must agree too: blocking and nonblocking collectives never match.
      if ((m.tag & (1 << 30)) == (r->tag_prefix & (1 << 30))) {
        for (const step& s : r->p->steps)
          if (s.kind == step_kind::recv && s.peer == m.src && (r->tag_prefix | int(s.ordinal)) == m.tag)
            room = std::max(room, s.count * int64_t(s.type->size()));
      }
      if (room >= 0 && uint64_t(room) >= m.len) continue;
      *out = stray_message{r->c, r->p, r->tag_prefix, m.src, m.tag, m.len, room, false};
      out->ctx = ctx;
      out->seq = seq_of(r->c, seq_bits(r->tag_prefix));
      return true;
    }
    // 2. A message of a collective that finished here: the sender's plan had more for this rank.
    for (const p2p::waiting_message& m : msgs) {
      if (m.tag < 0 || by_key.count(uint64_t(ctx) << 32 | seq_bits(m.tag))) continue;
      for (const auto& [key, r] : by_key) {
        if (r->ctx != ctx) continue;
        for (const finished_run& f : g_finished) {
          if (f.serial != r->c->serial || f.ctx != ctx || seq_bits(f.prefix) != seq_bits(m.tag)) continue;
          *out = stray_message{r->c, nullptr, f.prefix, m.src, m.tag, m.len, -1, false};
          out->finished = true;
          out->ctx = ctx;
          out->seq = seq_of(r->c, seq_bits(f.prefix));
          return true;
        }
        break;  // every run of one context is of one communicator
      }
    }
    // 3. A blocking collective waits for a message from a rank that has sent messages of later
    // collectives: that rank's call had returned (every send of it had gone before them, and a
    // pair's messages arrive in order), so what this rank waits for will never come.
    for (const auto& [key, r] : by_key) {
      if (r->ctx != ctx || (r->tag_prefix & (1 << 30)) != 0) continue;
      const uint32_t mine = seq_bits(r->tag_prefix);
      for (uint32_t i = 0; i < r->p->steps.size(); ++i) {
        const step& s = r->p->steps[i];
        if (s.kind != step_kind::recv || !recv_waiting(r, i)) continue;
        for (const p2p::waiting_message& m : msgs) {
          const uint32_t ahead = (seq_bits(m.tag) - mine) & 0x3ffff;
          if (m.src != s.peer || m.tag < 0 || ahead == 0 || ahead >= 0x20000) continue;
          *out = stray_message{r->c, r->p, r->tag_prefix, m.src, m.tag, m.len, s.count * int64_t(s.type->size()), true};
          out->ctx = ctx;
          out->seq = seq_of(r->c, mine);
          return true;
        }
      }
    }
  }
  return false;
}

void run_pool_clear() {
  pool_lock g;
  for (run* r : g_run_pool) {
    std::free(r->tmp);
    delete r;
  }
  g_run_pool.clear();
}

namespace {
void release_run(run* r) {
  r->p->release();
  r->c->release();
  run_put(r);
}

void destroy_run(core::request* q) {
  run* r = static_cast<run*>(q->ext);
  if (!r) return;
  q->ext = nullptr;
  if (r->failed) {
    // Sends of a failed run may still wait for their cancellation: the last one recycles it.
    core::engine_guard g;
    if (in_flight(r, false)) {
      r->orphaned = true;
      r->user = nullptr;
      return;
    }
  }
  release_run(r);
}

errc refuse_free(core::request*) {
  return core::error_set(errc::request, "a nonblocking collective request cannot be freed; complete it with a wait or test");
}
errc refuse_cancel(core::request*) {
  return core::error_set(errc::request, "a nonblocking collective request cannot be cancelled");
}
const core::request_ops coll_request_ops{refuse_free, refuse_cancel, nullptr, destroy_run};
}  // namespace

void schedule_init() {
  if (g_registered) return;
  core::progress_add_poller(coll_poll);
  core::stall_add_checker(check_strays);
  g_registered = true;
}

unsigned long long coll_remote_bytes() { return g_remote_bytes.load(std::memory_order_relaxed); }
unsigned long long coll_remote_messages() { return g_remote_messages.load(std::memory_order_relaxed); }

uint64_t runs_in_flight() { return g_in_flight; }

namespace {
// A chain of local and shared-memory steps (plan::runs_inline) from step k, as far as it goes
// without waiting. Returns the first step not done (the plan's size: the collective is over).
uint32_t run_ahead(const plan* p, const poll_ctx& ctx, uint32_t k = 0) {
  const uint32_t n = static_cast<uint32_t>(p->steps.size());
  for (; k < n; ++k) {
    const step& s = p->steps[k];
    if (s.kind == step_kind::poll) {
      if (!s.fn(ctx, s)) break;
    } else if (s.kind == step_kind::reduce) {
      errc e = core::reduce_typed(*p->op, ctx.address(s.a), ctx.address(s.b), s.count, *s.type, type_abi_handle(s.type));
      if (e != errc::success) ctx.fail(e);
    } else {  // copy (runs_inline plans have no messages)
      uint64_t bytes = 0;
      (void)core::copy_typed(ctx.address(s.a), s.count, *s.type, ctx.address(s.b), s.count, *s.type, &bytes);
    }
  }
  return k;
}

// A nonblocking or persistent start of such a chain whose next step waits for a peer tries that
// step a few more times (core::poll_briefly) before it sets up a run and a request (8-byte
// Iallreduce at 2 ranks, alternating in one process: 0.297 -> 0.256 us, 1.23x -> 1.06x the
// blocking call; Ialltoall 0.290 -> 0.245).
uint32_t run_ahead_briefly(const plan* p, const poll_ctx& ctx) {
  uint32_t k = run_ahead(p, ctx);
  const uint32_t n = static_cast<uint32_t>(p->steps.size());
  if (k == n) return k;
  core::poll_briefly([&] {
    const step& s = p->steps[k];
    if (s.fn(ctx, s)) k = run_ahead(p, ctx, k + 1);
    return k == n;
  });
  return k;
}
}  // namespace

namespace {
// The blocking shared-memory collective this thread waits in (run_inline), for the stall
// watchdog: the ranks whose flags of that run have not come.
thread_local const poll_ctx* t_inline_wait = nullptr;

void describe_inline_wait(std::string& out) {
  const poll_ctx* x = t_inline_wait;
  if (x == nullptr || x->g == nullptr) return;
  const shm::region& g = *x->g;
  std::string missing;
  for (int r = 0; r < g.n; ++r)
    if (!g.has_arrived(r, x->seq)) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
  if (!out.empty()) out += "; ";
  out += "blocking shared-memory collective (run " + std::to_string(x->seq) + ") on " +
         (x->c->name.empty() ? "context " + std::to_string(x->c->ctx) : x->c->name) +
         (missing.empty() ? ": every rank has arrived, waiting for them to finish"
                          : ": waiting for rank" + std::string(missing.find(',') == std::string::npos ? " " : "s ") +
                                missing + " to arrive");
}
}  // namespace

errc run_inline(const plan* p, core::comm* c, const void* sendbuf, void* recvbuf, core::engine_guard& g) {
  if (!p->runs_inline) return core::error_set(errc::intern, "a plan with messages cannot run inline");
  void* base[max_slots] = {const_cast<void*>(sendbuf), recvbuf};
  errc error = errc::success;
  const poll_ctx ctx{c, shm::region_of(c), p->uses_shm ? ++c->coll_shm_seq : 0, base, p->op, &error};
  // Each step that has to wait is waited for here, then the chain goes on.
  const uint32_t n = static_cast<uint32_t>(p->steps.size());
  for (uint32_t k = run_ahead(p, ctx); k < n; k = run_ahead(p, ctx, k + 1)) {
    const step& s = p->steps[k];
    static const bool described = [] {
      core::stall_add_describer(describe_inline_wait);
      return true;
    }();
    (void)described;
    t_inline_wait = &ctx;
    bool failed = false;  // the mismatch check (src/coll/mismatch.cpp) failed the communicator's collectives
    core::progress_wait(g, [&ctx, &s, &failed, c] {
      if (s.fn(ctx, s)) return true;
      failed = c->coll_failed != errc::success;
      return failed;
    });
    t_inline_wait = nullptr;
    if (failed) return core::error_set(c->coll_failed, "%s", c->coll_failed_why.c_str());
  }
  return error;
}

namespace {
// A run of p on c with these buffers: references, temporaries and per-step state, not started.
run* make_run(const plan* p, core::comm* c, const void* sendbuf, void* recvbuf) {
  schedule_init();
  run* r = run_get();
  r->p = p;
  p->retain();
  r->c = c;
  c->retain();
  r->ctx = c->ctx + 1;
  r->g = shm::region_of(c);
  r->stalled_checks = 0;
  r->remaining_at_check = 0;
  r->base[slot_send] = const_cast<void*>(sendbuf);
  r->base[slot_recv] = recvbuf;
  int64_t total = 0;
  for (int k = 0; k < p->ntmp; ++k) total += (p->tmp_bytes[k] + 63) / 64 * 64;
  if (size_t(total) > r->tmp_cap) {
    std::free(r->tmp);
    r->tmp = static_cast<char*>(std::aligned_alloc(64, static_cast<size_t>(total)));
    r->tmp_cap = size_t(total);
  }
  int64_t at = 0;
  for (int k = 0; k < p->ntmp; ++k) {
    r->base[slot_tmp + k] = r->tmp + at;
    at += (p->tmp_bytes[k] + 63) / 64 * 64;
  }
  r->waiting.resize(p->steps.size());
  r->reqs.resize(p->steps.size());  // entries are null again once their step completes
  return r;
}

// Starts every step without dependencies; the run finishes inside when nothing waits. With
// `defer`, the steps are left to the next collective poll instead: with the progress thread on,
// a nonblocking call then only queues its run and that thread does all the work, the first
// copies of a shared-memory algorithm and the first messages included, so none of it is left
// in the application's path (plans whose steps move core::thread_work_min_bytes or more).
}  // namespace

bool plan_wants_thread(const plan* p) { return p->max_step_bytes >= int64_t(core::thread_work_min_bytes); }

namespace {

void launch(run* r, bool defer) {
  const plan* p = r->p;
  if (p->uses_shm) r->shm_seq = r->own ? ++r->starts : ++r->c->coll_shm_seq;
  ++r->c->coll_pending;
  ++g_in_flight;
  if (!r->bound) live_link(r);
  const uint32_t n = static_cast<uint32_t>(p->steps.size());
  r->remaining = n;
  r->error = errc::success;
  r->queued = true;  // completions during start-up are retired by the advance() below
  for (uint32_t i = 0; i < n; ++i) r->waiting[i] = p->steps[i].dep_end - p->steps[i].dep_begin;
  // Small collectives are over before a hand-off to the thread would pay: they start here (an
  // 8-byte Iallreduce deferred measured 1.35 us against 0.30 started inline).
  if (defer && n > 0 && plan_wants_thread(p)) {
    r->unstarted = true;
    g_ready.push_back(r);  // queued is set: advance() starts it
    return;
  }
  for (uint32_t i = 0; i < n; ++i)
    if (r->waiting[i] == 0) start_step(r, i);
  advance(r);
}
}  // namespace

namespace {
core::request* coll_request(run* r) {
  core::request* u = core::request_new(core::req_kind::coll);
  u->ops = &coll_request_ops;
  u->ext = r;
  u->c = nullptr;  // the run holds the communicator
  u->active = true;
  if (r) r->user = u;
  return u;
}

// The request of every nonblocking collective that completed without error inside its call: one
// immutable object, complete from the start, that completion calls report (empty status) and
// never delete (request::shared). Such a call allocates no request and no run (an 8-byte Ibcast
// is mostly such a call, at the root and at a receiver whose data arrived first).
core::request* done_request() {
  static core::request* const done = [] {
    core::request* u = new core::request;
    u->kind = core::req_kind::coll;
    u->ops = &coll_request_ops;
    u->active = true;
    u->shared = true;
    u->mark_complete();
    return u;
  }();
  return done;
}

// Launches r with its first k steps already done (by run_ahead): their successors wait only for
// the steps from k on.
void launch_at(run* r, uint32_t k, errc error) {
  const plan* p = r->p;
  ++r->c->coll_pending;
  ++g_in_flight;
  if (!r->bound) live_link(r);
  const uint32_t n = static_cast<uint32_t>(p->steps.size());
  r->remaining = n - k;
  r->error = error;
  r->queued = true;
  for (uint32_t i = k; i < n; ++i) {
    uint32_t w = 0;
    for (uint32_t d = p->steps[i].dep_begin; d < p->steps[i].dep_end; ++d) w += p->deps[d] >= k ? 1 : 0;
    r->waiting[i] = w;
  }
  for (uint32_t i = k; i < n; ++i)
    if (r->waiting[i] == 0) start_step(r, i);
  advance(r);
}
}  // namespace

core::request* coll_request_unattached() { return coll_request(nullptr); }

void coll_request_fail(core::request* u, errc e) {
  u->status = core::req_status{};
  u->status.error = e;
  u->mark_complete();
  if (core::rt().threaded) core::progress_kick();  // another thread may sleep waiting for it
}

namespace {
core::request* attach(core::request* into, run* r) {
  if (!into) return coll_request(r);
  into->ext = r;
  r->user = into;
  return into;
}
}  // namespace

errc run_start(const plan* p, core::comm* c, const void* sendbuf, void* recvbuf, int tag_prefix, core::request** out,
               uint32_t ctx, core::request* into) {
  // Nonblocking calls (tag bit 30) leave the work to the progress thread when it runs (for plans
  // that move enough to be worth the hand-off, see launch()).
  const bool defer = (tag_prefix & (1 << 30)) != 0 && core::progress_thread_active();
  if (p->runs_inline && !(defer && plan_wants_thread(p))) {
    // Local and shared-memory steps only: as far as they go now, without a run. A collective
    // whose data is all there (a broadcast's root, an allreduce whose peers published first) is
    // over before the call returns; the rest continues from the first step that has to wait.
    void* base[max_slots] = {const_cast<void*>(sendbuf), recvbuf};
    errc error = errc::success;
    const uint64_t seq = p->uses_shm ? ++c->coll_shm_seq : 0;
    const poll_ctx ctx{c, shm::region_of(c), seq, base, p->op, &error};
    const uint32_t k = run_ahead_briefly(p, ctx);
    if (k == p->steps.size()) {
      if (error == errc::success && !into) {
        *out = done_request();
        return errc::success;
      }
      core::request* u = into ? into : coll_request(nullptr);
      u->status.error = error;
      u->mark_complete();
      *out = u;
      return errc::success;
    }
    run* r = make_run(p, c, sendbuf, recvbuf);
    r->tag_prefix = tag_prefix;
    r->shm_seq = seq;
    *out = attach(into, r);
    launch_at(r, k, error);
    return errc::success;
  }
  run* r = make_run(p, c, sendbuf, recvbuf);
  r->tag_prefix = tag_prefix;
  if (ctx != 0) r->ctx = ctx;
  *out = attach(into, r);
  launch(r, defer);
  return errc::success;
}

errc run_bind(const plan* p, core::comm* c, const void* sendbuf, void* recvbuf, uint32_t persistent_id,
              shm::region* own, core::request* user, run** out) {
  if (p->uses_shm && !own) return core::error_set(errc::intern, "a persistent shared-memory plan needs its own region");
  run* r = make_run(p, c, sendbuf, recvbuf);
  r->bound = true;
  r->user = user;
  if (p->uses_shm) {
    r->own = own;
    r->g = own;
    r->starts = 0;
  }
  const uint32_t n = static_cast<uint32_t>(p->steps.size());
  r->completed.reserve(n);  // each step completes once per start
  r->polling.reserve(n);
  r->prepared.assign(n, nullptr);
  for (uint32_t i = 0; i < n; ++i) {
    const step& s = p->steps[i];
    if (s.kind != step_kind::send && s.kind != step_kind::recv) continue;
    r->prepared[i] = p2p::prepare_internal(
        s.kind == step_kind::send ? core::req_kind::send : core::req_kind::recv, address(r, s.a), s.count, s.type,
        s.peer, persistent_tag(persistent_id, s.ordinal), c, c->ctx + 1, on_bound_step_complete, r, i);
  }
  *out = r;
  return errc::success;
}

void run_restart(run* r) {
  core::request* u = r->user;
  u->status = core::req_status{};
  u->complete.store(false, std::memory_order_relaxed);
  const plan* p = r->p;
  const bool defer = core::progress_thread_active();
  if (p->runs_inline && !(defer && plan_wants_thread(p))) {
    // As run_start does: the chain of local and shared-memory steps as far as it goes now; a
    // start whose data is all there (a bcast root, the last rank of an allreduce to arrive)
    // completes here without entering the step machinery.
    if (p->uses_shm) r->shm_seq = r->own ? ++r->starts : ++r->c->coll_shm_seq;
    errc error = errc::success;
    const poll_ctx ctx{r->c, r->g, r->shm_seq, r->base, p->op, &error};
    const uint32_t k = run_ahead_briefly(p, ctx);
    if (k == p->steps.size()) {
      u->status.error = error;
      u->mark_complete();
      return;
    }
    launch_at(r, k, error);
    return;
  }
  launch(r, defer);
}

bool run_try_finish(run* r) {
  if (!r->polling.empty()) own_poll(r);
  if (!g_ready.empty()) run_ready();
  return r->user->is_complete();
}

void run_unbind(run* r) {
  own_poll_unlink(r);
  shm::region_destroy(r->own);
  for (core::request* q : r->prepared)
    if (q) p2p::release_prepared(q);
  std::free(r->tmp);
  r->p->release();
  r->c->release();
  delete r;
}

}  // namespace baton::coll
