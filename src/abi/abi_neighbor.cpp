// Neighborhood collectives (MPI-4.1 8.6, 8.7): neighbor allgather(v) and alltoall(v,w), blocking,
// nonblocking (MPI_Ineighbor_*) and persistent (MPI_Neighbor_*_init), with their large-count (_c)
// forms. They run on the schedule engine like every collective (coll_launch); the plan comes from
// the communicator's topology (src/coll/algorithms/neighbor/). Count and displacement arrays have
// one entry per in-neighbor (receive side) or out-neighbor (send side) and are widened to 64 bits
// here; the plans copy what they keep.
#include <vector>

#include "abi/abi_coll.hpp"
#include "core/topo.hpp"

using namespace baton;
using core::errc;

namespace {

using coll::coll_kind;

// A communicator with a topology (*c and *t set); MPI_IN_PLACE is refused on both sides.
errc check_comm_topo(const char* fn, MPI_Comm comm, const void* sendbuf, const void* recvbuf, core::comm** c,
                     const core::topology** t) {
  if (errc e = abi::comm_check(fn, comm, c); e != errc::success) return e;
  if (errc e = abi::check_intra(fn, *c); e != errc::success) return e;
  *t = core::topo_of(*c);
  if (!*t) return core::error_set(errc::topology, "the communicator has no process topology");
  if (sendbuf == MPI_IN_PLACE || recvbuf == MPI_IN_PLACE)
    return core::error_set(errc::buffer, "MPI_IN_PLACE is not allowed in neighborhood collectives");
  return errc::success;
}

template <class T>
errc widen(const T* a, size_t n, const char* what, std::vector<int64_t>& out) {
  out.clear();
  if (n == 0) return errc::success;
  if (!a) return core::error_set(errc::arg, "%s is NULL", what);
  out.assign(a, a + n);
  return errc::success;
}

// allgather (one send block for every out-neighbor) or alltoall (one block per out-neighbor).
int uniform_impl(const char* fn, coll_kind kind, const void* sendbuf, int64_t scount, MPI_Datatype stype,
                 void* recvbuf, int64_t rcount, MPI_Datatype rtype, MPI_Comm comm, const abi::coll_mode& mode) {
  core::comm* c = nullptr;
  const core::topology* t = nullptr;
  const core::datatype* st = nullptr;
  const core::datatype* rt = nullptr;
  if (errc e = check_comm_topo(fn, comm, sendbuf, recvbuf, &c, &t); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = abi::coll_check_data(sendbuf, scount, stype, &st); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = abi::coll_check_data(recvbuf, rcount, rtype, &rt); e != errc::success) return abi::raise(fn, c, e);
  coll::coll_args a;
  a.kind = kind;
  a.c = c;
  a.sendbuf = sendbuf;
  a.recvbuf = recvbuf;
  a.count = scount;
  a.type = st;
  a.rcount = rcount;
  a.rtype = rt;
  return abi::coll_launch(fn, a, mode);
}

template <class C, class D>
int allgatherv_impl(const char* fn, const void* sendbuf, int64_t scount, MPI_Datatype stype, void* recvbuf,
                    const C* rcounts, const D* rdispls, MPI_Datatype rtype, MPI_Comm comm, const abi::coll_mode& mode) {
  core::comm* c = nullptr;
  const core::topology* t = nullptr;
  const core::datatype* st = nullptr;
  const core::datatype* rt = nullptr;
  std::vector<int64_t> rc, rd;
  if (errc e = check_comm_topo(fn, comm, sendbuf, recvbuf, &c, &t); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = abi::coll_check_data(sendbuf, scount, stype, &st); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = widen(rcounts, t->in.size(), "recvcounts", rc); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = widen(rdispls, t->in.size(), "displs", rd); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = abi::coll_check_counts(rc); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = abi::coll_check_data(recvbuf, 0, rtype, &rt); e != errc::success) return abi::raise(fn, c, e);
  coll::coll_args a;
  a.kind = coll_kind::neighbor_allgatherv;
  a.c = c;
  a.sendbuf = sendbuf;
  a.recvbuf = recvbuf;
  a.count = scount;
  a.type = st;
  a.rtype = rt;
  a.rcounts = rc.data();
  a.rdispls = rd.data();
  return abi::coll_launch(fn, a, mode);
}

template <class C, class D>
int alltoallv_impl(const char* fn, const void* sendbuf, const C* scounts, const D* sdispls, MPI_Datatype stype,
                   void* recvbuf, const C* rcounts, const D* rdispls, MPI_Datatype rtype, MPI_Comm comm,
                   const abi::coll_mode& mode) {
  core::comm* c = nullptr;
  const core::topology* t = nullptr;
  const core::datatype* st = nullptr;
  const core::datatype* rt = nullptr;
  std::vector<int64_t> sc, sd, rc, rd;
  if (errc e = check_comm_topo(fn, comm, sendbuf, recvbuf, &c, &t); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = widen(scounts, t->out.size(), "sendcounts", sc); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = widen(sdispls, t->out.size(), "sdispls", sd); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = abi::coll_check_counts(sc); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = abi::coll_check_data(sendbuf, 0, stype, &st); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = widen(rcounts, t->in.size(), "recvcounts", rc); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = widen(rdispls, t->in.size(), "rdispls", rd); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = abi::coll_check_counts(rc); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = abi::coll_check_data(recvbuf, 0, rtype, &rt); e != errc::success) return abi::raise(fn, c, e);
  coll::coll_args a;
  a.kind = coll_kind::neighbor_alltoallv;
  a.c = c;
  a.sendbuf = sendbuf;
  a.recvbuf = recvbuf;
  a.type = st;
  a.rtype = rt;
  a.scounts = sc.data();
  a.sdispls = sd.data();
  a.rcounts = rc.data();
  a.rdispls = rd.data();
  return abi::coll_launch(fn, a, mode);
}

// Per-neighbor types: MPI_DATATYPE_NULL is tolerated for an empty block (MPI_BYTE stands in).
errc check_types(const MPI_Datatype* types, const std::vector<int64_t>& counts, const char* what,
                 std::vector<const core::datatype*>& out) {
  out.resize(counts.size());
  if (!counts.empty() && !types) return core::error_set(errc::arg, "%s is NULL", what);
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == 0 && types[i] == MPI_DATATYPE_NULL) {
      out[i] = core::predefined_datatype(0x247);  // MPI_BYTE
      continue;
    }
    out[i] = abi::to_type(types[i]);
    if (errc e = abi::check_type(out[i]); e != errc::success) return e;
  }
  return errc::success;
}

