// Point-to-point communication (MPI-4.1 chapter 3), with the large-count (_c) forms.
#include <cstdlib>
#include <cstring>
#include <vector>

#include "abi/abi.hpp"
#include "p2p/p2p.hpp"

using namespace baton;
using abi::call;
using core::errc;
using core::send_mode;

namespace {

struct p2p_args {
  core::comm* c = nullptr;
  const core::datatype* t = nullptr;
};

// Checks the arguments every point-to-point call shares. On failure a.c may be null (bad comm).
errc check_args(const char* fn, const void* buf, int64_t count, MPI_Datatype type, int rank, int tag, MPI_Comm comm,
                bool is_send, p2p_args& a) {
  if (errc e = abi::check_init(fn); e != errc::success) return e;
  a.c = abi::to_comm(comm);
  if (!a.c) return errc::comm;
  if (errc e = abi::check_count(count); e != errc::success) return e;
  a.t = abi::to_type(type);
  if (errc e = abi::check_type(a.t); e != errc::success) return e;
  if (errc e = is_send ? abi::check_send_rank(a.c, rank) : abi::check_recv_rank(a.c, rank); e != errc::success) return e;
  if (errc e = is_send ? abi::check_send_tag(tag) : abi::check_recv_tag(tag); e != errc::success) return e;
  return abi::check_buffer(buf, count, a.t);
}

int send_impl(const char* fn, const void* buf, int64_t count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              send_mode mode) {
  p2p_args a;
  if (errc e = check_args(fn, buf, count, type, dest, tag, comm, true, a); e != errc::success) return abi::raise(fn, a.c, e);
  return call(fn, a.c, [&] {
    if (mode == send_mode::buffered) return p2p::bsend_start(buf, count, a.t, dest, tag, a.c);
    return p2p::send(buf, count, a.t, dest, tag, a.c, mode);
  });
}

// A request that is complete from the start (Ibsend: the data is already in the attached buffer).
core::request* completed_request(core::comm* c, const core::datatype* t) {
  core::request* r = core::request_new(core::req_kind::send);
  r->c = c;
  c->retain();
  r->dt = t;
  const_cast<core::datatype*>(t)->retain();
  r->active = true;
  r->mark_complete();
  return r;
}

void free_request(core::request* r) {
  if (r->c) r->c->release();
  if (r->dt) const_cast<core::datatype*>(r->dt)->release();
  core::request_delete(r);
}

int isend_impl(const char* fn, const void* buf, int64_t count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               send_mode mode, MPI_Request* request) {
  p2p_args a;
  if (errc e = check_args(fn, buf, count, type, dest, tag, comm, true, a); e != errc::success) return abi::raise(fn, a.c, e);
  if (!request) {
    (void)core::error_set(errc::arg, "NULL request pointer");
    return abi::raise(fn, a.c, errc::arg);
  }
  return call(fn, a.c, [&] {
    core::request* r = nullptr;
    errc e;
    if (mode == send_mode::buffered) {
      r = completed_request(a.c, a.t);
      r->ops = &p2p::ibsend_user_ops;
      e = p2p::bsend_start(buf, count, a.t, dest, tag, a.c, r);
      if (e != errc::success) {
        free_request(r);
        r = nullptr;
      }
    } else {
      e = p2p::isend(buf, count, a.t, dest, tag, a.c, mode, &r);
    }
    if (e == errc::success) *request = abi::to_handle(r);
    return e;
  });
}

int recv_impl(const char* fn, void* buf, int64_t count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Status* status) {
  p2p_args a;
  if (errc e = check_args(fn, buf, count, type, source, tag, comm, false, a); e != errc::success)
    return abi::raise(fn, a.c, e);
  return call(fn, a.c, [&] {
    core::req_status st;
    errc e = p2p::recv(buf, count, a.t, source, tag, a.c, &st);
    abi::to_status(st, status);
    return e;
  });
}

int irecv_impl(const char* fn, void* buf, int64_t count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
               MPI_Request* request) {
  p2p_args a;
  if (errc e = check_args(fn, buf, count, type, source, tag, comm, false, a); e != errc::success)
    return abi::raise(fn, a.c, e);
  if (!request) {
    (void)core::error_set(errc::arg, "NULL request pointer");
    return abi::raise(fn, a.c, errc::arg);
  }
  return call(fn, a.c, [&] {
    core::request* r = nullptr;
    errc e = p2p::irecv(buf, count, a.t, source, tag, a.c, &r);
    if (e == errc::success) *request = abi::to_handle(r);
    return e;
  });
}

// Persistent Bsend_init: each start copies into the attached buffer and completes at once.
// MPI_Cancel withdraws the message if it is still in the buffer (p2p::bsend_user_cancel).
errc bsend_on_start(core::request* r) {
  r->status = core::req_status{};
  r->mark_complete();
  return p2p::bsend_start(r->buf, r->count, r->dt, r->peer, r->tag, r->c, r);
}
const core::request_ops bsend_init_ops{nullptr, p2p::bsend_user_cancel, bsend_on_start, p2p::bsend_user_destroy};

int send_init_impl(const char* fn, const void* buf, int64_t count, MPI_Datatype type, int dest, int tag,
                   MPI_Comm comm, send_mode mode, MPI_Request* request) {
  p2p_args a;
  if (errc e = check_args(fn, buf, count, type, dest, tag, comm, true, a); e != errc::success) return abi::raise(fn, a.c, e);
  return call(fn, a.c, [&] {
    core::request* r = nullptr;
    errc e = p2p::send_init(buf, count, a.t, dest, tag, a.c, mode, &r);
    if (e != errc::success) return e;
    if (mode == send_mode::buffered) r->ops = &bsend_init_ops;
    *request = abi::to_handle(r);
    return e;
  });
}

int recv_init_impl(const char* fn, void* buf, int64_t count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  p2p_args a;
  if (errc e = check_args(fn, buf, count, type, source, tag, comm, false, a); e != errc::success)
    return abi::raise(fn, a.c, e);
  return call(fn, a.c, [&] {
    core::request* r = nullptr;
    errc e = p2p::recv_init(buf, count, a.t, source, tag, a.c, &r);
    if (e == errc::success) *request = abi::to_handle(r);
    return e;
  });
}

int sendrecv_impl(const char* fn, const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void* recvbuf, int64_t recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                  MPI_Status* status) {
  p2p_args s, r;
  if (errc e = check_args(fn, sendbuf, sendcount, sendtype, dest, sendtag, comm, true, s); e != errc::success)
    return abi::raise(fn, s.c, e);
  if (errc e = check_args(fn, recvbuf, recvcount, recvtype, source, recvtag, comm, false, r); e != errc::success)
    return abi::raise(fn, r.c, e);
  return call(fn, s.c, [&] {
    core::req_status st;
    errc e = p2p::sendrecv(sendbuf, sendcount, s.t, dest, sendtag, recvbuf, recvcount, r.t, source, recvtag, s.c, &st);
    abi::to_status(st, status);
    return e;
  });
}

int sendrecv_replace_impl(const char* fn, void* buf, int64_t count, MPI_Datatype type, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  p2p_args s, r;
  if (errc e = check_args(fn, buf, count, type, dest, sendtag, comm, true, s); e != errc::success)
    return abi::raise(fn, s.c, e);
  if (errc e = check_args(fn, buf, count, type, source, recvtag, comm, false, r); e != errc::success)
    return abi::raise(fn, r.c, e);
  return call(fn, s.c, [&] {
    core::req_status st;
    errc e = p2p::sendrecv_replace(buf, count, s.t, dest, sendtag, source, recvtag, s.c, &st);
    abi::to_status(st, status);
    return e;
  });
}

errc probe_args(const char* fn, int source, int tag, MPI_Comm comm, core::comm** c) {
  if (errc e = abi::check_init(fn); e != errc::success) return e;
  *c = abi::to_comm(comm);
  if (!*c) return errc::comm;
  if (errc e = abi::check_recv_rank(*c, source); e != errc::success) return e;
  return abi::check_recv_tag(tag);
}

p2p::message* to_message(MPI_Message m) {
  if (m == MPI_MESSAGE_NO_PROC) return p2p::message_no_proc();
  if (m == MPI_MESSAGE_NULL || abi::is_predefined(m)) return nullptr;
  auto* msg = reinterpret_cast<p2p::message*>(m);
  return p2p::message_valid(msg) ? msg : nullptr;
}

MPI_Message to_handle(p2p::message* m) {
  if (!m) return MPI_MESSAGE_NULL;
  if (m == p2p::message_no_proc()) return MPI_MESSAGE_NO_PROC;
  return reinterpret_cast<MPI_Message>(m);
}

int imrecv_impl(const char* fn, void* buf, int64_t count, MPI_Datatype type, MPI_Message* message,
                MPI_Request* request) {
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  p2p::message* m = message ? to_message(*message) : nullptr;
  if (!m) {
    (void)core::error_set(errc::request, "invalid message handle (MPI_MESSAGE_NULL or already received)");
    return abi::raise(fn, nullptr, errc::request);
  }
  const core::datatype* t = abi::to_type(type);
  if (errc e = abi::check_type(t); e != errc::success) return abi::raise(fn, nullptr, e);
  if (errc e = abi::check_count(count); e != errc::success) return abi::raise(fn, nullptr, e);
  if (errc e = abi::check_buffer(buf, count, t); e != errc::success) return abi::raise(fn, nullptr, e);
  return call(fn, nullptr, [&] {
    core::request* r = nullptr;
    errc e = p2p::imrecv(buf, count, t, m, &r);
    if (e == errc::success) {
      *request = abi::to_handle(r);
      *message = MPI_MESSAGE_NULL;
    }
    return e;
  });
}

int isendrecv_impl(const char* fn, const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, int dest,
                   int sendtag, void* recvbuf, int64_t recvcount, MPI_Datatype recvtype, int source, int recvtag,
                   MPI_Comm comm, bool replace, MPI_Request* request) {
  p2p_args s, r;
  if (errc e = check_args(fn, sendbuf, sendcount, sendtype, dest, sendtag, comm, true, s); e != errc::success)
    return abi::raise(fn, s.c, e);
  if (errc e = check_args(fn, recvbuf, recvcount, recvtype, source, recvtag, comm, false, r); e != errc::success)
    return abi::raise(fn, r.c, e);
  if (!request) {
    (void)core::error_set(errc::arg, "NULL request pointer");
    return abi::raise(fn, s.c, errc::arg);
  }
  return call(fn, s.c, [&] {
    core::request* q = nullptr;
    errc e = p2p::isendrecv(sendbuf, sendcount, s.t, dest, sendtag, recvbuf, recvcount, r.t, source, recvtag, s.c,
                            replace, &q);
    if (e == errc::success) *request = abi::to_handle(q);
    return e;
  });
}

}  // namespace

