// Internal state of the point-to-point engine (matching, send modes, completion), shared by its
// source files. The transports below it are reached through transport/dispatch.hpp.
#pragma once

#include <vector>

#include "core/comm.hpp"
#include "core/request_bytes.hpp"
#include "p2p/match.hpp"
#include "p2p/p2p.hpp"
#include "transport/dispatch.hpp"

namespace baton::p2p {

using core::copy_in;
using core::copy_out;

// request::proto bits: the ones transports set (transport.hpp) and matching's own above them.
enum : uint32_t {
  proto_data_out = transport::sent_data_out,  // every byte has left the user buffer
  proto_acked = transport::sent_acked,        // the receiver matched (synchronous mode) or no acknowledgement is needed
  proto_rndv = transport::sent_rndv,          // rendezvous protocol
  proto_posted = 8,                           // receive: in a posted queue
  proto_bsend_internal = 16,  // send from the attached buffer on behalf of MPI_Bsend
  proto_cancel_wait = 32,  // MPI_Cancel asked the receiver to withdraw it: no completion before the answer
};

struct engine {
  std::vector<match_ctx*> ctxs;  // by context id
  int my_world = 0;
  uint64_t pending_sends = 0;  // sends started and not yet complete (MPI_Finalize waits for them)
  // Point-to-point receives freed (MPI_Request_free) while pending: MPI_Finalize completes them
  // too, since a rendezvous sender waits for this rank to fetch its data.
  uint64_t freed_recvs = 0;  // (those counts_as_freed_recv says)
  // Rendezvous messages a nonblocking receive start matched while the progress thread runs: the
  // next poll fetches their data (fetch_handed_over), not the MPI_Irecv or MPI_Start call.
  std::vector<std::pair<request*, unexpected*>> handed_over;
  uint64_t handed_over_total = 0;  // ever (the baton_p2p_fetches_handed_over counter)
};

// A request that engine::freed_recvs counts once the application frees it while pending: a
// point-to-point receive (other kinds end through their own hooks).
inline bool counts_as_freed_recv(const request* r) { return r->kind == core::req_kind::recv && !r->ops; }

engine& eng();
// The matching context with id ctx, made on first use (ctx_of_slow grows the table).
match_ctx& ctx_of_slow(uint32_t ctx);
inline match_ctx& ctx_of(uint32_t ctx) {
  auto& v = eng().ctxs;
  if (ctx < v.size() && v[ctx]) [[likely]]
    return *v[ctx];
  return ctx_of_slow(ctx);
}
void finish_send_if_done(request* r);
// MPI_Cancel of a send not yet retired (engine lock held): withdraws its message if no receive
// matched it yet. The request completes (again, for a complete eager send) when the outcome is
// known (status.cancelled set if withdrawn). False: nothing to do (it stays as it is).
bool cancel_send_locked(request* r);
// A buffered send's internal request completed while linked (ext) to the user's request of an
// MPI_Ibsend / MPI_Bsend_init (bsend.cpp). If MPI_Cancel reopened the user request, it completes
// with the outcome and the link goes (false: delete the internal request). Else the internal
// request is kept, complete, while the user request lives (true): its message may still wait in
// the receiver's queue, and MPI_Cancel can still ask for it by this request's address.
bool bsend_internal_done(request* internal);
// Lets go of a request nobody will retire (its communicator and datatype references, then it).
void release_request(request* r);
void complete_request(request* r);
// Returns a block of the attached buffer once its buffered send has left it (bsend.cpp).
void bsend_release(void* block);
// Starts a send/receive whose request fields are set (engine lock held).
void start_send(request* r);
// hand_over: the start of a nonblocking receive (MPI_Irecv, MPI_Start), whose matched rendezvous
// message of at least hand_over_min bytes is left to the next poll while the progress thread runs.
void start_recv(request* r, bool hand_over = false);
// A single copy of this many bytes (tens of microseconds) is worth handing to the progress thread.
constexpr uint64_t hand_over_min = 64 << 10;
// A new point-to-point request on c that holds references on c and dt (not started).
request* make_p2p(core::req_kind kind, const void* buf, int64_t count, const datatype* dt, int peer, int tag,
                  comm* c);
// Sets up a request on a blocking call's stack frame: it takes no references (the caller's handles
// stay valid for the whole call) and is waited for before the frame goes.
inline void stack_request(request& r, core::req_kind kind, const void* buf, int64_t count, const datatype* dt,
                          int peer, int tag, comm* c, core::send_mode mode) {
  r.kind = kind;
  r.buf = const_cast<void*>(buf);
  r.count = count;
  r.dt = dt;
  r.c = c;
  r.ctx = c->ctx;
  r.peer = peer;
  r.tag = tag;
  r.mode = mode;
  r.active = true;
}
// A receive matched an unexpected message (removed from its queue): deliver it, free the entry.
void deliver_unexpected(request* r, unexpected* u);
// Frees an unexpected entry nobody will deliver (its payload, then it).
void unexpected_free(unexpected* u);
// The receive's status for a matched message of msg_len bytes (truncation recorded as its error).
void set_recv_status(request* r, int src, int tag, uint64_t msg_len);

// Payload buffers of unexpected eager messages, pooled by power-of-two size class (arrival.cpp).
char* uq_buf_alloc(uint64_t len);
void uq_buf_free(char* b, uint64_t len);
// Sets the pools up at start-up / empties them at shutdown.
void uq_bufs_init(uint32_t nlocal);
void uq_bufs_release();

}  // namespace baton::p2p
