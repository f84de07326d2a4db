// The point-to-point engine: matching, the send modes' dispatch to the transports
// (transport/dispatch.hpp), completion, and the public entry points (p2p.hpp). What the
// transports call back is in arrival.cpp; probes in probe.cpp, cancel in cancel.cpp, Isendrecv /
// Sendrecv in sendrecv.cpp.
#include <algorithm>
#include <atomic>
#include <cstdlib>

#include "core/comm.hpp"
#include "core/datatype.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "p2p/engine_state.hpp"
#include "p2p/partitioned.hpp"

namespace baton::p2p {

using core::req_status;
using core::send_mode;

namespace {
engine* g_engine = nullptr;
}  // namespace

engine_limits engine_limits_now() { return transport::limits_now(); }

engine_queues engine_queues_now() {
  engine_queues q;
  core::engine_guard g;
  if (!g_engine) return q;
  for (const match_ctx* m : g_engine->ctxs) {
    if (!m) continue;
    q.unexpected += m->uq_n;
    q.posted += m->posted_n;
  }
  q.pending_sends = g_engine->pending_sends;
  q.fetches_handed_over = g_engine->handed_over_total;
  return q;
}

namespace {

// Counts a starting request in its communicator's p2p_pending for MPI_Comm_disconnect (undone by
// complete_request). MPI_COMM_WORLD and MPI_COMM_SELF, which disconnect refuses, skip it: a
// read-modify-write per start and per completion is about 2% of an 8-byte message in a stream.
inline void count_pending(request* r) {
  r->counted = !r->c->predefined;
  if (r->counted) ++r->c->p2p_pending;
}

}  // namespace

void start_send(request* r) {
  engine& e = eng();
  r->done = 0;
  r->proto = 0;
  r->status = core::req_status{};
  r->complete.store(false, std::memory_order_relaxed);
  count_pending(r);
  if (r->peer == proc_null) {
    r->status.source = proc_null;
    r->status.tag = any_tag;
    complete_request(r);
    return;
  }
  r->total = static_cast<uint64_t>(r->count) * static_cast<uint64_t>(r->dt->size());
  const int wr = r->c->world_rank(r->peer);
  r->peer_world = wr;
  ++e.pending_sends;
  // The protocol from the peer's transport's capabilities: eager up to its limit (a synchronous
  // send only where the transport acknowledges eager matches), rendezvous past it.
  const transport::route rt = transport::route_of(wr);
  const transport::caps& cp = transport::caps_of(rt.via);
  const bool sync = r->mode == send_mode::synchronous;
  if (!sync) r->proto |= proto_acked;
  if (r->total <= cp.eager_max && (!sync || cp.eager_sync)) {
    transport::send_eager(r, rt);
  } else {
    r->proto |= proto_rndv;
    transport::send_rndv(r, rt);
  }
}

namespace {
// Sends a small standard- or ready-mode message within the call where the peer's transport takes
// it (transport::inject); false when it does not (synchronous, too large, or not now). `cookie`:
// the request the message stands for (0: a blocking send, which has none).
inline bool inject_small(comm* c, int tag, const void* buf, int64_t count, const datatype* dt, send_mode mode,
                         transport::route rt, uint64_t bytes, uint64_t cookie) {
  return mode != send_mode::synchronous && bytes <= transport::caps_of(rt.via).inject_max &&
         transport::inject(rt, transport::envelope{c->ctx, c->rank, tag, eng().my_world, bytes, cookie, false}, buf,
                           count, dt);
}

// A nonblocking send that inject_small takes: the request is complete at once, without
// start_send's queue, emission and completion steps (an 8-byte MPI_Isend through shared memory:
// about 600 instructions before, 500 now, callgrind). The message carries the request as its
// cookie, so that MPI_Cancel of the complete request can still ask the receiver to withdraw it.
bool start_send_injected(request* r) {
  if (r->peer == proc_null) return false;
  const uint64_t bytes = static_cast<uint64_t>(r->count) * static_cast<uint64_t>(r->dt->size());
  const int wr = r->c->world_rank(r->peer);
  if (!inject_small(r->c, r->tag, r->buf, r->count, r->dt, r->mode, transport::route_of(wr), bytes,
                    reinterpret_cast<uint64_t>(r)))
    return false;
  r->done = r->total = bytes;
  r->proto = proto_data_out | proto_acked;
  r->status = core::req_status{};
  r->counted = false;
  r->peer_world = wr;
  r->mark_complete();
  return true;
}
}  // namespace

namespace {
// The poller of handed-over fetches (registered on first use): delivers each as start_recv would
// have, now from whichever thread polls (the progress thread while the application computes or
// sleeps, or the application's own wait).
bool fetch_handed_over() {
  if (!g_engine || g_engine->handed_over.empty()) return false;
  std::vector<std::pair<request*, unexpected*>> now;
  now.swap(g_engine->handed_over);
  for (auto [r, u] : now) deliver_unexpected(r, u);
  return true;
}
}  // namespace

void start_recv(request* r, bool hand_over) {
  r->done = 0;
  r->proto = 0;
  r->matched_ = false;
  r->status = core::req_status{};
  r->complete.store(false, std::memory_order_relaxed);
  count_pending(r);
  if (r->peer == proc_null) {
    r->status.source = proc_null;
    r->status.tag = any_tag;
    complete_request(r);
    return;
  }
  r->total = static_cast<uint64_t>(r->count) * static_cast<uint64_t>(r->dt->size());
  match_ctx& m = ctx_of(r->ctx);
  if (unexpected* u = m.find_uq(r->peer, r->tag)) {
    m.remove_uq(u);
    // The receive is matched now (message order holds; MPI_Cancel finds it matched); only the
    // copy, a single copy of the whole message at this end, waits for the progress thread.
    if (hand_over && u->kind == uq_kind::rndv && u->len >= hand_over_min && core::progress_thread_active()) {
      r->matched_ = true;
      if (g_engine->handed_over.empty()) core::progress_add_poller(fetch_handed_over);
      g_engine->handed_over.emplace_back(r, u);
      ++g_engine->handed_over_total;
      return;
    }
    deliver_unexpected(r, u);
    return;
  }
  r->proto |= proto_posted;
  m.post(r);
}

request* make_p2p(core::req_kind kind, const void* buf, int64_t count, const datatype* dt, int peer, int tag,
                  comm* c) {
  request* r = core::request_new(kind);
  r->buf = const_cast<void*>(buf);
  r->count = count;
  r->dt = dt;
  const_cast<datatype*>(dt)->retain();
  r->c = c;
  c->retain();
  r->ctx = c->ctx;
  r->peer = peer;
  r->tag = tag;
  return r;
}

engine& eng() { return *g_engine; }

match_ctx& ctx_of_slow(uint32_t ctx) {
  auto& v = eng().ctxs;
  if (ctx >= v.size()) v.resize(std::max<size_t>(ctx + 1, v.size() * 2), nullptr);
  if (!v[ctx]) v[ctx] = new match_ctx;
  return *v[ctx];
}

void release_request(request* r) {
  r->c->release();
  const_cast<datatype*>(r->dt)->release();
  core::request_delete(r);
}

void complete_request(request* r) {
  // Everything that reads the request happens before it is marked complete: from then on another
  // thread may retire and free it.
  if (r->bsend_block) {
    bsend_release(r->bsend_block);
    r->bsend_block = nullptr;
  }
  if (r->counted) {
    r->counted = false;
    --r->c->p2p_pending;
  }
  if (r->on_complete) {
    r->mark_complete();
    r->on_complete(r);  // internal request: its owner takes it from here
    return;
  }
  if (r->user_freed) {
    // A buffered send's internal request that an MPI_Ibsend / MPI_Bsend_init request follows may
    // be kept (complete) for a later MPI_Cancel.
    if (r->ext && r->kind == core::req_kind::send && !r->ops && bsend_internal_done(r)) return;
    // MPI_Request_free was called while pending: nobody will retire it.
    if (counts_as_freed_recv(r)) --eng().freed_recvs;
    release_request(r);
    return;
  }
  r->mark_complete();
  if (core::rt().threaded) core::progress_kick();  // another thread may sleep waiting for it
}

void finish_send_if_done(request* r) {
  // Not before the answer to a cancel request either (it names this request).
  if ((r->proto & (proto_data_out | proto_acked | proto_cancel_wait)) != (proto_data_out | proto_acked)) return;
  if (r->is_complete()) return;
  --eng().pending_sends;
  complete_request(r);
}

void stall_describer_register();  // stall_describe.cpp: what this rank waits on, for the watchdog

errc engine_init() {
  g_engine = new engine;
  engine& e = *g_engine;
  core::runtime& R = core::rt();
  e.my_world = R.world_rank;
  uq_bufs_init(static_cast<uint32_t>(R.world_of_local.size()));
  if (errc err = transport::init(); err != errc::success) return err;
  stall_describer_register();
  return errc::success;
}

void engine_finalize() {
  if (!g_engine) return;
  partitioned_finalize();
  transport::finalize();
  // Under the engine lock: engine_queues_now() may read the queues from another thread.
  core::engine_guard g;
  core::progress_remove_poller(fetch_handed_over);
  for (auto [r, u] : g_engine->handed_over) unexpected_free(u);  // receives left pending: erroneous
  g_engine->handed_over.clear();
  for (match_ctx*& m : g_engine->ctxs) {
    if (!m) continue;
    while (unexpected* u = m->uq_head) {
      m->remove_uq(u);
      unexpected_free(u);
    }
    delete m;
    m = nullptr;
  }
  engine* gone = g_engine;
  g_engine = nullptr;
  g.unlock();
  uq_bufs_release();
  delete gone;
}

bool poll() {
  core::engine_guard g;
  return core::progress_poll();
}

errc isend(const void* buf, int64_t count, const datatype* dt, int dest, int tag, comm* c, send_mode mode,
           request** out) {
  core::engine_guard g;
  request* r = make_p2p(core::req_kind::send, buf, count, dt, dest, tag, c);
  r->mode = mode;
  r->active = true;
  *out = r;
  if (start_send_injected(r)) return errc::success;
  start_send(r);
  core::progress_new_work();
  return errc::success;
}

errc irecv(void* buf, int64_t count, const datatype* dt, int source, int tag, comm* c, request** out) {
  core::engine_guard g;
  request* r = make_p2p(core::req_kind::recv, buf, count, dt, source, tag, c);
  r->active = true;
  start_recv(r, true);
  *out = r;
  core::progress_new_work();
  return errc::success;
}

errc send_init(const void* buf, int64_t count, const datatype* dt, int dest, int tag, comm* c, send_mode mode,
               request** out) {
  request* r = make_p2p(core::req_kind::send, buf, count, dt, dest, tag, c);
  r->mode = mode;
  r->persistent = true;
  r->mark_complete();  // an inactive request tests complete
  *out = r;
  return errc::success;
}

errc recv_init(void* buf, int64_t count, const datatype* dt, int source, int tag, comm* c, request** out) {
  request* r = make_p2p(core::req_kind::recv, buf, count, dt, source, tag, c);
  r->persistent = true;
  r->mark_complete();
  *out = r;
  return errc::success;
}

errc start(request* r) {
  if (r->active)
    return core::error_set(errc::request, "the persistent request is already active (started and not completed)");
  if (r->ops && r->ops->on_start) {
    r->active = true;
    return r->ops->on_start(r);  // takes the engine lock itself
  }
  core::engine_guard g;
  r->active = true;
  if (r->kind == core::req_kind::send) {
    if (r->mode == send_mode::buffered) return errc::success;  // the ABI layer routes Bsend_init starts
    if (start_send_injected(r)) return errc::success;
    start_send(r);
  } else {
    start_recv(r, true);
  }
  core::progress_new_work();
  return errc::success;
}

errc wait(request* r) {
  core::engine_guard g;
  if (r->ops && r->ops->on_poll) {
    core::progress_wait(g, [r] { return r->is_complete() || r->ops->on_poll(r); });
    return errc::success;
  }
  core::progress_wait(g, [r] { return r->is_complete(); });
  return errc::success;
}

errc send(const void* buf, int64_t count, const datatype* dt, int dest, int tag, comm* c, send_mode mode) {
  if (dest == proc_null) return errc::success;
  core::engine_guard g;
  const int wr = c->world_rank(dest);
  const uint64_t bytes = static_cast<uint64_t>(count) * static_cast<uint64_t>(dt->size());
  // A small message the transport takes within the call needs no request.
  if (inject_small(c, tag, buf, count, dt, mode, transport::route_of(wr), bytes, 0)) return errc::success;
  request r;
  stack_request(r, core::req_kind::send, buf, count, dt, dest, tag, c, mode);
  start_send(&r);
  core::progress_wait(g, [&r] { return r.is_complete(); });
  return r.status.error;
}

errc recv(void* buf, int64_t count, const datatype* dt, int source, int tag, comm* c, req_status* st) {
  core::engine_guard g;
  request r;
  stack_request(r, core::req_kind::recv, buf, count, dt, source, tag, c, send_mode::standard);
  start_recv(&r);
  core::progress_wait(g, [&r] { return r.is_complete(); });
  if (st) *st = r.status;
  return r.status.error;
}

}  // namespace baton::p2p