namespace baton::impl {

#define BATON_SEND_FAMILY(Name, mode)                                                                              \
  int Name(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {              \
    return send_impl(#Name, buf, count, datatype, dest, tag, comm, mode);                                         \
  }                                                                                                                \
  int Name##_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {    \
    return send_impl(#Name "_c", buf, count, datatype, dest, tag, comm, mode);                                    \
  }

BATON_SEND_FAMILY(MPI_Send, send_mode::standard)
BATON_SEND_FAMILY(MPI_Bsend, send_mode::buffered)
BATON_SEND_FAMILY(MPI_Ssend, send_mode::synchronous)
BATON_SEND_FAMILY(MPI_Rsend, send_mode::ready)

#define BATON_ISEND_FAMILY(Name, impl, mode)                                                                       \
  int Name(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,                \
              MPI_Request* request) {                                                                              \
    return impl(#Name, buf, count, datatype, dest, tag, comm, mode, request);                                     \
  }                                                                                                                \
  int Name##_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,      \
                  MPI_Request* request) {                                                                          \
    return impl(#Name "_c", buf, count, datatype, dest, tag, comm, mode, request);                                \
  }

BATON_ISEND_FAMILY(MPI_Isend, isend_impl, send_mode::standard)
BATON_ISEND_FAMILY(MPI_Ibsend, isend_impl, send_mode::buffered)
BATON_ISEND_FAMILY(MPI_Issend, isend_impl, send_mode::synchronous)
BATON_ISEND_FAMILY(MPI_Irsend, isend_impl, send_mode::ready)
BATON_ISEND_FAMILY(MPI_Send_init, send_init_impl, send_mode::standard)
BATON_ISEND_FAMILY(MPI_Bsend_init, send_init_impl, send_mode::buffered)
BATON_ISEND_FAMILY(MPI_Ssend_init, send_init_impl, send_mode::synchronous)
BATON_ISEND_FAMILY(MPI_Rsend_init, send_init_impl, send_mode::ready)

int MPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  return recv_impl("MPI_Recv", buf, count, datatype, source, tag, comm, status);
}
int MPI_Recv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                MPI_Status* status) {
  return recv_impl("MPI_Recv_c", buf, count, datatype, source, tag, comm, status);
}
int MPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request* request) {
  return irecv_impl("MPI_Irecv", buf, count, datatype, source, tag, comm, request);
}
int MPI_Irecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                 MPI_Request* request) {
  return irecv_impl("MPI_Irecv_c", buf, count, datatype, source, tag, comm, request);
}
int MPI_Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return recv_init_impl("MPI_Recv_init", buf, count, datatype, source, tag, comm, request);
}
int MPI_Recv_init_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                     MPI_Request* request) {
  return recv_init_impl("MPI_Recv_init_c", buf, count, datatype, source, tag, comm, request);
}

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  return sendrecv_impl("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                       source, recvtag, comm, status);
}
int MPI_Sendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                    void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                    MPI_Status* status) {
  return sendrecv_impl("MPI_Sendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                       source, recvtag, comm, status);
}
int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag,
                          MPI_Comm comm, MPI_Status* status) {
  return sendrecv_replace_impl("MPI_Sendrecv_replace", buf, count, datatype, dest, sendtag, source, recvtag, comm,
                               status);
}
int MPI_Sendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
                            int recvtag, MPI_Comm comm, MPI_Status* status) {
  return sendrecv_replace_impl("MPI_Sendrecv_replace_c", buf, count, datatype, dest, sendtag, source, recvtag, comm,
                               status);
}

