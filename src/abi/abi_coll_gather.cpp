// Gather, scatter and allgather and their vector forms (MPI-4.1 6.5-6.7): blocking, nonblocking
// and large-count entry points over the schedule engine (src/coll/).
//
// coll_args convention for these collectives: count/type are the send side, rcount/rtype the
// receive side, scounts/sdispls (scatterv) and rcounts/rdispls (gatherv, allgatherv) the vector
// arguments, set only where the standard makes them significant (the root, or every rank for
// allgatherv). MPI_IN_PLACE: the root's sendbuf for gather(v), the root's recvbuf for scatter(v),
// every rank's sendbuf for allgather(v); the in-place side is then left out (null buffer, and the
// other side's count and type stand in for it).
#include <vector>

#include "abi/abi_coll.hpp"

using namespace baton;
using abi::call;
using core::errc;

namespace {

errc refuse_in_place(const char* where) {
  return core::error_set(errc::buffer, "MPI_IN_PLACE is only valid as %s", where);
}

// Counts and displacements of a vector form, widened to 64 bits; counts must not be negative.
template <class Count, class Displ>
errc copy_vector(int n, const Count* counts, const Displ* displs, std::vector<int64_t>* c64,
                 std::vector<int64_t>* d64) {
  if (n > 0 && (!counts || !displs)) return core::error_set(errc::arg, "NULL count or displacement array");
  c64->resize(static_cast<size_t>(n));
  d64->resize(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) {
    if (counts[r] < 0)
      return core::error_set(errc::count, "negative count %lld for rank %d", static_cast<long long>(counts[r]), r);
    (*c64)[static_cast<size_t>(r)] = static_cast<int64_t>(counts[r]);
    (*d64)[static_cast<size_t>(r)] = static_cast<int64_t>(displs[r]);
  }
  return errc::success;
}

// Gather, scatter and allgather (root ignored for allgather).
errc fill_regular(coll::coll_kind kind, core::comm* c, const void* sendbuf, int64_t scount, MPI_Datatype stype,
                  void* recvbuf, int64_t rcount, MPI_Datatype rtype, int root, coll::coll_args* a) {
  const bool all = kind == coll::coll_kind::allgather;
  if (!all) {
    if (errc e = abi::coll_check_root(c, root); e != errc::success) return e;
  }
  const bool is_root = !all && c->rank == root;
  // Which sides are significant here, and which one may be MPI_IN_PLACE.
  bool use_send = true, use_recv = true;
  if (kind == coll::coll_kind::gather) use_recv = is_root;
  if (kind == coll::coll_kind::scatter) use_send = is_root;
  a->kind = kind;
  a->c = c;
  a->root = all ? 0 : root;
  if (use_send && sendbuf == MPI_IN_PLACE) {
    if (kind == coll::coll_kind::scatter) return refuse_in_place("the receive buffer at the root of a scatter");
    if (kind == coll::coll_kind::gather && !is_root) return refuse_in_place("the send buffer at the root of a gather");
    a->in_place = true;
    use_send = false;
  }
  if (use_recv && recvbuf == MPI_IN_PLACE) {
    if (kind != coll::coll_kind::scatter || !is_root)
      return refuse_in_place(kind == coll::coll_kind::scatter ? "the receive buffer at the root of a scatter"
                                                              : "the send buffer of a gather or an allgather");
    a->in_place = true;
    use_recv = false;
  }
  if (use_send) {
    if (errc e = abi::coll_check_data(sendbuf, scount, stype, &a->type); e != errc::success) return e;
    a->sendbuf = sendbuf;
    a->count = scount;
  }
  if (use_recv) {
    // The root of a gather receives n blocks, every rank of an allgather too.
    const int64_t blocks = kind == coll::coll_kind::scatter ? 1 : c->size;
    if (errc e = abi::coll_check_data(recvbuf, rcount * blocks, rtype, &a->rtype); e != errc::success) return e;
    a->recvbuf = recvbuf;
    a->rcount = rcount;
  }
  // The in-place side takes the other side's count and type, so that algorithms and selection
  // predicates may read either.
  if (!use_send && a->rtype && !(kind == coll::coll_kind::scatter && !is_root)) {
    a->type = a->rtype;
    a->count = a->rcount;
  }
  if (!use_recv && a->type) {
    a->rtype = a->type;
    a->rcount = a->count;
  }
  return errc::success;
}

// Intercommunicator gather, scatter and allgather (MPI-4.1 6.2.2): no MPI_IN_PLACE; the root
// (MPI_ROOT) has the root's side (gather: R receive blocks; scatter: R send blocks), the remote
// group the other side, the root's other processes (MPI_PROC_NULL) none; allgather every process
// both (R receive blocks, R being the remote group's size).
errc fill_regular_inter(const char* fn, coll::coll_kind kind, core::comm* c, const void* sendbuf, int64_t scount,
                        MPI_Datatype stype, void* recvbuf, int64_t rcount, MPI_Datatype rtype, int root,
                        coll::coll_args* a) {
  const bool all = kind == coll::coll_kind::allgather;
  if (errc e = abi::coll_check_inter_buffers(fn, sendbuf, recvbuf); e != errc::success) return e;
  if (!all) {
    if (errc e = abi::coll_check_root(c, root); e != errc::success) return e;
  }
  const abi::inter_role role = all ? abi::inter_role::member : abi::inter_role_of(root);
  bool use_send = all, use_recv = all;
  if (kind == coll::coll_kind::gather) {
    use_send = role == abi::inter_role::member;
    use_recv = role == abi::inter_role::root;
  } else if (kind == coll::coll_kind::scatter) {
    use_send = role == abi::inter_role::root;
    use_recv = role == abi::inter_role::member;
  }
  a->kind = kind;
  a->c = c;
  a->root = all ? 0 : root;
  if (use_send) {
    const int64_t blocks = kind == coll::coll_kind::scatter ? c->size : 1;
    if (errc e = abi::coll_check_data(sendbuf, scount * blocks, stype, &a->type); e != errc::success) return e;
    a->sendbuf = sendbuf;
    a->count = scount;
  }
  if (use_recv) {
    const int64_t blocks = kind == coll::coll_kind::scatter ? 1 : c->size;
    if (errc e = abi::coll_check_data(recvbuf, rcount * blocks, rtype, &a->rtype); e != errc::success) return e;
    a->recvbuf = recvbuf;
    a->rcount = rcount;
  }
  return errc::success;
}

int regular_impl(const char* fn, coll::coll_kind kind, const void* sendbuf, int64_t scount, MPI_Datatype stype,
                 void* recvbuf, int64_t rcount, MPI_Datatype rtype, int root, MPI_Comm comm, const abi::coll_mode& request) {
  core::comm* c = nullptr;
  if (errc e = abi::coll_check_comm(fn, comm, &c); e != errc::success) return abi::raise(fn, c, e);
  coll::coll_args a;
  if (errc e = c->inter ? fill_regular_inter(fn, kind, c, sendbuf, scount, stype, recvbuf, rcount, rtype, root, &a)
                        : fill_regular(kind, c, sendbuf, scount, stype, recvbuf, rcount, rtype, root, &a);
      e != errc::success)
    return abi::raise(fn, c, e);
  return abi::coll_launch(fn, a, request);
}

// Gatherv, scatterv, allgatherv. `counts`/`displs` belong to the vector side (receive for gatherv
// and allgatherv, send for scatterv); `count`/`type` to the other.
template <class Count, class Displ>
int vector_impl(const char* fn, coll::coll_kind kind, const void* sendbuf, void* recvbuf, int64_t count,
                MPI_Datatype type, const Count* counts, const Displ* displs, MPI_Datatype vtype, int root,
                MPI_Comm comm, const abi::coll_mode& request) {
  core::comm* c = nullptr;
  if (errc e = abi::coll_check_comm(fn, comm, &c); e != errc::success) return abi::raise(fn, c, e);
  const bool all = kind == coll::coll_kind::allgatherv, scatter = kind == coll::coll_kind::scatterv;
  if (c->inter) {
    if (errc e = abi::coll_check_inter_buffers(fn, sendbuf, recvbuf); e != errc::success) return abi::raise(fn, c, e);
  }
  if (!all) {
    if (errc e = abi::coll_check_root(c, root); e != errc::success) return abi::raise(fn, c, e);
  }
  // On an intercommunicator (MPI-4.1 6.2.2) the vector side is the root's (MPI_ROOT) with one entry
  // per remote process (c->size), or every process's for allgatherv; the per-rank side is the
  // remote group's, or every process's for allgatherv; the root's other processes have neither.
  const bool is_root = !all && (c->inter ? root == MPI_ROOT : c->rank == root);
  const bool idle = c->inter && !all && root == MPI_PROC_NULL;
  const bool vector_here = all || is_root;
  coll::coll_args a;
  a.kind = kind;
  a.c = c;
  a.root = all ? 0 : root;
  std::vector<int64_t> c64, d64;
  const core::datatype* vt = nullptr;
  if (vector_here) {
    if (errc e = copy_vector(c->size, counts, displs, &c64, &d64); e != errc::success) return abi::raise(fn, c, e);
    vt = abi::to_type(vtype);
    if (errc e = abi::check_type(vt); e != errc::success) return abi::raise(fn, c, e);
    void* vbuf = scatter ? const_cast<void*>(sendbuf) : recvbuf;
    int64_t max_count = 0;
    for (int64_t n : c64) max_count = n > max_count ? n : max_count;
    if (vbuf == MPI_IN_PLACE) {
      (void)core::error_set(errc::buffer, "MPI_IN_PLACE is not valid for the %s buffer of %s",
                            scatter ? "send" : "receive", fn);
      return abi::raise(fn, c, errc::buffer);
    }
    if (errc e = abi::check_buffer(vbuf, max_count, vt); e != errc::success) return abi::raise(fn, c, e);
  }
  // The per-rank side: send for gatherv/allgatherv, receive for scatterv.
  const void* obuf = scatter ? recvbuf : sendbuf;
  const core::datatype* ot = nullptr;
  if (c->inter && (is_root || idle)) {
    // The root of an intercommunicator gatherv/scatterv has only the vector side.
    if (scatter) {
      a.sendbuf = is_root ? sendbuf : nullptr;
      a.type = vt;
      a.scounts = is_root ? c64.data() : nullptr;
      a.sdispls = is_root ? d64.data() : nullptr;
    } else {
      a.recvbuf = is_root ? recvbuf : nullptr;
      a.rtype = vt;
      a.rcounts = is_root ? c64.data() : nullptr;
      a.rdispls = is_root ? d64.data() : nullptr;
    }
    return abi::coll_launch(fn, a, request);
  }
  if (obuf == MPI_IN_PLACE) {
    if (!is_root && !all) {
      (void)core::error_set(errc::buffer, "MPI_IN_PLACE is only valid at the root of %s", fn);
      return abi::raise(fn, c, errc::buffer);
    }
    a.in_place = true;
  } else {
    if (errc e = abi::coll_check_data(obuf, count, type, &ot); e != errc::success) return abi::raise(fn, c, e);
  }
  if (scatter) {
    a.sendbuf = is_root ? sendbuf : nullptr;
    a.type = vt;
    a.scounts = c64.data();
    a.sdispls = d64.data();
    a.recvbuf = a.in_place ? nullptr : recvbuf;
    a.rcount = a.in_place ? c64[static_cast<size_t>(c->rank)] : count;
    a.rtype = a.in_place ? vt : ot;
    if (!is_root) a.scounts = a.sdispls = nullptr;
  } else {
    a.recvbuf = vector_here ? recvbuf : nullptr;
    a.rtype = vt;
    a.rcounts = vector_here ? c64.data() : nullptr;
    a.rdispls = vector_here ? d64.data() : nullptr;
    a.sendbuf = a.in_place ? nullptr : sendbuf;
    a.count = a.in_place ? c64[static_cast<size_t>(c->rank)] : count;
    a.type = a.in_place ? vt : ot;
  }
  return abi::coll_launch(fn, a, request);
}

using coll::coll_kind;

}  // namespace

