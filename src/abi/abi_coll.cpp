// Collective operations (MPI-4.1 chapter 6 and 7.12): barrier, bcast, reduce and allreduce in
// blocking and nonblocking forms over the schedule engine (src/coll/), and the checks every
// collective entry point shares (abi_coll.hpp). Gather/scatter/allgather: abi_coll_gather.cpp;
// alltoall, reduce_scatter, scan: abi_coll_alltoall.cpp.
#include "abi/abi_coll.hpp"

using namespace baton;
using abi::call;
using core::errc;

namespace baton::abi {

errc comm_check(const char* fn, MPI_Comm comm, core::comm** c) {
  if (errc e = check_init(fn); e != errc::success) return e;
  *c = to_comm(comm);
  return *c ? errc::success : errc::comm;
}

errc check_intra(const char* fn, const core::comm* c, const char* what) {
  if (!c->inter) return errc::success;
  return core::error_set(errc::comm, "%s: %s is an intercommunicator (%s takes an intracommunicator only)", fn, what,
                         fn);
}

// Every collective entry point comes through here. Intercommunicators pass: each entry point
// applies their rules (coll_check_root, coll_check_inter_buffers), and scan, exscan and the
// neighborhood collectives refuse them with check_intra.
errc coll_check_comm(const char* fn, MPI_Comm comm, core::comm** c) { return comm_check(fn, comm, c); }

errc coll_check_data(const void* buf, int64_t count, MPI_Datatype type, const core::datatype** t) {
  if (errc e = check_count(count); e != errc::success) return e;
  *t = to_type(type);
  if (errc e = check_type(*t); e != errc::success) return e;
  if (buf != MPI_IN_PLACE) return check_buffer(buf, count, *t);
  return errc::success;
}

errc coll_check_root(const core::comm* c, int root) {
  if (c->inter) {
    if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < c->size)) return errc::success;
    return core::error_set(errc::root,
                           "invalid root %d on an intercommunicator: MPI_ROOT at the root, MPI_PROC_NULL at the "
                           "rest of its group, or the root's rank in the remote group (which has %d ranks)",
                           root, c->size);
  }
  if (root < 0 || root >= c->size)
    return core::error_set(errc::root, "invalid root %d: the communicator has %d ranks", root, c->size);
  return errc::success;
}

errc coll_check_inter_buffers(const char* fn, const void* sendbuf, const void* recvbuf) {
  if (sendbuf == MPI_IN_PLACE || recvbuf == MPI_IN_PLACE)
    return core::error_set(errc::buffer, "%s: MPI_IN_PLACE is not valid on an intercommunicator", fn);
  return errc::success;
}

errc coll_check_counts(const std::vector<int64_t>& counts) {
  for (int64_t x : counts)
    if (errc e = check_count(x); e != errc::success) return e;
  return errc::success;
}

errc coll_check_reduction(MPI_Op op, const core::datatype* t, const core::op** o) {
  *o = to_op(op);
  if (!*o) return errc::op;
  core::elem_kind k;
  if ((*o)->is_predefined()) return check_op_type(**o, *t, &k);
  return errc::success;
}

int coll_launch(const char* fn, const coll::coll_args& a, const coll_mode& m) {
  if (m.persistent) return coll_launch_persistent(fn, a, m);
  MPI_Request* request = m.request;
  if (m.nonblocking && !request) {
    (void)core::error_set(errc::arg, "the request argument is NULL");
    return raise(fn, a.c, errc::arg);
  }
  return call(fn, a.c, [&] {
    if (!request) return coll::run_blocking(a);
    core::request* r = nullptr;
    errc e = coll::start(a, true, &r);
    if (e == errc::success) *request = to_handle(r);
    return e;
  });
}

}  // namespace baton::abi

