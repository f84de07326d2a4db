// MPI_Sendrecv, MPI_Sendrecv_replace, MPI_Isendrecv, MPI_Isendrecv_replace: a send and a receive
// started together.
#include <cstdlib>
#include <vector>

#include "core/comm.hpp"
#include "core/datatype.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "p2p/engine_state.hpp"

namespace baton::p2p {

// ---- blocking: two requests on the caller's stack, no references taken ----

namespace {
// Starts the receive, then the send, and waits for both; the receive's status, and its error or
// else the send's.
errc exchange(request& sr, request& rr, core::req_status* st) {
  core::engine_guard g;
  start_recv(&rr);
  start_send(&sr);
  core::progress_new_work();
  core::progress_wait(g, [&] { return sr.is_complete() && rr.is_complete(); });
  if (st) *st = rr.status;
  return rr.status.error != errc::success ? rr.status.error : sr.status.error;
}
}  // namespace

errc sendrecv(const void* sendbuf, int64_t scount, const datatype* stype, int dest, int stag, void* recvbuf,
              int64_t rcount, const datatype* rtype, int source, int rtag, comm* c, core::req_status* st) {
  request sr, rr;
  stack_request(rr, core::req_kind::recv, recvbuf, rcount, rtype, source, rtag, c, core::send_mode::standard);
  stack_request(sr, core::req_kind::send, sendbuf, scount, stype, dest, stag, c, core::send_mode::standard);
  return exchange(sr, rr, st);
}

errc sendrecv_replace(void* buf, int64_t count, const datatype* type, int dest, int stag, int source, int rtag,
                      comm* c, core::req_status* st) {
  // The outgoing data are packed first, so the receive may land in the same buffer.
  const uint64_t bytes = uint64_t(count) * uint64_t(type->size());
  std::vector<char> tmp(bytes);
  (void)core::pack_all(buf, count, *type, tmp.data());
  request sr, rr;
  stack_request(rr, core::req_kind::recv, buf, count, type, source, rtag, c, core::send_mode::standard);
  stack_request(sr, core::req_kind::send, tmp.data(), int64_t(bytes), core::predefined_datatype(0x247) /* MPI_BYTE */,
                dest, stag, c, core::send_mode::standard);
  return exchange(sr, rr, st);
}

// ---- MPI_Isendrecv / MPI_Isendrecv_replace: one request over an internal send and receive ----

namespace {
struct sendrecv_state {
  int pending = 2;
  void* packed = nullptr;  // Isendrecv_replace: the packed copy of the outgoing data
};

void sendrecv_part_done(request* q) {
  request* user = static_cast<request*>(q->ext);
  auto* st = static_cast<sendrecv_state*>(user->scratch);
  if (q->kind == core::req_kind::recv) {
    user->status = q->status;
  } else if (q->status.error != errc::success && user->status.error == errc::success) {
    user->status.error = q->status.error;
  }
  core::request_delete(q);
  if (--st->pending == 0) {
    std::free(st->packed);
    st->packed = nullptr;
    complete_request(user);
  }
}

void sendrecv_destroy(request* r) {
  auto* st = static_cast<sendrecv_state*>(r->scratch);
  if (st) std::free(st->packed);
  delete st;
  r->scratch = nullptr;
}

errc sendrecv_refuse_cancel(request*) {
  return core::error_set(errc::request, "an MPI_Isendrecv request cannot be cancelled");
}

const core::request_ops sendrecv_ops{nullptr, sendrecv_refuse_cancel, nullptr, sendrecv_destroy};
}  // namespace

errc isendrecv(const void* sendbuf, int64_t scount, const datatype* stype, int dest, int stag, void* recvbuf,
               int64_t rcount, const datatype* rtype, int source, int rtag, comm* c, bool replace, request** out) {
  core::engine_guard g;
  // The user request carries the receive's arguments (status, buffer) and holds the references.
  request* user = make_p2p(core::req_kind::recv, recvbuf, rcount, rtype, source, rtag, c);
  user->ops = &sendrecv_ops;
  user->active = true;
  auto* st = new sendrecv_state;
  user->scratch = st;
  const void* data = sendbuf;
  const datatype* dt = stype;
  int64_t n = scount;
  if (replace) {
    const uint64_t bytes = static_cast<uint64_t>(scount) * static_cast<uint64_t>(stype->size());
    st->packed = std::malloc(bytes ? bytes : 1);
    (void)core::pack_all(sendbuf, scount, *stype, st->packed);
    data = st->packed;
    dt = core::predefined_datatype(0x247);  // MPI_BYTE
    n = static_cast<int64_t>(bytes);
  }
  *out = user;
  // Both parts may complete at once (self, PROC_NULL): the counter handles any order.
  (void)start_internal(core::req_kind::recv, recvbuf, rcount, rtype, source, rtag, c, c->ctx, sendrecv_part_done,
                       user, 0);
  (void)start_internal(core::req_kind::send, const_cast<void*>(data), n, dt, dest, stag, c, c->ctx,
                       sendrecv_part_done, user, 1);
  core::progress_new_work();
  return errc::success;
}

}  // namespace baton::p2p