namespace baton::impl {

// ---- gather ----
int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return regular_impl("MPI_Gather", coll_kind::gather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                      comm, nullptr);
}
int MPI_Gather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return regular_impl("MPI_Gather_c", coll_kind::gather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                      root, comm, nullptr);
}
int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return regular_impl("MPI_Igather", coll_kind::gather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                      root, comm, request);
}
int MPI_Igather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                   MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return regular_impl("MPI_Igather_c", coll_kind::gather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                      root, comm, request);
}

// ---- gatherv ----
int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                 const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return vector_impl("MPI_Gatherv", coll_kind::gatherv, sendbuf, recvbuf, sendcount, sendtype, recvcounts, displs,
                     recvtype, root, comm, nullptr);
}
int MPI_Gatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                   MPI_Comm comm) {
  return vector_impl("MPI_Gatherv_c", coll_kind::gatherv, sendbuf, recvbuf, sendcount, sendtype, recvcounts, displs,
                     recvtype, root, comm, nullptr);
}
int MPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                  const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return vector_impl("MPI_Igatherv", coll_kind::gatherv, sendbuf, recvbuf, sendcount, sendtype, recvcounts, displs,
                     recvtype, root, comm, request);
}
int MPI_Igatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                    MPI_Comm comm, MPI_Request* request) {
  return vector_impl("MPI_Igatherv_c", coll_kind::gatherv, sendbuf, recvbuf, sendcount, sendtype, recvcounts, displs,
                     recvtype, root, comm, request);
}

