// MPI_Match and its variants: one match request over any number of persistent requests.
#include <cstdint>
#include <unordered_set>
#include <vector>

#include "coll/coll.hpp"
#include "core/comm.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "p2p/matched.hpp"
#include "queue/queue.hpp"

namespace baton::queue {

namespace {

struct match_group {
  request* req = nullptr;  // the match request
  int pending = 0;
  errc error = errc::success;
};

void destroy_match_request(request* r) {
  if (r->c) r->c->release();
  core::request_delete(r);
}

void group_finish(match_group* g) {
  request* r = g->req;
  r->status.error = g->error;
  delete g;
  if (r->user_freed) {  // MPI_Request_free while pending: nobody retires it
    destroy_match_request(r);
    return;
  }
  r->mark_complete();
  if (core::rt().threaded) core::progress_kick();
}

void group_one_done(void* arg, errc e) {
  auto* g = static_cast<match_group*>(arg);
  if (e != errc::success && g->error == errc::success) g->error = e;
  if (--g->pending == 0) group_finish(g);
}

errc refuse_match_cancel(request*) {
  return core::error_set(errc::request, "a match request (MPI_Imatch / MPI_Imatchall) cannot be cancelled");
}

const core::request_ops match_request_ops{nullptr, refuse_match_cancel, nullptr, nullptr};

// ---- persistent collective requests ----
//
// Matching a persistent collective request is collective over its communicator and completes when
// every member's initialization has: each member starts an internal nonblocking barrier on the
// communicator (it consumes one collective sequence number, so members match their persistent
// collectives in the same order, as for any collective call) and the request is matched when the
// barrier completes. A poller watches the pending barriers.

struct coll_match {
  request* barrier;
  request* r;
  match_group* g;
};
std::vector<coll_match> g_coll_pending;  // engine lock
bool g_coll_poller = false;
char g_coll_matching;  // request::match of a collective request while its match runs

bool coll_match_poll() {
  if (g_coll_pending.empty()) return false;
  bool moved = false;
  for (size_t i = 0; i < g_coll_pending.size();) {
    if (!g_coll_pending[i].barrier->is_complete()) {
      ++i;
      continue;
    }
    coll_match m = g_coll_pending[i];
    g_coll_pending[i] = g_coll_pending.back();
    g_coll_pending.pop_back();
    const errc e = m.barrier->status.error;
    core::request_delete(m.barrier);  // a completed collective request: its run releases itself
    if (e == errc::success) {
      m.r->match_done = true;
    } else {
      m.r->match = nullptr;
    }
    group_one_done(m.g, e);
    moved = true;
  }
  return moved;
}

errc coll_match_begin(request* r, match_group* g) {
  coll::coll_args a;
  a.kind = coll::coll_kind::barrier;
  a.c = r->c;
  request* b = nullptr;
  if (errc e = coll::start(a, true, &b); e != errc::success) return e;
  r->match = &g_coll_matching;
  r->match_done = false;
  if (!g_coll_poller) {
    core::progress_add_poller(coll_match_poll);
    g_coll_poller = true;
  }
  g_coll_pending.push_back(coll_match{b, r, g});
  return errc::success;
}

bool is_persistent_collective(const request* r) {
  return r->kind == core::req_kind::coll && r->persistent;
}

}  // namespace

errc check_matchable(const request* r) {
  if (r->kind == core::req_kind::grequest)
    return core::error_set(errc::request, "a generalized request cannot be matched");
  if (r->kind == core::req_kind::match)
    return core::error_set(errc::request, "a match request cannot itself be matched");
  if (!r->persistent)
    return core::error_set(errc::request,
                           "only persistent requests can be matched (this one is nonblocking, not persistent)");
  if (r->match_done) return core::error_set(errc::request, "the request is already matched");
  if (r->match) return core::error_set(errc::request, "the request is being matched (MPI_Imatch pending)");
  if (r->active) return core::error_set(errc::request, "the request is active: only inactive requests can be matched");
  if (r->kind == core::req_kind::send || r->kind == core::req_kind::recv) return errc::success;
  if (is_persistent_collective(r)) return errc::success;
  return core::error_set(errc::request, "requests of this kind cannot be matched");
}

errc match_requests(request* const* rs, int n, core::comm* c, request** out) {
  core::engine_guard g;
  for (int i = 0; i < n; ++i) {
    if (errc e = check_matchable(rs[i]); e != errc::success) {
      if (n > 1) return core::error_set(e, "request %d of %d: %s", i, n, core::error_message().c_str());
      return e;
    }
  }
  if (n > 1) {  // the same request twice
    std::unordered_set<const request*> seen;
    for (int i = 0; i < n; ++i)
      if (!seen.insert(rs[i]).second)
        return core::error_set(errc::request, "request %d of %d appears twice in the array", i, n);
  }
  // Device-memory buffers get their staging now, before the match exchanges buffer addresses.
  for (int i = 0; i < n; ++i) {
    if (is_persistent_collective(rs[i])) continue;
    if (errc e = cuda_stage(rs[i]); e != errc::success) {
      for (int j = 0; j < i; ++j)
        if (rs[j]->device_stage) core::device_stage_release(rs[j]);
      if (n > 1) return core::error_set(e, "request %d of %d: %s", i, n, core::error_message().c_str());
      return e;
    }
  }
  request* mr = core::request_new(core::req_kind::match);
  mr->ops = &match_request_ops;
  mr->active = true;
  mr->c = c;
  if (c) c->retain();
  auto* grp = new match_group;
  grp->req = mr;
  grp->pending = n + 1;  // +1: held until every match has begun
  *out = mr;
  for (int i = 0; i < n; ++i) {
    errc e =
        is_persistent_collective(rs[i]) ? coll_match_begin(rs[i], grp) : p2p::match_begin(rs[i], group_one_done, grp);
    if (e != errc::success) group_one_done(grp, e);
  }
  group_one_done(grp, errc::success);
  return errc::success;
}

}  // namespace baton::queue