template <class C>
int alltoallw_impl(const char* fn, const void* sendbuf, const C* scounts, const MPI_Aint* sdispls,
                   const MPI_Datatype* stypes, void* recvbuf, const C* rcounts, const MPI_Aint* rdispls,
                   const MPI_Datatype* rtypes, MPI_Comm comm, const abi::coll_mode& mode) {
  core::comm* c = nullptr;
  const core::topology* t = nullptr;
  std::vector<int64_t> sc, sd, rc, rd;
  std::vector<const core::datatype*> st, rt;
  if (errc e = check_comm_topo(fn, comm, sendbuf, recvbuf, &c, &t); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = widen(scounts, t->out.size(), "sendcounts", sc); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = widen(sdispls, t->out.size(), "sdispls", sd); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = abi::coll_check_counts(sc); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = check_types(stypes, sc, "sendtypes", st); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = widen(rcounts, t->in.size(), "recvcounts", rc); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = widen(rdispls, t->in.size(), "rdispls", rd); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = abi::coll_check_counts(rc); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = check_types(rtypes, rc, "recvtypes", rt); e != errc::success) return abi::raise(fn, c, e);
  coll::coll_args a;
  a.kind = coll_kind::neighbor_alltoallw;
  a.c = c;
  a.sendbuf = sendbuf;
  a.recvbuf = recvbuf;
  a.scounts = sc.data();
  a.sdispls = sd.data();
  a.stypes = st.data();
  a.rcounts = rc.data();
  a.rdispls = rd.data();
  a.rtypes = rt.data();
  return abi::coll_launch(fn, a, mode);
}

}  // namespace

