#include "io/comm_util.hpp"

#include "coll/coll.hpp"
#include "core/datatype.hpp"

namespace baton::io {

const core::datatype* byte_type() { return core::predefined_datatype(0x247); }

core::errc allgather(core::comm* c, const void* in, size_t bytes, void* out) {
  coll::coll_args a;
  a.kind = coll::coll_kind::allgather;
  a.c = c;
  a.sendbuf = in;
  a.recvbuf = out;
  a.count = int64_t(bytes);
  a.type = byte_type();
  a.rcount = int64_t(bytes);
  a.rtype = byte_type();
  return coll::run_blocking(a);
}

core::errc bcast(core::comm* c, void* buf, size_t bytes, int root) {
  coll::coll_args a;
  a.kind = coll::coll_kind::bcast;
  a.c = c;
  a.sendbuf = buf;
  a.recvbuf = buf;
  a.count = int64_t(bytes);
  a.type = byte_type();
  a.root = root;
  return coll::run_blocking(a);
}

core::errc barrier(core::comm* c) {
  coll::coll_args a;
  a.kind = coll::coll_kind::barrier;
  a.c = c;
  return coll::run_blocking(a);
}

}  // namespace baton::io