// ---- scatter ----
int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return regular_impl("MPI_Scatter", coll_kind::scatter, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                      root, comm, nullptr);
}
int MPI_Scatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                   MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return regular_impl("MPI_Scatter_c", coll_kind::scatter, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                      root, comm, nullptr);
}
int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return regular_impl("MPI_Iscatter", coll_kind::scatter, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                      root, comm, request);
}
int MPI_Iscatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return regular_impl("MPI_Iscatter_c", coll_kind::scatter, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                      root, comm, request);
}

// ---- scatterv ----
int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return vector_impl("MPI_Scatterv", coll_kind::scatterv, sendbuf, recvbuf, recvcount, recvtype, sendcounts, displs,
                     sendtype, root, comm, nullptr);
}
int MPI_Scatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype,
                    void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return vector_impl("MPI_Scatterv_c", coll_kind::scatterv, sendbuf, recvbuf, recvcount, recvtype, sendcounts, displs,
                     sendtype, root, comm, nullptr);
}
int MPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                   void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return vector_impl("MPI_Iscatterv", coll_kind::scatterv, sendbuf, recvbuf, recvcount, recvtype, sendcounts, displs,
                     sendtype, root, comm, request);
}
int MPI_Iscatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype,
                     void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                     MPI_Request* request) {
  return vector_impl("MPI_Iscatterv_c", coll_kind::scatterv, sendbuf, recvbuf, recvcount, recvtype, sendcounts, displs,
                     sendtype, root, comm, request);
}