int MPI_Isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                   MPI_Request* request) {
  return isendrecv_impl("MPI_Isendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                        source, recvtag, comm, false, request);
}
int MPI_Isendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                     void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                     MPI_Request* request) {
  return isendrecv_impl("MPI_Isendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                        source, recvtag, comm, false, request);
}
int MPI_Isendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                           int recvtag, MPI_Comm comm, MPI_Request* request) {
  return isendrecv_impl("MPI_Isendrecv_replace", buf, count, datatype, dest, sendtag, buf, count, datatype, source,
                        recvtag, comm, true, request);
}
int MPI_Isendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
                             int recvtag, MPI_Comm comm, MPI_Request* request) {
  return isendrecv_impl("MPI_Isendrecv_replace_c", buf, count, datatype, dest, sendtag, buf, count, datatype, source,
                        recvtag, comm, true, request);
}

// ---- probes ----

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  core::comm* c = nullptr;
  if (errc e = probe_args("MPI_Iprobe", source, tag, comm, &c); e != errc::success) return abi::raise("MPI_Iprobe", c, e);
  if (!flag) return abi::raise("MPI_Iprobe", c, core::error_set(errc::arg, "NULL flag pointer"));
  return call("MPI_Iprobe", c, [&] {
    bool f = false;
    core::req_status st;
    errc e = p2p::iprobe(source, tag, c, &f, &st);
    *flag = f;
    if (f) abi::to_status(st, status);
    return e;
  });
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  core::comm* c = nullptr;
  if (errc e = probe_args("MPI_Probe", source, tag, comm, &c); e != errc::success) return abi::raise("MPI_Probe", c, e);
  return call("MPI_Probe", c, [&] {
    core::req_status st;
    errc e = p2p::probe(source, tag, c, &st);
    abi::to_status(st, status);
    return e;
  });
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message, MPI_Status* status) {
  core::comm* c = nullptr;
  if (errc e = probe_args("MPI_Improbe", source, tag, comm, &c); e != errc::success)
    return abi::raise("MPI_Improbe", c, e);
  if (!flag) return abi::raise("MPI_Improbe", c, core::error_set(errc::arg, "NULL flag pointer"));
  if (!message) return abi::raise("MPI_Improbe", c, core::error_set(errc::arg, "NULL message pointer"));
  return call("MPI_Improbe", c, [&] {
    bool f = false;
    core::req_status st;
    p2p::message* m = nullptr;
    errc e = p2p::improbe(source, tag, c, &f, &m, &st);
    *flag = f;
    if (f) {
      abi::to_status(st, status);
      *message = to_handle(m);
    }
    return e;
  });
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
  core::comm* c = nullptr;
  if (errc e = probe_args("MPI_Mprobe", source, tag, comm, &c); e != errc::success) return abi::raise("MPI_Mprobe", c, e);
  if (!message) return abi::raise("MPI_Mprobe", c, core::error_set(errc::arg, "NULL message pointer"));
  return call("MPI_Mprobe", c, [&] {
    core::req_status st;
    p2p::message* m = nullptr;
    errc e = p2p::mprobe(source, tag, c, &m, &st);
    abi::to_status(st, status);
    *message = to_handle(m);
    return e;
  });
}

