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
  if (r->is_complete()) {
    // Complete but not retired (the caller holds the request): an eager message to another rank
    // whose data has left may still wait unmatched in the receiver's queue, so ask for it like a
    // pending one; the request is pending again until the answer. A synchronous or rendezvous
    // send completes only once matched, a failed one never left, and a small message to oneself
    // was copied into the queue without a request to name it.
    if (r->peer_world == e.my_world || r->status.error != errc::success || r->mode == send_mode::synchronous ||
        (r->proto & proto_rndv))
      return false;
    r->complete.store(false, std::memory_order_release);
    ++e.pending_sends;  // finish_send_if_done counts it out again
  } else if (r->peer_world == e.my_world) {
    // To oneself: only a message still holding the sender's buffer (synchronous or large) waits
    // in the queue with the request; a small one was copied and its send is complete already.
    match_ctx& m = ctx_of(r->ctx);
    for (unexpected* u = m.uq_tail; u; u = u->prev) {
      if (u->kind != uq_kind::self || u->sreq != r) continue;
      m.remove_uq(u);
      delete u;
      r->status.cancelled = true;
      r->proto |= proto_data_out | proto_acked;
      finish_send_if_done(r);
      return true;
    }
    return false;  // matched: the send completes with its receive
  }
  r->proto |= proto_cancel_wait;
  if (core::rt().local_of_world[static_cast<size_t>(r->peer_world)] < 0) {
    remote::cancel_send(r);
    return true;
  }
  // Behind the message in the pair's FIFO: the receiver has all of it when the request arrives.
  send_ctrl(r->peer_world, pkt_cancel_req, reinterpret_cast<uint64_t>(r),
            uint64_t(r->ctx) | (uint64_t(uint32_t(r->tag)) << 32));
  return true;
}

bool withdraw_unexpected(uint32_t ctx, int peer_world, int tag, uint64_t cookie, void** remote_desc,
                         uint64_t* remote_len) {
  *remote_desc = nullptr;
  *remote_len = 0;
  match_ctx& m = ctx_of(ctx);
  // Newest first: the message of the send being cancelled arrived just before the request. An
  // older entry with the same cookie (a completed eager send whose request object was reused, or
  // an earlier start of a persistent request) has the same envelope, so it is matched before the
  // newer one: if the newer one is gone, so is every older one.
  for (unexpected* u = m.uq_tail; u; u = u->prev) {
    if (u->cookie != cookie || u->peer_world != peer_world || u->tag != tag || u->kind == uq_kind::self) continue;
    m.remove_uq(u);
    if (u->kind == uq_kind::remote_rndv) {
      *remote_desc = reinterpret_cast<void*>(u->addr);
      *remote_len = u->len;
    }
    if (u->data && u->data != u->inline_data) uq_buf_free(u->data, u->len);
    delete u;
    return true;
  }
  return false;
}

void cancel_answer(request* r, bool cancelled) {
  r->proto &= ~proto_cancel_wait;
  if (cancelled) {
    r->status.cancelled = true;
    const int l = core::rt().local_of_world[static_cast<size_t>(r->peer_world)];
    if (l >= 0) {
      // Shared memory: every byte of an eager message left before the request; a rendezvous
      // message was never read.
      if ((r->proto & proto_rndv) && !(r->proto & proto_data_out)) --eng().peers[static_cast<size_t>(l)].rndv_out;
      r->proto |= proto_data_out | proto_acked;
    } else {
      // UCX: no acknowledgement will come; the transport's operation still completes (data_out).
      r->proto |= proto_acked;
    }
  }
  finish_send_if_done(r);
}


}  // namespace baton::p2p
