// MPI_Cancel: unmatched receives, and sends whose message no receive matched yet.
#include "core/comm.hpp"
#include "core/datatype.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "p2p/engine_state.hpp"

namespace baton::p2p {

using core::send_mode;

errc cancel(request* r) {
  core::engine_guard g;
  if (r->kind == core::req_kind::send) {
    // Requests with hooks (buffered, matched) did their part in on_cancel.
    if (!r->ops) (void)cancel_send_locked(r);
    return errc::success;
  }
  if (r->kind != core::req_kind::recv) return errc::success;
  if (r->is_complete() || !(r->proto & proto_posted)) return errc::success;
  ctx_of(r->ctx).unpost(r);
  r->proto &= ~proto_posted;
  r->status.cancelled = true;
  r->status.source = any_source;
  r->status.tag = any_tag;
  r->status.bytes = 0;
  complete_request(r);
  return errc::success;
}

bool cancel_send_locked(request* r) {
  // (peer_world < 0: not a message, e.g. an MPI_Buffer_iflush request: it completes normally.)
  if ((r->proto & proto_cancel_wait) || r->status.cancelled || r->peer == proc_null || r->peer_world < 0) return false;
  engine& e = eng();
  const transport::route rt = transport::route_of(r->peer_world);
  const bool loopback = transport::caps_of(rt.via).loopback;
  if (r->is_complete()) {
    // Complete but not retired (the caller holds the request): an eager message to another rank
    // whose data has left may still wait unmatched in the receiver's queue, so ask for it like a
    // pending one; the request is pending again until the answer. A synchronous or rendezvous
    // send completes only once matched, a failed one never left, and a small message to oneself
    // was copied into the queue without a request to name it.
    if (loopback || r->status.error != errc::success || r->mode == send_mode::synchronous || (r->proto & proto_rndv))
      return false;
    r->complete.store(false, std::memory_order_release);
    ++e.pending_sends;  // finish_send_if_done counts it out again
  } else if (loopback) {
    // To oneself: only a message still holding the sender's buffer (synchronous or large) waits
    // in the queue with the request; a small one was copied and its send is complete already.
    if (!transport::up::withdraw(r->ctx, r->peer_world, r->tag, reinterpret_cast<uint64_t>(r)))
      return false;  // matched: the send completes with its receive
    r->status.cancelled = true;
    r->proto |= proto_data_out | proto_acked;
    finish_send_if_done(r);
    return true;
  }
  r->proto |= proto_cancel_wait;
  transport::cancel_send(r, rt);
  return true;
}

}  // namespace baton::p2p
