#include "coll/schedule.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>

#include "core/comm.hpp"
#include "core/datatype.hpp"
#include "core/op.hpp"
#include "core/reduce.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"
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

uint8_t builder::temp(int64_t bytes) {
  uint8_t slot = static_cast<uint8_t>(slot_tmp + p_.ntmp);
  p_.tmp_bytes[p_.ntmp++] = bytes;
  return slot;
}

void builder::set_op(const core::op* op) {
  op->retain();
  p_.op = op;
}

void builder::finish() {
  const size_t n = p_.steps.size();
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
  // message ordinals per (peer, direction), in plan order
  std::map<int, uint32_t> sends, recvs;
  for (step& s : p_.steps) {
    if (s.kind == step_kind::send) s.ordinal = sends[s.peer]++ & 0xfff;
    if (s.kind == step_kind::recv) s.ordinal = recvs[s.peer]++ & 0xfff;
  }
}

// ---- execution ----

struct run {
  const plan* p = nullptr;
  core::comm* c = nullptr;
  void* base[max_slots] = {};
  char* tmp = nullptr;
  std::vector<uint32_t> waiting;
  std::vector<uint32_t> completed;  // finished steps not yet retired
  uint32_t remaining = 0;
  int tag_prefix = 0;
  bool queued = false;
  errc error = errc::success;
  core::request* user = nullptr;
  std::vector<core::request*> prepared;  // bound runs: step -> its prepared request (send/recv steps)
  bool bound = false;
};

namespace {
std::vector<run*> g_ready;
uint64_t g_in_flight = 0;
bool g_registered = false;

void queue(run* r) {
  if (r->queued) return;
  r->queued = true;
  g_ready.push_back(r);
}

void on_step_complete(core::request* q) {
  run* r = static_cast<run*>(q->ext);
  if (q->status.error != errc::success && r->error == errc::success) r->error = q->status.error;
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

void* type_handle(const core::datatype* t) {
  return t->is_predefined() ? reinterpret_cast<void*>(static_cast<uintptr_t>(t->abi_code()))
                            : const_cast<core::datatype*>(t);
}

void do_reduce(run* r, const step& s) {
  errc e = core::reduce_typed(*r->p->op, address(r, s.a), address(r, s.b), s.count, *s.type, type_handle(s.type));
  if (e != errc::success && r->error == errc::success) r->error = e;
}

void start_step(run* r, uint32_t idx) {
  const step& s = r->p->steps[idx];
  switch (s.kind) {
    case step_kind::send:
    case step_kind::recv:
      if (r->bound) {
        p2p::start_prepared(r->prepared[idx]);
        break;
      }
      (void)p2p::start_internal(s.kind == step_kind::send ? core::req_kind::send : core::req_kind::recv,
                                address(r, s.a), s.count, s.type, s.peer, r->tag_prefix | static_cast<int>(s.ordinal),
                                r->c, r->c->ctx + 1, on_step_complete, r, idx);
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
  }
}

void finish_run(run* r) {
  core::request* u = r->user;
  u->status = core::req_status{};
  u->status.error = r->error;
  --g_in_flight;
  core::progress_inflight_add(-1);
  --r->c->coll_pending;
  u->mark_complete();
  if (core::rt().threaded) core::progress_kick();  // another thread may sleep waiting for it
}

// Retires completed steps and starts their successors; finishes the run when nothing is left.
// The run is marked queued throughout, so completions that happen meanwhile only append to
// `completed`. Finishing is the last touch: a waiter may free the run right after.
void advance(run* r) {
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

bool coll_poll() {
  if (g_ready.empty()) return false;
  static std::vector<run*> batch;  // swapped with g_ready, so neither allocates in the steady state
  batch.swap(g_ready);
  for (run* r : batch) advance(r);
  batch.clear();
  return true;
}

void destroy_run(core::request* q) {
  run* r = static_cast<run*>(q->ext);
  if (!r) return;
  std::free(r->tmp);
  r->p->release();
  r->c->release();
  delete r;
  q->ext = nullptr;
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
  g_registered = true;
}

uint64_t runs_in_flight() { return g_in_flight; }

namespace {
// A run of p on c with these buffers: references, temporaries and per-step state, not started.
run* make_run(const plan* p, core::comm* c, const void* sendbuf, void* recvbuf) {
  schedule_init();
  run* r = new run;
  r->p = p;
  p->retain();
  r->c = c;
  c->retain();
  r->base[slot_send] = const_cast<void*>(sendbuf);
  r->base[slot_recv] = recvbuf;
  int64_t total = 0;
  for (int k = 0; k < p->ntmp; ++k) total += (p->tmp_bytes[k] + 63) / 64 * 64;
  if (total) r->tmp = static_cast<char*>(std::aligned_alloc(64, static_cast<size_t>(total)));
  int64_t at = 0;
  for (int k = 0; k < p->ntmp; ++k) {
    r->base[slot_tmp + k] = r->tmp + at;
    at += (p->tmp_bytes[k] + 63) / 64 * 64;
  }
  r->waiting.resize(p->steps.size());
  return r;
}

// Starts every step without dependencies; the run finishes inside when nothing waits.
void launch(run* r) {
  const plan* p = r->p;
  ++r->c->coll_pending;
  ++g_in_flight;
  core::progress_inflight_add(1);
  const uint32_t n = static_cast<uint32_t>(p->steps.size());
  r->remaining = n;
  r->error = errc::success;
  r->queued = true;  // completions during start-up are retired by the advance() below
  for (uint32_t i = 0; i < n; ++i) r->waiting[i] = p->steps[i].dep_end - p->steps[i].dep_begin;
  for (uint32_t i = 0; i < n; ++i)
    if (r->waiting[i] == 0) start_step(r, i);
  advance(r);
}
}  // namespace

errc run_start(const plan* p, core::comm* c, const void* sendbuf, void* recvbuf, int tag_prefix, core::request** out) {
  run* r = make_run(p, c, sendbuf, recvbuf);
  r->tag_prefix = tag_prefix;
  core::request* u = core::request_new(core::req_kind::coll);
  u->ops = &coll_request_ops;
  u->ext = r;
  u->c = nullptr;  // the run holds the communicator
  u->active = true;
  r->user = u;
  *out = u;
  launch(r);
  return errc::success;
}

errc run_bind(const plan* p, core::comm* c, const void* sendbuf, void* recvbuf, uint32_t persistent_id,
              core::request* user, run** out) {
  run* r = make_run(p, c, sendbuf, recvbuf);
  r->bound = true;
  r->user = user;
  const uint32_t n = static_cast<uint32_t>(p->steps.size());
  r->completed.reserve(n);  // each step completes once per start
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
  launch(r);
}

void run_unbind(run* r) {
  for (core::request* q : r->prepared)
    if (q) p2p::release_prepared(q);
  std::free(r->tmp);
  r->p->release();
  r->c->release();
  delete r;
}

}  // namespace baton::coll