namespace {

using abi::coll_check_comm;
using abi::coll_check_data;
using abi::coll_check_reduction;
using abi::coll_check_root;
using abi::coll_launch;

int barrier_impl(const char* fn, MPI_Comm comm, const abi::coll_mode& request) {
  core::comm* c = nullptr;
  if (errc e = coll_check_comm(fn, comm, &c); e != errc::success) return abi::raise(fn, c, e);
  coll::coll_args a;
  a.kind = coll::coll_kind::barrier;
  a.c = c;
  return coll_launch(fn, a, request);
}

// Intercommunicator bcast: the buffer matters at the root (sent) and in the remote group
// (received), not at the root's other processes.
int bcast_inter(const char* fn, core::comm* c, void* buf, int64_t count, MPI_Datatype type, int root,
                const abi::coll_mode& request) {
  if (errc e = abi::coll_check_inter_buffers(fn, nullptr, buf); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = coll_check_root(c, root); e != errc::success) return abi::raise(fn, c, e);
  coll::coll_args a;
  a.kind = coll::coll_kind::bcast;
  a.c = c;
  a.root = root;
  if (abi::inter_role_of(root) != abi::inter_role::idle) {
    if (errc e = coll_check_data(buf, count, type, &a.type); e != errc::success) return abi::raise(fn, c, e);
    a.recvbuf = buf;
    a.count = count;
  }
  return coll_launch(fn, a, request);
}

// Intercommunicator reduce and allreduce: the send buffer matters where data is contributed (every
// process of allreduce, the remote group of reduce), the receive buffer where the result lands
// (every process of allreduce, the root of reduce); the root's other processes pass nothing.
int reduce_inter(const char* fn, core::comm* c, bool all, const void* sendbuf, void* recvbuf, int64_t count,
                 MPI_Datatype type, MPI_Op op, int root, const abi::coll_mode& request) {
  if (errc e = abi::coll_check_inter_buffers(fn, sendbuf, recvbuf); e != errc::success) return abi::raise(fn, c, e);
  if (!all) {
    if (errc e = coll_check_root(c, root); e != errc::success) return abi::raise(fn, c, e);
  }
  const abi::inter_role role = all ? abi::inter_role::member : abi::inter_role_of(root);
  const bool sends = all || role == abi::inter_role::member;
  const bool receives = all || role == abi::inter_role::root;
  coll::coll_args a;
  a.kind = all ? coll::coll_kind::allreduce : coll::coll_kind::reduce;
  a.c = c;
  a.root = all ? 0 : root;
  if (sends || receives) {
    if (errc e = coll_check_data(sends ? sendbuf : recvbuf, count, type, &a.type); e != errc::success)
      return abi::raise(fn, c, e);
    if (sends && receives) {
      if (errc e = abi::check_buffer(recvbuf, count, a.type); e != errc::success) return abi::raise(fn, c, e);
    }
    if (errc e = coll_check_reduction(op, a.type, &a.op); e != errc::success) return abi::raise(fn, c, e);
    if (sends && receives && sendbuf == recvbuf && count > 0) {
      (void)core::error_set(errc::buffer, "send and receive buffers are the same");
      return abi::raise(fn, c, errc::buffer);
    }
    a.sendbuf = sends ? sendbuf : nullptr;
    a.recvbuf = receives ? recvbuf : nullptr;
    a.count = count;
  }
  return coll_launch(fn, a, request);
}

int bcast_impl(const char* fn, void* buf, int64_t count, MPI_Datatype type, int root, MPI_Comm comm,
               const abi::coll_mode& request) {
  core::comm* c = nullptr;
  const core::datatype* t = nullptr;
  if (errc e = coll_check_comm(fn, comm, &c); e != errc::success) return abi::raise(fn, c, e);
  if (c->inter) return bcast_inter(fn, c, buf, count, type, root, request);
  if (errc e = coll_check_data(buf, count, type, &t); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = coll_check_root(c, root); e != errc::success) return abi::raise(fn, c, e);
  coll::coll_args a;
  a.kind = coll::coll_kind::bcast;
  a.c = c;
  a.recvbuf = buf;
  a.count = count;
  a.type = t;
  a.root = root;
  return coll_launch(fn, a, request);
}

int reduce_impl(const char* fn, bool all, const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type,
                MPI_Op op, int root, MPI_Comm comm, const abi::coll_mode& request) {
  core::comm* c = nullptr;
  const core::datatype* t = nullptr;
  const core::op* o = nullptr;
  if (errc e = coll_check_comm(fn, comm, &c); e != errc::success) return abi::raise(fn, c, e);
  if (c->inter) return reduce_inter(fn, c, all, sendbuf, recvbuf, count, type, op, root, request);
  if (errc e = coll_check_data(sendbuf, count, type, &t); e != errc::success) return abi::raise(fn, c, e);
  if (!all) {
    if (errc e = coll_check_root(c, root); e != errc::success) return abi::raise(fn, c, e);
  }
  if (errc e = coll_check_reduction(op, t, &o); e != errc::success) return abi::raise(fn, c, e);
  const bool receives = all || c->rank == root;
  if (sendbuf == MPI_IN_PLACE && !receives) {
    (void)core::error_set(errc::buffer, "MPI_IN_PLACE is only valid at the root of a reduce");
    return abi::raise(fn, c, errc::buffer);
  }
  if (receives && sendbuf != MPI_IN_PLACE && sendbuf == recvbuf && count > 0) {
    (void)core::error_set(errc::buffer, "send and receive buffers are the same: use MPI_IN_PLACE");
    return abi::raise(fn, c, errc::buffer);
  }
  coll::coll_args a;
  a.kind = all ? coll::coll_kind::allreduce : coll::coll_kind::reduce;
  a.c = c;
  a.in_place = sendbuf == MPI_IN_PLACE;
  a.sendbuf = a.in_place ? nullptr : sendbuf;
  a.recvbuf = recvbuf;
  a.count = count;
  a.type = t;
  a.op = o;
  a.root = all ? 0 : root;
  return coll_launch(fn, a, request);
}

// Agreements (ULFM's MPIX_Comm_agree / MPIX_Comm_iagree, as MPICH and Open MPI export them):
// the bitwise AND of *flag over the communicator, ordered among agreements only (coll.hpp).
// Baton survives no process failure, so an agreement is that AND over every rank.
int agree_impl(const char* fn, MPI_Comm comm, int* flag, MPI_Request* request, bool nonblocking) {
  core::comm* c = nullptr;
  if (errc e = coll_check_comm(fn, comm, &c); e != errc::success) return abi::raise(fn, c, e);
  if (!flag) {
    (void)core::error_set(errc::arg, "the flag argument is NULL");
    return abi::raise(fn, c, errc::arg);
  }
  if (nonblocking && !request) {
    (void)core::error_set(errc::arg, "the request argument is NULL");
    return abi::raise(fn, c, errc::arg);
  }
  return abi::call(fn, c, [&] {
    if (!nonblocking) return coll::agree(c, flag);
    core::request* r = nullptr;
    errc e = coll::start_agreement(c, flag, &r);
    if (e == errc::success) *request = abi::to_handle(r);
    return e;
  });
}

}  // namespace

