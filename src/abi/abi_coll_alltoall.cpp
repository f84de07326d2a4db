// Collective operations (MPI-4.1 6.8, 6.10, 6.11): alltoall, alltoallv, alltoallw,
// reduce_scatter_block, reduce_scatter, scan and exscan, blocking and nonblocking, with their
// large-count (_c) forms. MPI_IN_PLACE is accepted as the send buffer by all of them. Count and
// displacement arrays are widened to 64 bits here; the algorithms copy what they keep.
#include <vector>

#include "abi/abi_coll.hpp"

using namespace baton;
using abi::call;
using core::errc;

namespace {

errc check_recvbuf(const void* recvbuf) {
  if (recvbuf == MPI_IN_PLACE) return core::error_set(errc::buffer, "MPI_IN_PLACE is only valid as the send buffer");
  return errc::success;
}

errc check_alias(const void* sendbuf, const void* recvbuf, bool moves_data) {
  if (moves_data && sendbuf != nullptr && sendbuf != MPI_IN_PLACE && sendbuf == recvbuf)
    return core::error_set(errc::buffer, "send and receive buffers are the same: use MPI_IN_PLACE");
  return errc::success;
}

errc check_array(const void* a, const char* what) {
  if (!a) return core::error_set(errc::arg, "%s is NULL", what);
  return errc::success;
}

// Copies n entries of a count or displacement array (int, MPI_Count or MPI_Aint) to 64 bits.
template <class T>
std::vector<int64_t> widen(const T* a, int n) {
  return a ? std::vector<int64_t>(a, a + n) : std::vector<int64_t>(static_cast<size_t>(n), 0);
}

// Per-peer types of alltoallw: MPI_DATATYPE_NULL is tolerated for an empty block (MPI_BYTE stands
// in for it), any other type must be valid and committed.
errc check_types(const MPI_Datatype* types, const std::vector<int64_t>& counts,
                 std::vector<const core::datatype*>& out) {
  out.resize(counts.size());
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

int alltoall_impl(const char* fn, const void* sendbuf, int64_t scount, MPI_Datatype stype, void* recvbuf,
                  int64_t rcount, MPI_Datatype rtype, MPI_Comm comm, const abi::coll_mode& request) {
  core::comm* c = nullptr;
  const core::datatype* st = nullptr;
  const core::datatype* rt = nullptr;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (errc e = abi::coll_check_comm(fn, comm, &c); e != errc::success) return abi::raise(fn, c, e);
  if (c->inter) {
    if (errc e = abi::coll_check_inter_buffers(fn, sendbuf, recvbuf); e != errc::success) return abi::raise(fn, c, e);
  }
  if (!in_place) {
    if (errc e = abi::coll_check_data(sendbuf, scount, stype, &st); e != errc::success) return abi::raise(fn, c, e);
  }
  if (errc e = check_recvbuf(recvbuf); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = abi::coll_check_data(recvbuf, rcount, rtype, &rt); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = check_alias(sendbuf, recvbuf, rcount * rt->size() > 0); e != errc::success) return abi::raise(fn, c, e);
  coll::coll_args a;
  a.kind = coll::coll_kind::alltoall;
  a.c = c;
  a.in_place = in_place;
  a.sendbuf = in_place ? nullptr : sendbuf;
  a.recvbuf = recvbuf;
  a.count = in_place ? rcount : scount;
  a.type = in_place ? rt : st;
  a.rcount = rcount;
  a.rtype = rt;
  return abi::coll_launch(fn, a, request);
}

template <class C, class D>
int alltoallv_impl(const char* fn, const void* sendbuf, const C* scounts, const D* sdispls, MPI_Datatype stype,
                   void* recvbuf, const C* rcounts, const D* rdispls, MPI_Datatype rtype, MPI_Comm comm,
                   const abi::coll_mode& request) {
  core::comm* c = nullptr;
  const core::datatype* st = nullptr;
  const core::datatype* rt = nullptr;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (errc e = abi::coll_check_comm(fn, comm, &c); e != errc::success) return abi::raise(fn, c, e);
  if (c->inter) {
    if (errc e = abi::coll_check_inter_buffers(fn, sendbuf, recvbuf); e != errc::success) return abi::raise(fn, c, e);
  }
  const int n = c->size;  // on an intercommunicator, the remote group's size
  std::vector<int64_t> sc, sd;
  if (!in_place) {
    if (errc e = check_array(scounts, "sendcounts"); e != errc::success) return abi::raise(fn, c, e);
    if (errc e = check_array(sdispls, "sdispls"); e != errc::success) return abi::raise(fn, c, e);
    sc = widen(scounts, n);
    sd = widen(sdispls, n);
    if (errc e = abi::coll_check_counts(sc); e != errc::success) return abi::raise(fn, c, e);
    if (errc e = abi::coll_check_data(sendbuf, 0, stype, &st); e != errc::success) return abi::raise(fn, c, e);
  }
  if (errc e = check_recvbuf(recvbuf); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = check_array(rcounts, "recvcounts"); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = check_array(rdispls, "rdispls"); e != errc::success) return abi::raise(fn, c, e);
  std::vector<int64_t> rc = widen(rcounts, n), rd = widen(rdispls, n);
  if (errc e = abi::coll_check_counts(rc); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = abi::coll_check_data(recvbuf, 0, rtype, &rt); e != errc::success) return abi::raise(fn, c, e);
  int64_t rbytes = 0;
  for (int64_t x : rc) rbytes += x * rt->size();
  if (errc e = check_alias(sendbuf, recvbuf, rbytes > 0); e != errc::success) return abi::raise(fn, c, e);
  coll::coll_args a;
  a.kind = coll::coll_kind::alltoallv;
  a.c = c;
  a.in_place = in_place;
  a.sendbuf = in_place ? nullptr : sendbuf;
  a.recvbuf = recvbuf;
  a.type = in_place ? rt : st;
  a.rtype = rt;
  a.scounts = in_place ? nullptr : sc.data();
  a.sdispls = in_place ? nullptr : sd.data();
  a.rcounts = rc.data();
  a.rdispls = rd.data();
  return abi::coll_launch(fn, a, request);
}

template <class C, class D>
int alltoallw_impl(const char* fn, const void* sendbuf, const C* scounts, const D* sdispls, const MPI_Datatype* stypes,
                   void* recvbuf, const C* rcounts, const D* rdispls, const MPI_Datatype* rtypes, MPI_Comm comm,
                   const abi::coll_mode& request) {
  core::comm* c = nullptr;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (errc e = abi::coll_check_comm(fn, comm, &c); e != errc::success) return abi::raise(fn, c, e);
  if (c->inter) {
    if (errc e = abi::coll_check_inter_buffers(fn, sendbuf, recvbuf); e != errc::success) return abi::raise(fn, c, e);
  }
  const int n = c->size;  // on an intercommunicator, the remote group's size
  std::vector<int64_t> sc, sd;
  std::vector<const core::datatype*> st, rt;
  if (!in_place) {
    if (errc e = check_array(scounts, "sendcounts"); e != errc::success) return abi::raise(fn, c, e);
    if (errc e = check_array(sdispls, "sdispls"); e != errc::success) return abi::raise(fn, c, e);
    if (errc e = check_array(stypes, "sendtypes"); e != errc::success) return abi::raise(fn, c, e);
    sc = widen(scounts, n);
    sd = widen(sdispls, n);
    if (errc e = abi::coll_check_counts(sc); e != errc::success) return abi::raise(fn, c, e);
    if (errc e = check_types(stypes, sc, st); e != errc::success) return abi::raise(fn, c, e);
  }
  if (errc e = check_recvbuf(recvbuf); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = check_array(rcounts, "recvcounts"); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = check_array(rdispls, "rdispls"); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = check_array(rtypes, "recvtypes"); e != errc::success) return abi::raise(fn, c, e);
  std::vector<int64_t> rc = widen(rcounts, n), rd = widen(rdispls, n);
  if (errc e = abi::coll_check_counts(rc); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = check_types(rtypes, rc, rt); e != errc::success) return abi::raise(fn, c, e);
  int64_t rbytes = 0;
  for (int i = 0; i < n; ++i) rbytes += rc[i] * rt[i]->size();
  if (errc e = check_alias(sendbuf, recvbuf, rbytes > 0); e != errc::success) return abi::raise(fn, c, e);
  coll::coll_args a;
  a.kind = coll::coll_kind::alltoallw;
  a.c = c;
  a.in_place = in_place;
  a.sendbuf = in_place ? nullptr : sendbuf;
  a.recvbuf = recvbuf;
  a.scounts = in_place ? nullptr : sc.data();
  a.sdispls = in_place ? nullptr : sd.data();
  a.stypes = in_place ? nullptr : st.data();
  a.rcounts = rc.data();
  a.rdispls = rd.data();
  a.rtypes = rt.data();
  return abi::coll_launch(fn, a, request);
}

// reduce_scatter (counts != nullptr) or reduce_scatter_block (every block `count` elements).
template <class C>
int reduce_scatter_impl(const char* fn, const void* sendbuf, void* recvbuf, const C* counts, int64_t count,
                        MPI_Datatype type, MPI_Op op, MPI_Comm comm, const abi::coll_mode& request, bool block) {
  core::comm* c = nullptr;
  const core::datatype* t = nullptr;
  const core::op* o = nullptr;
  if (errc e = abi::coll_check_comm(fn, comm, &c); e != errc::success) return abi::raise(fn, c, e);
  if (c->inter) {
    if (errc e = abi::coll_check_inter_buffers(fn, sendbuf, recvbuf); e != errc::success) return abi::raise(fn, c, e);
  }
  // One block per process of this rank's group (on an intercommunicator the local group: it
  // receives the remote group's reduced vector, whose length must equal its own).
  const int nblocks = c->local_size();
  std::vector<int64_t> rc;
  int64_t total = 0;
  if (block) {
    if (errc e = abi::check_count(count); e != errc::success) return abi::raise(fn, c, e);
    total = count * nblocks;
  } else {
    if (errc e = check_array(counts, "recvcounts"); e != errc::success) return abi::raise(fn, c, e);
    rc = widen(counts, nblocks);
    if (errc e = abi::coll_check_counts(rc); e != errc::success) return abi::raise(fn, c, e);
    for (int64_t x : rc) total += x;
  }
  if (errc e = abi::coll_check_data(sendbuf, total, type, &t); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = check_recvbuf(recvbuf); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = abi::coll_check_reduction(op, t, &o); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = check_alias(sendbuf, recvbuf, total > 0); e != errc::success) return abi::raise(fn, c, e);
  coll::coll_args a;
  a.kind = block ? coll::coll_kind::reduce_scatter_block : coll::coll_kind::reduce_scatter;
  a.c = c;
  a.in_place = sendbuf == MPI_IN_PLACE;
  a.sendbuf = a.in_place ? nullptr : sendbuf;
  a.recvbuf = recvbuf;
  a.count = block ? count : 0;
  a.type = t;
  a.op = o;
  a.rcounts = block ? nullptr : rc.data();
  return abi::coll_launch(fn, a, request);
}

int scan_impl(const char* fn, bool exclusive, const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type,
              MPI_Op op, MPI_Comm comm, const abi::coll_mode& request) {
  core::comm* c = nullptr;
  const core::datatype* t = nullptr;
  const core::op* o = nullptr;
  if (errc e = abi::comm_check(fn, comm, &c); e != errc::success) return abi::raise(fn, c, e);
  // Scan and exscan are defined on intracommunicators only (MPI-4.1 6.11).
  if (errc e = abi::check_intra(fn, c); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = abi::coll_check_data(sendbuf, count, type, &t); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = check_recvbuf(recvbuf); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = abi::coll_check_reduction(op, t, &o); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = check_alias(sendbuf, recvbuf, count > 0); e != errc::success) return abi::raise(fn, c, e);
  coll::coll_args a;
  a.kind = exclusive ? coll::coll_kind::exscan : coll::coll_kind::scan;
  a.c = c;
  a.in_place = sendbuf == MPI_IN_PLACE;
  a.sendbuf = a.in_place ? nullptr : sendbuf;
  a.recvbuf = recvbuf;
  a.count = count;
  a.type = t;
  a.op = o;
  return abi::coll_launch(fn, a, request);
}

}  // namespace

namespace baton::impl {

// ---- alltoall ----
int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoall_impl("MPI_Alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, nullptr);
}
int MPI_Alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoall_impl("MPI_Alltoall_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, nullptr);
}
int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return alltoall_impl("MPI_Ialltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}
int MPI_Ialltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return alltoall_impl("MPI_Ialltoall_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

// ---- alltoallv ----
int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoallv_impl("MPI_Alltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                        comm, nullptr);
}
int MPI_Alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype,
                     void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype,
                     MPI_Comm comm) {
  return alltoallv_impl("MPI_Alltoallv_c", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                        recvtype, comm, nullptr);
}
int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                    void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request* request) {
  return alltoallv_impl("MPI_Ialltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                        recvtype, comm, request);
}
int MPI_Ialltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return alltoallv_impl("MPI_Ialltoallv_c", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                        recvtype, comm, request);
}

// ---- alltoallw ----
int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                   void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                   MPI_Comm comm) {
  return alltoallw_impl("MPI_Alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                        recvtypes, comm, nullptr);
}
int MPI_Alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return alltoallw_impl("MPI_Alltoallw_c", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                        recvtypes, comm, nullptr);
}
int MPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                    void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                    MPI_Comm comm, MPI_Request* request) {
  return alltoallw_impl("MPI_Ialltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                        recvtypes, comm, request);
}
int MPI_Ialltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request* request) {
  return alltoallw_impl("MPI_Ialltoallw_c", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                        recvtypes, comm, request);
}

