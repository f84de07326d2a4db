// Completion of requests of every kind (MPI-4.1 3.7.3-3.9): whether a request is pending or ready
// to report, how the completion calls wait and poll, and what retiring, freeing, cancelling and
// starting a request do to it. src/abi/abi_request.cpp is the binding around it (handles,
// statuses, argument checks, error handlers, and the callbacks of generalized requests, which
// take MPI_Status).
//
// A completion call *retires* a complete request: a nonpersistent one is freed (its handle
// becomes MPI_REQUEST_NULL), a persistent one becomes inactive. Null and inactive requests have
// nothing to report (the empty status).
#pragma once

#include "core/progress.hpp"
#include "core/request.hpp"
#include "p2p/p2p.hpp"

namespace baton::p2p {

using core::errc;

// An active request whose operation has not completed yet.
inline bool pending(const core::request* r) { return r && r->active && !r->is_complete(); }
// A request that a completion call would report now: active and complete.
inline bool reportable(const core::request* r) { return r && r->active && r->is_complete(); }

// Drops the request's references (communicator, datatype) and frees it.
void request_destroy(core::request* r);

// Retires a complete request that is not a generalized one: report(r->status) sees its status,
// then a persistent r becomes inactive and another is destroyed. Returns whether r was destroyed.
// (A template: MPI_Wait's path would otherwise copy the status out.)
template <class Report>
inline bool request_retire(core::request* r, Report&& report) {
  report(r->status);
  if (r->persistent) {
    r->active = false;
    return false;
  }
  request_destroy(r);
  return true;
}

// Drives progress until done() has held once (core::progress_wait under the engine lock). A
// template, not std::function: the completion calls' predicates capture more than fits inline
// and would allocate at every wait.
template <class Done>
void wait_until(Done&& done) {
  core::engine_guard g;
  core::progress_wait(g, done);
}

// One round of progress for the test calls: every subsystem polls once (progress_poll_test: a test
// loop that moves nothing for 100 ms runs the stall checks).
void poll_once();
// MPI_Test of one request: a kind that can move itself on (request_ops::on_poll) tries that first,
// then the whole engine polls once.
void poll_once(core::request* r);

// Scans at(0) .. at(n - 1) (each a request or nullptr): the index of the first reportable one, or
// -1; *any_active says whether any is active.
template <class At>
int first_reportable(int n, At&& at, bool* any_active) {
  *any_active = false;
  for (int i = 0; i < n; ++i) {
    const core::request* r = at(i);
    if (!r || !r->active) continue;
    *any_active = true;
    if (r->is_complete()) return i;
  }
  return -1;
}

// MPI_Request_free of a request that is not a generalized one: its on_free hook runs, then it is
// freed now, or, while its operation is pending, marked so that the engine frees it when it
// completes.
[[nodiscard]] errc request_free(core::request* r);

// MPI_Cancel: the request's on_cancel hook, or the point-to-point cancel (p2p::cancel) of an
// active request; errc::request for an inactive persistent one.
[[nodiscard]] errc request_cancel(core::request* r);

// The error of a request start_check refuses (cold: the message says why).
[[nodiscard]] errc start_refused(const core::request* r);

// Whether MPI_Start may start r (not enqueued): it must be persistent, not being matched and
// inactive (errc::request naming which), and not staged on CUDA device memory (errc::buffer: such
// a request starts on a CUDA queue only). Inline: it is on every MPI_Start's path.
[[nodiscard]] inline errc start_check(const core::request* r) {
  if (!r->persistent) [[unlikely]]
    return start_refused(r);
  if (r->match && !r->match_done) [[unlikely]]
    return start_refused(r);
  if (r->active || r->device_stage) [[unlikely]]
    return start_refused(r);
  return errc::success;
}
// start_check, then p2p::start.
[[nodiscard]] inline errc request_start(core::request* r) {
  if (errc e = start_check(r); e != errc::success) [[unlikely]]
    return e;
  return start(r);
}

}  // namespace baton::p2p