// ---- allgather ----
int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm) {
  return regular_impl("MPI_Allgather", coll_kind::allgather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                      0, comm, nullptr);
}
int MPI_Allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return regular_impl("MPI_Allgather_c", coll_kind::allgather, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                      recvtype, 0, comm, nullptr);
}
int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return regular_impl("MPI_Iallgather", coll_kind::allgather, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                      recvtype, 0, comm, request);
}
int MPI_Iallgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                      MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return regular_impl("MPI_Iallgather_c", coll_kind::allgather, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                      recvtype, 0, comm, request);
}

// ---- allgatherv ----
int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                    const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  return vector_impl("MPI_Allgatherv", coll_kind::allgatherv, sendbuf, recvbuf, sendcount, sendtype, recvcounts, displs,
                     recvtype, 0, comm, nullptr);
}
int MPI_Allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                      const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  return vector_impl("MPI_Allgatherv_c", coll_kind::allgatherv, sendbuf, recvbuf, sendcount, sendtype, recvcounts,
                     displs, recvtype, 0, comm, nullptr);
}
int MPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                     const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return vector_impl("MPI_Iallgatherv", coll_kind::allgatherv, sendbuf, recvbuf, sendcount, sendtype, recvcounts,
                     displs, recvtype, 0, comm, request);
}
int MPI_Iallgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                       const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                       MPI_Request* request) {
  return vector_impl("MPI_Iallgatherv_c", coll_kind::allgatherv, sendbuf, recvbuf, sendcount, sendtype, recvcounts,
                     displs, recvtype, 0, comm, request);
}

}  // namespace baton::impl