// ---- reduce_scatter_block, reduce_scatter ----
int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm) {
  return reduce_scatter_impl<int>("MPI_Reduce_scatter_block", sendbuf, recvbuf, nullptr, recvcount, datatype, op, comm,
                                  nullptr, true);
}
int MPI_Reduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                                MPI_Op op, MPI_Comm comm) {
  return reduce_scatter_impl<int>("MPI_Reduce_scatter_block_c", sendbuf, recvbuf, nullptr, recvcount, datatype, op,
                                  comm, nullptr, true);
}
int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm, MPI_Request* request) {
  return reduce_scatter_impl<int>("MPI_Ireduce_scatter_block", sendbuf, recvbuf, nullptr, recvcount, datatype, op, comm,
                                  request, true);
}
int MPI_Ireduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                                 MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return reduce_scatter_impl<int>("MPI_Ireduce_scatter_block_c", sendbuf, recvbuf, nullptr, recvcount, datatype, op,
                                  comm, request, true);
}
int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm) {
  return reduce_scatter_impl("MPI_Reduce_scatter", sendbuf, recvbuf, recvcounts, 0, datatype, op, comm, nullptr, false);
}
int MPI_Reduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm) {
  return reduce_scatter_impl("MPI_Reduce_scatter_c", sendbuf, recvbuf, recvcounts, 0, datatype, op, comm, nullptr,
                             false);
}
int MPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm, MPI_Request* request) {
  return reduce_scatter_impl("MPI_Ireduce_scatter", sendbuf, recvbuf, recvcounts, 0, datatype, op, comm, request,
                             false);
}
int MPI_Ireduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return reduce_scatter_impl("MPI_Ireduce_scatter_c", sendbuf, recvbuf, recvcounts, 0, datatype, op, comm, request,
                             false);
}

