// Generalized requests (MPI-4.1 13.2): operations the application carries out itself, reported
// through the ordinary completion calls (abi_request.cpp calls the grequest_* functions below).
//
// `complete` (set by MPI_Grequest_complete) and `user_freed` (set by MPI_Request_free before
// completion) change under the engine lock, so whichever of the two calls comes last runs free_fn
// and destroys the request, as the standard asks. The user's callbacks always run without the
// engine lock: they may call MPI, and query_fn runs inside MPI_Wait while other threads progress.
#include <memory>
#include <string>

#include "abi/abi.hpp"
#include "core/progress.hpp"

using namespace baton;
using abi::call;
using core::errc;

namespace {

struct grequest_state {
  MPI_Grequest_query_function* query_fn = nullptr;
  MPI_Grequest_free_function* free_fn = nullptr;
  MPI_Grequest_cancel_function* cancel_fn = nullptr;
  void* extra_state = nullptr;
};

grequest_state* state_of(const core::request* r) { return static_cast<grequest_state*>(r->ext); }

// An MPI error code a callback returned, as the core's error value (codes and classes share one
// numbering, abi::to_mpi), so that the code reaches the user unchanged.
errc from_callback(int code) { return static_cast<errc>(code); }

// MPI_Cancel (no engine lock held): cancel_fn learns whether MPI_Grequest_complete was called.
errc on_cancel(core::request* r) {
  const grequest_state* s = state_of(r);
  const int rc = s->cancel_fn(s->extra_state, r->is_complete() ? 1 : 0);
  if (rc == MPI_SUCCESS) return errc::success;
  return core::error_set(from_callback(rc), "the generalized request's cancel_fn returned error code %d", rc);
}

void on_destroy(core::request* r) {
  delete state_of(r);
  r->ext = nullptr;
}

// MPI_Request_free is handled by abi::grequest_free; nothing to start, nothing to poll.
const core::request_ops grequest_ops{nullptr, on_cancel, nullptr, on_destroy};

// Runs query_fn on st, or on a scratch status for MPI_STATUS_IGNORE. The status starts out as the
// empty status (MPI_ERROR left as is: only the multiple-completion calls set it) so that fields
// query_fn does not set hold defined values.
int run_query(const grequest_state* s, MPI_Status* st) {
  MPI_Status scratch{};
  MPI_Status* out = st == MPI_STATUS_IGNORE ? &scratch : st;
  out->MPI_SOURCE = MPI_ANY_SOURCE;
  out->MPI_TAG = MPI_ANY_TAG;
  abi::set_status_bytes(out, 0);
  out->MPI_internal[2] = 0;
  return s->query_fn(s->extra_state, out);
}

// Runs free_fn and destroys r (its state with it). Returns free_fn's code.
int run_free_and_destroy(core::request* r) {
  const grequest_state* s = state_of(r);
  const int rc = s->free_fn(s->extra_state);
  core::request_delete(r);
  return rc;
}

}  // namespace

namespace baton::abi {

errc grequest_query(core::request* r, MPI_Status* st) {
  const int rc = run_query(state_of(r), st);
  if (rc == MPI_SUCCESS) return errc::success;
  return core::error_set(from_callback(rc), "the generalized request's query_fn returned error code %d", rc);
}

errc grequest_retire(core::request* r, MPI_Status* st) {
  const int q = run_query(state_of(r), st);
  const int f = run_free_and_destroy(r);
  if (q != MPI_SUCCESS && f != MPI_SUCCESS)
    return core::error_set(from_callback(q),
                           "the generalized request's query_fn returned error code %d (and its free_fn %d)", q, f);
  if (q != MPI_SUCCESS)
    return core::error_set(from_callback(q), "the generalized request's query_fn returned error code %d", q);
  if (f != MPI_SUCCESS)
    return core::error_set(from_callback(f), "the generalized request's free_fn returned error code %d", f);
  return errc::success;
}

errc grequest_free(core::request* r) {
  bool completed = false;
  {
    core::engine_guard g;
    completed = r->is_complete();
    if (!completed) r->user_freed = true;  // MPI_Grequest_complete runs free_fn
  }
  if (!completed) return errc::success;
  const int f = run_free_and_destroy(r);
  if (f == MPI_SUCCESS) return errc::success;
  return core::error_set(from_callback(f), "the generalized request's free_fn returned error code %d", f);
}

}  // namespace baton::abi

namespace baton::impl {

int MPI_Grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                        MPI_Grequest_cancel_function* cancel_fn, void* extra_state, MPI_Request* request) {
  const char* fn = "MPI_Grequest_start";
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  if (!request) {
    (void)core::error_set(errc::arg, "NULL request pointer");
    return abi::raise(fn, nullptr, errc::arg);
  }
  if (!query_fn || !free_fn || !cancel_fn) {
    (void)core::error_set(errc::arg, "%s is NULL (the standard requires all three callbacks: query_fn, free_fn, "
                          "cancel_fn)", !query_fn ? "query_fn" : !free_fn ? "free_fn" : "cancel_fn");
    return abi::raise(fn, nullptr, errc::arg);
  }
  return call(fn, nullptr, [&] {
    auto s = std::make_unique<grequest_state>();
    s->query_fn = query_fn;
    s->free_fn = free_fn;
    s->cancel_fn = cancel_fn;
    s->extra_state = extra_state;
    core::request* r = core::request_new(core::req_kind::grequest);
    r->ops = &grequest_ops;
    r->ext = s.release();
    r->active = true;  // active and incomplete until MPI_Grequest_complete
    *request = abi::to_handle(r);
    return errc::success;
  });
}

int MPI_Grequest_complete(MPI_Request request) {
  const char* fn = "MPI_Grequest_complete";
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  core::request* r = nullptr;
  if (errc e = abi::check_request(request, &r); e != errc::success) return abi::raise(fn, nullptr, e);
  if (!r) {
    (void)core::error_set(errc::request, "the request is MPI_REQUEST_NULL");
    return abi::raise(fn, nullptr, errc::request);
  }
  if (r->kind != core::req_kind::grequest) {
    (void)core::error_set(errc::request,
                          "the request is not a generalized request (only requests made by MPI_Grequest_start "
                          "can be completed with MPI_Grequest_complete)");
    return abi::raise(fn, r->c, errc::request);
  }
  bool twice = false, freed = false;
  {
    core::engine_guard g;
    twice = r->is_complete();
    freed = r->user_freed;
    if (!twice) {
      r->mark_complete();
      // A thread may sleep in a completion call waiting for it. Once the lock is released, that
      // thread may retire and destroy r: nothing below touches r unless it was freed (then
      // nobody else holds it).
      if (!freed) core::progress_kick();
    }
  }
  if (twice) {
    (void)core::error_set(errc::request, "MPI_Grequest_complete was already called on this generalized request");
    return abi::raise(fn, nullptr, errc::request);
  }
  if (!freed) return MPI_SUCCESS;
  const int f = run_free_and_destroy(r);
  if (f == MPI_SUCCESS) return MPI_SUCCESS;
  (void)core::error_set(from_callback(f), "the generalized request's free_fn returned error code %d", f);
  return abi::raise(fn, nullptr, from_callback(f));
}

}  // namespace baton::impl