namespace baton::impl {

// ---- neighbor_allgather ----
int MPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return uniform_impl("MPI_Neighbor_allgather", coll_kind::neighbor_allgather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, nullptr);
}
int MPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return uniform_impl("MPI_Ineighbor_allgather", coll_kind::neighbor_allgather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}
int MPI_Neighbor_allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return uniform_impl("MPI_Neighbor_allgather_init", coll_kind::neighbor_allgather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, abi::coll_mode(request, info));
}
int MPI_Neighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return uniform_impl("MPI_Neighbor_allgather_c", coll_kind::neighbor_allgather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, nullptr);
}
int MPI_Ineighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return uniform_impl("MPI_Ineighbor_allgather_c", coll_kind::neighbor_allgather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}
int MPI_Neighbor_allgather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return uniform_impl("MPI_Neighbor_allgather_init_c", coll_kind::neighbor_allgather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, abi::coll_mode(request, info));
}

// ---- neighbor_allgatherv ----
int MPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  return allgatherv_impl("MPI_Neighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, nullptr);
}
int MPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return allgatherv_impl("MPI_Ineighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request);
}
int MPI_Neighbor_allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return allgatherv_impl("MPI_Neighbor_allgatherv_init", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, abi::coll_mode(request, info));
}
int MPI_Neighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  return allgatherv_impl("MPI_Neighbor_allgatherv_c", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, nullptr);
}
int MPI_Ineighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return allgatherv_impl("MPI_Ineighbor_allgatherv_c", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request);
}
int MPI_Neighbor_allgatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return allgatherv_impl("MPI_Neighbor_allgatherv_init_c", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, abi::coll_mode(request, info));
}

// ---- neighbor_alltoall ----
int MPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return uniform_impl("MPI_Neighbor_alltoall", coll_kind::neighbor_alltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, nullptr);
}
int MPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return uniform_impl("MPI_Ineighbor_alltoall", coll_kind::neighbor_alltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}
int MPI_Neighbor_alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return uniform_impl("MPI_Neighbor_alltoall_init", coll_kind::neighbor_alltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, abi::coll_mode(request, info));
}
int MPI_Neighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return uniform_impl("MPI_Neighbor_alltoall_c", coll_kind::neighbor_alltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, nullptr);
}
int MPI_Ineighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return uniform_impl("MPI_Ineighbor_alltoall_c", coll_kind::neighbor_alltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}
int MPI_Neighbor_alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return uniform_impl("MPI_Neighbor_alltoall_init_c", coll_kind::neighbor_alltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, abi::coll_mode(request, info));
}

// ---- neighbor_alltoallv ----
int MPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoallv_impl("MPI_Neighbor_alltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, nullptr);
}
int MPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return alltoallv_impl("MPI_Ineighbor_alltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, request);
}
int MPI_Neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return alltoallv_impl("MPI_Neighbor_alltoallv_init", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, abi::coll_mode(request, info));
}
int MPI_Neighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoallv_impl("MPI_Neighbor_alltoallv_c", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, nullptr);
}
int MPI_Ineighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return alltoallv_impl("MPI_Ineighbor_alltoallv_c", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, request);
}
int MPI_Neighbor_alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return alltoallv_impl("MPI_Neighbor_alltoallv_init_c", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, abi::coll_mode(request, info));
}

// ---- neighbor_alltoallw ----
int MPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return alltoallw_impl("MPI_Neighbor_alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, nullptr);
}
int MPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request* request) {
  return alltoallw_impl("MPI_Ineighbor_alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, request);
}
int MPI_Neighbor_alltoallw_init(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return alltoallw_impl("MPI_Neighbor_alltoallw_init", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, abi::coll_mode(request, info));
}
int MPI_Neighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return alltoallw_impl("MPI_Neighbor_alltoallw_c", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, nullptr);
}
int MPI_Ineighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request* request) {
  return alltoallw_impl("MPI_Ineighbor_alltoallw_c", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, request);
}
int MPI_Neighbor_alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return alltoallw_impl("MPI_Neighbor_alltoallw_init_c", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, abi::coll_mode(request, info));
}


}  // namespace baton::impl