namespace baton::impl {

int MPI_Barrier(MPI_Comm comm) { return barrier_impl("MPI_Barrier", comm, nullptr); }
int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) { return barrier_impl("MPI_Ibarrier", comm, request); }

int MPIX_Comm_agree(MPI_Comm comm, int* flag) { return agree_impl("MPIX_Comm_agree", comm, flag, nullptr, false); }
int MPIX_Comm_iagree(MPI_Comm comm, int* flag, MPI_Request* request) {
  return agree_impl("MPIX_Comm_iagree", comm, flag, request, true);
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return bcast_impl("MPI_Bcast", buffer, count, datatype, root, comm, nullptr);
}
int MPI_Bcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return bcast_impl("MPI_Bcast_c", buffer, count, datatype, root, comm, nullptr);
}
int MPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request* request) {
  return bcast_impl("MPI_Ibcast", buffer, count, datatype, root, comm, request);
}
int MPI_Ibcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                  MPI_Request* request) {
  return bcast_impl("MPI_Ibcast_c", buffer, count, datatype, root, comm, request);
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm) {
  return reduce_impl("MPI_Reduce", false, sendbuf, recvbuf, count, datatype, op, root, comm, nullptr);
}
int MPI_Reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root,
                  MPI_Comm comm) {
  return reduce_impl("MPI_Reduce_c", false, sendbuf, recvbuf, count, datatype, op, root, comm, nullptr);
}
int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                 MPI_Comm comm, MPI_Request* request) {
  return reduce_impl("MPI_Ireduce", false, sendbuf, recvbuf, count, datatype, op, root, comm, request);
}
int MPI_Ireduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root,
                   MPI_Comm comm, MPI_Request* request) {
  return reduce_impl("MPI_Ireduce_c", false, sendbuf, recvbuf, count, datatype, op, root, comm, request);
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return reduce_impl("MPI_Allreduce", true, sendbuf, recvbuf, count, datatype, op, 0, comm, nullptr);
}
int MPI_Allreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                     MPI_Comm comm) {
  return reduce_impl("MPI_Allreduce_c", true, sendbuf, recvbuf, count, datatype, op, 0, comm, nullptr);
}
int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                    MPI_Request* request) {
  return reduce_impl("MPI_Iallreduce", true, sendbuf, recvbuf, count, datatype, op, 0, comm, request);
}
int MPI_Iallreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                      MPI_Comm comm, MPI_Request* request) {
  return reduce_impl("MPI_Iallreduce_c", true, sendbuf, recvbuf, count, datatype, op, 0, comm, request);
}

}  // namespace baton::impl

// ---- persistent collectives (MPI-4.1 7.13): the same checks, then an inactive request bound at init ----
namespace baton::impl {

int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return barrier_impl("MPI_Barrier_init", comm, abi::coll_mode(request, info));
}

int MPI_Bcast_init(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
                    MPI_Request* request) {
  return bcast_impl("MPI_Bcast_init", buffer, count, datatype, root, comm, abi::coll_mode(request, info));
}

int MPI_Bcast_init_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request* request) {
  return bcast_impl("MPI_Bcast_init_c", buffer, count, datatype, root, comm, abi::coll_mode(request, info));
}

int MPI_Reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                     MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return reduce_impl("MPI_Reduce_init", false, sendbuf, recvbuf, count, datatype, op, root, comm,
                     abi::coll_mode(request, info));
}

int MPI_Reduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return reduce_impl("MPI_Reduce_init_c", false, sendbuf, recvbuf, count, datatype, op, root, comm,
                     abi::coll_mode(request, info));
}

int MPI_Allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                        MPI_Info info, MPI_Request* request) {
  return reduce_impl("MPI_Allreduce_init", true, sendbuf, recvbuf, count, datatype, op, 0, comm,
                     abi::coll_mode(request, info));
}

int MPI_Allreduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                          MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return reduce_impl("MPI_Allreduce_init_c", true, sendbuf, recvbuf, count, datatype, op, 0, comm,
                     abi::coll_mode(request, info));
}


}  // namespace baton::impl