int MPI_Imrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Request* request) {
  return imrecv_impl("MPI_Imrecv", buf, count, datatype, message, request);
}
int MPI_Imrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message, MPI_Request* request) {
  return imrecv_impl("MPI_Imrecv_c", buf, count, datatype, message, request);
}

static int mrecv_impl(const char* fn, void* buf, int64_t count, MPI_Datatype datatype, MPI_Message* message,
                      MPI_Status* status) {
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = imrecv_impl(fn, buf, count, datatype, message, &req);
  if (rc != MPI_SUCCESS) return rc;
  core::request* r = abi::to_request(req);
  return call(fn, r->c, [&] {
    (void)p2p::wait(r);
    errc e = r->status.error;
    abi::to_status(r->status, status);
    free_request(r);
    return e;
  });
}
int MPI_Mrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Status* status) {
  return mrecv_impl("MPI_Mrecv", buf, count, datatype, message, status);
}
int MPI_Mrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message, MPI_Status* status) {
  return mrecv_impl("MPI_Mrecv_c", buf, count, datatype, message, status);
}

// ---- buffered mode (MPI-4.1 3.6) ----
// The process buffer and the communicators' buffers; the sessions' are in abi_session.cpp.

}  // namespace baton::impl

namespace baton::abi {
errc bsend_attach(p2p::bsend_buffer** slot, void* buffer, int64_t size) {
  return p2p::buffer_attach(slot, buffer, size, buffer == MPI_BUFFER_AUTOMATIC);
}

namespace {
// buffer_addr is the address of the caller's pointer.
template <class Size>
errc detach_to(p2p::bsend_buffer** slot, void* buffer_addr, Size* size) {
  if (!buffer_addr || !size) return core::error_set(errc::arg, "NULL %s", buffer_addr ? "size pointer" : "buffer_addr");
  void* b = nullptr;
  int64_t s = 0;
  bool automatic = false;
  errc e = p2p::buffer_detach(slot, &b, &s, &automatic);
  *static_cast<void**>(buffer_addr) = automatic ? MPI_BUFFER_AUTOMATIC : b;
  *size = Size(s);
  return e;
}
}  // namespace

errc bsend_detach(p2p::bsend_buffer** slot, void* buffer_addr, int* size) { return detach_to(slot, buffer_addr, size); }
errc bsend_detach(p2p::bsend_buffer** slot, void* buffer_addr, MPI_Count* size) {
  return detach_to(slot, buffer_addr, size);
}

errc bsend_iflush(p2p::bsend_buffer** slot, core::comm* c, MPI_Request* request) {
  if (!request) return core::error_set(errc::arg, "NULL request pointer");
  core::request* r = nullptr;
  errc e = p2p::buffer_iflush(slot, c, &r);
  if (e == errc::success) *request = abi::to_handle(r);
  return e;
}
}  // namespace baton::abi