// ---- scan, exscan ----
int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return scan_impl("MPI_Scan", false, sendbuf, recvbuf, count, datatype, op, comm, nullptr);
}
int MPI_Scan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return scan_impl("MPI_Scan_c", false, sendbuf, recvbuf, count, datatype, op, comm, nullptr);
}
int MPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
               MPI_Request* request) {
  return scan_impl("MPI_Iscan", false, sendbuf, recvbuf, count, datatype, op, comm, request);
}
int MPI_Iscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                 MPI_Request* request) {
  return scan_impl("MPI_Iscan_c", false, sendbuf, recvbuf, count, datatype, op, comm, request);
}
int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return scan_impl("MPI_Exscan", true, sendbuf, recvbuf, count, datatype, op, comm, nullptr);
}
int MPI_Exscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm) {
  return scan_impl("MPI_Exscan_c", true, sendbuf, recvbuf, count, datatype, op, comm, nullptr);
}
int MPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                 MPI_Request* request) {
  return scan_impl("MPI_Iexscan", true, sendbuf, recvbuf, count, datatype, op, comm, request);
}
int MPI_Iexscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Request* request) {
  return scan_impl("MPI_Iexscan_c", true, sendbuf, recvbuf, count, datatype, op, comm, request);
}

}  // namespace baton::impl

