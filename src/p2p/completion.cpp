// Completion, freeing, cancelling and starting of requests of every kind (p2p/completion.hpp).
#include "p2p/completion.hpp"

#include "core/comm.hpp"
#include "core/datatype.hpp"
#include "p2p/engine_state.hpp"

namespace baton::p2p {

void request_destroy(core::request* r) {
  if (r->c) r->c->release();
  if (r->dt) const_cast<core::datatype*>(r->dt)->release();
  core::request_delete(r);
}

void poll_once() {
  core::engine_guard g;
  core::progress_poll_test();
}

void poll_once(core::request* r) {
  core::engine_guard g;
  if (r->ops && r->ops->on_poll && r->ops->on_poll(r)) return;
  core::progress_poll_test();
}

errc request_free(core::request* r) {
  if (r->match && !r->match_done)
    return core::error_set(errc::request, "the request is being matched (MPI_Imatch pending): complete the match first");
  if (r->ops && r->ops->on_free) {
    if (errc e = r->ops->on_free(r); e != errc::success) return e;
  }
  core::engine_guard g;
  if (r->active && !r->is_complete()) {
    r->user_freed = true;  // the engine frees it when the operation completes
    if (counts_as_freed_recv(r)) ++eng().freed_recvs;
  } else {
    request_destroy(r);
  }
  return errc::success;
}

errc request_cancel(core::request* r) {
  if (r->ops && r->ops->on_cancel) {
    if (errc e = r->ops->on_cancel(r); e != errc::success) return e;
  }
  if (!r->active) return core::error_set(errc::request, "cannot cancel an inactive persistent request");
  return cancel(r);
}

errc start_refused(const core::request* r) {
  if (!r->persistent) return core::error_set(errc::request, "cannot start a request that is not persistent");
  if (r->match && !r->match_done)
    return core::error_set(errc::request, "the request is being matched (MPI_Imatch pending): complete the match first");
  if (r->active)
    return core::error_set(errc::request, "the persistent request is already active (started and not completed)");
  return core::error_set(errc::buffer,
                         "the request's buffer is CUDA device memory: start it with MPI_Enqueue_start on a queue "
                         "of type MPIX_QUEUE_TYPE_CUDA");
}

}  // namespace baton::p2p