namespace {
// The communicator forms: the usual checks, then errors go to the communicator's handler.
template <class Body>
int comm_buffer_call(const char* fn, MPI_Comm comm, Body&& body) {
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise(fn, nullptr, errc::comm);
  return call(fn, c, [&] { return body(c); });
}
template <class Body>
int process_buffer_call(const char* fn, Body&& body) {
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  return call(fn, nullptr, body);
}
}  // namespace

namespace baton::impl {

int MPI_Buffer_attach(void* buffer, int size) {
  return process_buffer_call("MPI_Buffer_attach",
                             [&] { return abi::bsend_attach(p2p::process_buffer_slot(), buffer, size); });
}
int MPI_Buffer_attach_c(void* buffer, MPI_Count size) {
  return process_buffer_call("MPI_Buffer_attach_c",
                             [&] { return abi::bsend_attach(p2p::process_buffer_slot(), buffer, size); });
}
int MPI_Buffer_detach(void* buffer_addr, int* size) {
  return process_buffer_call("MPI_Buffer_detach",
                             [&] { return abi::bsend_detach(p2p::process_buffer_slot(), buffer_addr, size); });
}
int MPI_Buffer_detach_c(void* buffer_addr, MPI_Count* size) {
  return process_buffer_call("MPI_Buffer_detach_c",
                             [&] { return abi::bsend_detach(p2p::process_buffer_slot(), buffer_addr, size); });
}

int MPI_Buffer_flush(void) {
  return process_buffer_call("MPI_Buffer_flush", [] { return p2p::buffer_flush(p2p::process_buffer_slot()); });
}

int MPI_Buffer_iflush(MPI_Request* request) {
  return process_buffer_call("MPI_Buffer_iflush", [&] {
    return abi::bsend_iflush(p2p::process_buffer_slot(), core::rt().self, request);
  });
}

int MPI_Comm_attach_buffer(MPI_Comm comm, void* buffer, int size) {
  return comm_buffer_call("MPI_Comm_attach_buffer", comm,
                          [&](core::comm* c) { return abi::bsend_attach(&c->bsend, buffer, size); });
}
int MPI_Comm_attach_buffer_c(MPI_Comm comm, void* buffer, MPI_Count size) {
  return comm_buffer_call("MPI_Comm_attach_buffer_c", comm,
                          [&](core::comm* c) { return abi::bsend_attach(&c->bsend, buffer, size); });
}
int MPI_Comm_detach_buffer(MPI_Comm comm, void* buffer_addr, int* size) {
  return comm_buffer_call("MPI_Comm_detach_buffer", comm,
                          [&](core::comm* c) { return abi::bsend_detach(&c->bsend, buffer_addr, size); });
}
int MPI_Comm_detach_buffer_c(MPI_Comm comm, void* buffer_addr, MPI_Count* size) {
  return comm_buffer_call("MPI_Comm_detach_buffer_c", comm,
                          [&](core::comm* c) { return abi::bsend_detach(&c->bsend, buffer_addr, size); });
}
int MPI_Comm_flush_buffer(MPI_Comm comm) {
  return comm_buffer_call("MPI_Comm_flush_buffer", comm, [&](core::comm* c) { return p2p::buffer_flush(&c->bsend); });
}
int MPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request* request) {
  return comm_buffer_call("MPI_Comm_iflush_buffer", comm,
                          [&](core::comm* c) { return abi::bsend_iflush(&c->bsend, c, request); });
}

}  // namespace baton::impl