// ---- persistent collectives (MPI-4.1 7.13): the same checks, then an inactive request bound at init ----
namespace baton::impl {

int MPI_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return alltoall_impl("MPI_Alltoall_init", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                       abi::coll_mode(request, info));
}

int MPI_Alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                         MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                         MPI_Request* request) {
  return alltoall_impl("MPI_Alltoall_init_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                       abi::coll_mode(request, info));
}

int MPI_Alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                        void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                        MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return alltoallv_impl("MPI_Alltoallv_init", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                        recvtype, comm, abi::coll_mode(request, info));
}

int MPI_Alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                          MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return alltoallv_impl("MPI_Alltoallv_init_c", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                        recvtype, comm, abi::coll_mode(request, info));
}

int MPI_Alltoallw_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const int rdispls[],
                        const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return alltoallw_impl("MPI_Alltoallw_init", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                        recvtypes, comm, abi::coll_mode(request, info));
}

int MPI_Alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                          const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                          const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                          MPI_Request* request) {
  return alltoallw_impl("MPI_Alltoallw_init_c", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                        recvtypes, comm, abi::coll_mode(request, info));
}

int MPI_Reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                                   MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return reduce_scatter_impl<int>("MPI_Reduce_scatter_block_init", sendbuf, recvbuf, nullptr, recvcount, datatype, op,
                                  comm, abi::coll_mode(request, info), true);
}

