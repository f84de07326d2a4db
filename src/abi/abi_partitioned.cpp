// Partitioned point-to-point communication (MPI-4.1 chapter 4), with the large-count (_c) init
// forms. Starts and completions are the generic request calls (abi_request.cpp), which reach the
// partitioned request through request_ops (src/p2p/partitioned.hpp).
#include <cstdint>

#include "abi/abi.hpp"
#include "abi/abi_objects.hpp"
#include "p2p/partitioned.hpp"

using namespace baton;
using abi::call;
using core::errc;

namespace {

errc check_init_args(const void* buf, int partitions, int64_t count, MPI_Datatype type, int rank, int tag,
                     bool send, core::comm* c, const core::datatype** t) {
  if (c->ctx == core::context_none)
    return core::error_set(errc::comm, "the communicator is not usable yet: its MPI_Comm_idup has not completed");
  if (partitions < 0)
    return core::error_set(errc::arg, "negative number of partitions %d", partitions);
  if (errc e = abi::check_count(count); e != errc::success) return e;
  *t = abi::to_type(type);
  if (errc e = abi::check_type(*t); e != errc::success) return e;
  if (!send && rank == MPI_ANY_SOURCE)
    return core::error_set(errc::rank, "MPI_ANY_SOURCE is not allowed: a partitioned receive names its source");
  if (errc e = abi::check_send_rank(c, rank); e != errc::success) return e;
  if (!send && tag == MPI_ANY_TAG)
    return core::error_set(errc::tag, "MPI_ANY_TAG is not allowed: a partitioned receive names its tag");
  if (errc e = abi::check_send_tag(tag); e != errc::success) return e;
  const int64_t size = (*t)->size();
  if (count > 0 && (partitions > INT64_MAX / count || (size > 0 && partitions * count > INT64_MAX / size)))
    return core::error_set(errc::count, "%d partitions of %lld elements of %lld bytes overflow the message size",
                           partitions, static_cast<long long>(count), static_cast<long long>(size));
  return abi::check_buffer(buf, int64_t(partitions) * count, *t);
}

int init_impl(const char* fn, bool send, const void* buf, int partitions, int64_t count, MPI_Datatype type, int rank,
              int tag, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise(fn, nullptr, errc::comm);
  const core::datatype* t = nullptr;
  if (errc e = check_init_args(buf, partitions, count, type, rank, tag, send, c, &t); e != errc::success)
    return abi::raise(fn, c, e);
  if (info != MPI_INFO_NULL && !abi::to_info(info)) return abi::raise(fn, c, errc::info);
  if (!request) {
    (void)core::error_set(errc::arg, "NULL request pointer");
    return abi::raise(fn, c, errc::arg);
  }
  return call(fn, c, [&] {
    core::request* r = nullptr;
    errc e = send ? p2p::psend_init(buf, partitions, count, t, rank, tag, c, &r)
                  : p2p::precv_init(const_cast<void*>(buf), partitions, count, t, rank, tag, c, &r);
    if (e == errc::success) *request = abi::to_handle(r);
    return e;
  });
}

// The request of MPI_Pready* / MPI_Parrived: a live handle (MPI_REQUEST_NULL allowed when
// null_ok). Reports through MPI_COMM_WORLD's handler when there is no request to name a comm.
errc request_arg(const char* fn, MPI_Request h, bool null_ok, core::request** r) {
  if (errc e = abi::check_init(fn); e != errc::success) return e;
  if (errc e = abi::check_request(h, r); e != errc::success) return e;
  if (!*r && !null_ok) return core::error_set(errc::request, "the request is MPI_REQUEST_NULL");
  return errc::success;
}

}  // namespace

namespace baton::impl {

int MPI_Psend_init(const void* buf, int partitions, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return init_impl("MPI_Psend_init", true, buf, partitions, count, datatype, dest, tag, comm, info, request);
}

int MPI_Psend_init_c(const void* buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return init_impl("MPI_Psend_init_c", true, buf, partitions, count, datatype, dest, tag, comm, info, request);
}

int MPI_Precv_init(void* buf, int partitions, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                    MPI_Info info, MPI_Request* request) {
  return init_impl("MPI_Precv_init", false, buf, partitions, count, datatype, source, tag, comm, info, request);
}

int MPI_Precv_init_c(void* buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                      MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return init_impl("MPI_Precv_init_c", false, buf, partitions, count, datatype, source, tag, comm, info, request);
}

int MPI_Pready(int partition, MPI_Request request) {
  const char* fn = "MPI_Pready";
  core::request* r = nullptr;
  if (errc e = request_arg(fn, request, false, &r); e != errc::success) return abi::raise(fn, nullptr, e);
  return call(fn, r->c, [&] { return p2p::pready_list(r, &partition, 1); });
}

int MPI_Pready_range(int partition_low, int partition_high, MPI_Request request) {
  const char* fn = "MPI_Pready_range";
  core::request* r = nullptr;
  if (errc e = request_arg(fn, request, false, &r); e != errc::success) return abi::raise(fn, nullptr, e);
  return call(fn, r->c, [&] { return p2p::pready_range(r, partition_low, partition_high); });
}

int MPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request) {
  const char* fn = "MPI_Pready_list";
  core::request* r = nullptr;
  if (errc e = request_arg(fn, request, false, &r); e != errc::success) return abi::raise(fn, nullptr, e);
  if (length < 0 || (length > 0 && !array_of_partitions)) {
    (void)core::error_set(errc::arg, length < 0 ? "negative length %d" : "NULL array of %d partitions", length);
    return abi::raise(fn, r->c, errc::arg);
  }
  return call(fn, r->c, [&] { return p2p::pready_list(r, array_of_partitions, length); });
}

// MPI-4.1 chapter 4: a null or inactive request gives flag = true.
int MPI_Parrived(MPI_Request request, int partition, int* flag) {
  const char* fn = "MPI_Parrived";
  core::request* r = nullptr;
  if (errc e = request_arg(fn, request, true, &r); e != errc::success) return abi::raise(fn, nullptr, e);
  if (!flag) {
    (void)core::error_set(errc::arg, "NULL flag pointer");
    return abi::raise(fn, r ? r->c : nullptr, errc::arg);
  }
  if (!r) {
    *flag = 1;
    return MPI_SUCCESS;
  }
  return call(fn, r->c, [&] {
    bool f = false;
    errc e = p2p::parrived(r, partition, &f);
    if (e == errc::success) *flag = f ? 1 : 0;
    return e;
  });
}

}  // namespace baton::impl