namespace baton::p2p {
void flush() {
  if (!g_engine) return;
  core::engine_guard g;
  // Every send this rank started must complete before it leaves: a peer may still need this rank
  // to answer a rendezvous or to emit queued acknowledgements. So must every receive the
  // application freed while pending (MPI_Request_free): its sender may be waiting for this rank
  // to fetch a rendezvous message, and would wait forever once this rank had gone.
  core::progress_wait(g, [] {
    const engine& e = eng();
    return transport::quiet() && e.pending_sends == 0 && e.freed_recvs == 0;
  });
}
}  // namespace baton::p2p

namespace baton::p2p {

namespace {
// An internal request with its arguments set, not started.
request* internal_request(core::req_kind kind, void* buf, int64_t count, const datatype* dt, int peer, int tag,
                          comm* c, uint32_t ctx, void (*on_complete)(request*), void* owner, uint32_t step) {
  request* r = core::request_new(kind);
  r->buf = buf;
  r->count = count;
  r->dt = dt;
  r->c = c;
  r->ctx = ctx;
  r->peer = peer;
  r->tag = tag;
  r->on_complete = on_complete;
  r->ext = owner;
  r->step = step;
  return r;
}
}  // namespace

request* prepare_internal(core::req_kind kind, void* buf, int64_t count, const datatype* dt, int peer, int tag, comm* c,
                          uint32_t ctx, void (*on_complete)(request*), void* owner, uint32_t step) {
  request* r = internal_request(kind, buf, count, dt, peer, tag, c, ctx, on_complete, owner, step);
  if (kind == core::req_kind::recv) ctx_of(ctx).pin(peer, tag);
  return r;
}

void release_prepared(request* r) {
  if (r->kind == core::req_kind::recv) ctx_of(r->ctx).unpin(r->peer, r->tag);
  core::request_delete(r);
}

void start_prepared(request* r) {
  r->active = true;
  if (r->kind == core::req_kind::send) {
    start_send(r);
  } else {
    start_recv(r);
  }
}

request* start_internal(core::req_kind kind, void* buf, int64_t count, const datatype* dt, int peer, int tag, comm* c,
                        uint32_t ctx, void (*on_complete)(request*), void* owner, uint32_t step) {
  request* r = internal_request(kind, buf, count, dt, peer, tag, c, ctx, on_complete, owner, step);
  start_prepared(r);
  return r;
}

}  // namespace baton::p2p

namespace baton::p2p {
void wake_local_ranks(const uint32_t* locals, int n) { transport::shm::wake_local_ranks(locals, n); }
}  // namespace baton::p2p