int MPI_Reduce_scatter_block_init_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return reduce_scatter_impl<int>("MPI_Reduce_scatter_block_init_c", sendbuf, recvbuf, nullptr, recvcount, datatype, op,
                                  comm, abi::coll_mode(request, info), true);
}

int MPI_Reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return reduce_scatter_impl("MPI_Reduce_scatter_init", sendbuf, recvbuf, recvcounts, 0, datatype, op, comm,
                             abi::coll_mode(request, info), false);
}

int MPI_Reduce_scatter_init_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype,
                               MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return reduce_scatter_impl("MPI_Reduce_scatter_init_c", sendbuf, recvbuf, recvcounts, 0, datatype, op, comm,
                             abi::coll_mode(request, info), false);
}

int MPI_Scan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Info info, MPI_Request* request) {
  return scan_impl("MPI_Scan_init", false, sendbuf, recvbuf, count, datatype, op, comm, abi::coll_mode(request, info));
}

int MPI_Scan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                     MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return scan_impl("MPI_Scan_init_c", false, sendbuf, recvbuf, count, datatype, op, comm,
                   abi::coll_mode(request, info));
}

int MPI_Exscan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                     MPI_Info info, MPI_Request* request) {
  return scan_impl("MPI_Exscan_init", true, sendbuf, recvbuf, count, datatype, op, comm, abi::coll_mode(request, info));
}

int MPI_Exscan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return scan_impl("MPI_Exscan_init_c", true, sendbuf, recvbuf, count, datatype, op, comm,
                   abi::coll_mode(request, info));
}


}  // namespace baton::impl