// ---- persistent collectives (MPI-4.1 7.13): the same checks, then an inactive request bound at init ----
namespace baton::impl {

int MPI_Gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return regular_impl("MPI_Gather_init", coll_kind::gather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                      root, comm, abi::coll_mode(request, info));
}

int MPI_Gather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                       MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                       MPI_Request* request) {
  return regular_impl("MPI_Gather_init_c", coll_kind::gather, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                      recvtype, root, comm, abi::coll_mode(request, info));
}

int MPI_Gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                      const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request* request) {
  return vector_impl("MPI_Gatherv_init", coll_kind::gatherv, sendbuf, recvbuf, sendcount, sendtype, recvcounts, displs,
                     recvtype, root, comm, abi::coll_mode(request, info));
}

int MPI_Gatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                        const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return vector_impl("MPI_Gatherv_init_c", coll_kind::gatherv, sendbuf, recvbuf, sendcount, sendtype, recvcounts,
                     displs, recvtype, root, comm, abi::coll_mode(request, info));
}

int MPI_Scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                      MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return regular_impl("MPI_Scatter_init", coll_kind::scatter, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                      recvtype, root, comm, abi::coll_mode(request, info));
}

int MPI_Scatter_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                        MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                        MPI_Request* request) {
  return regular_impl("MPI_Scatter_init_c", coll_kind::scatter, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                      recvtype, root, comm, abi::coll_mode(request, info));
}

int MPI_Scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                       void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                       MPI_Request* request) {
  return vector_impl("MPI_Scatterv_init", coll_kind::scatterv, sendbuf, recvbuf, recvcount, recvtype, sendcounts,
                     displs, sendtype, root, comm, abi::coll_mode(request, info));
}

int MPI_Scatterv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                         MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                         MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return vector_impl("MPI_Scatterv_init_c", coll_kind::scatterv, sendbuf, recvbuf, recvcount, recvtype, sendcounts,
                     displs, sendtype, root, comm, abi::coll_mode(request, info));
}

int MPI_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return regular_impl("MPI_Allgather_init", coll_kind::allgather, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                      recvtype, 0, comm, abi::coll_mode(request, info));
}

int MPI_Allgather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                          MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                          MPI_Request* request) {
  return regular_impl("MPI_Allgather_init_c", coll_kind::allgather, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                      recvtype, 0, comm, abi::coll_mode(request, info));
}

int MPI_Allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Info info, MPI_Request* request) {
  return vector_impl("MPI_Allgatherv_init", coll_kind::allgatherv, sendbuf, recvbuf, sendcount, sendtype, recvcounts,
                     displs, recvtype, 0, comm, abi::coll_mode(request, info));
}

int MPI_Allgatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                           const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Info info, MPI_Request* request) {
  return vector_impl("MPI_Allgatherv_init_c", coll_kind::allgatherv, sendbuf, recvbuf, sendcount, sendtype, recvcounts,
                     displs, recvtype, 0, comm, abi::coll_mode(request, info));
}


}  // namespace baton::impl
