// MPI_Isendrecv and MPI_Isendrecv_replace: one request over an internal send and receive.
#include <cstdlib>

#include "core/comm.hpp"
#include "core/datatype.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "p2p/engine_state.hpp"

// ---- MPI_Isendrecv / MPI_Isendrecv_replace: one request over an internal send and receive ----
namespace baton::p2p {

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
