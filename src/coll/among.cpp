// Internal blocking collectives among members of a communicator (see among.hpp).
#include "coll/among.hpp"

#include <cstring>

#include "coll/schedule.hpp"
#include "core/comm.hpp"
#include "core/datatype.hpp"
#include "core/request.hpp"
#include "p2p/p2p.hpp"

namespace baton::coll {

using core::comm;
using core::datatype;
using core::request;
using core::send_mode;

namespace {
const datatype* byte_type() { return core::predefined_datatype(0x247); }

// A view of c's collective context for the point-to-point engine.
struct coll_view {
  comm shadow;
  explicit coll_view(comm* c) {
    shadow.ctx = c->ctx + 1;
    shadow.rank = c->rank;
    shadow.size = c->size;
    shadow.world = c->world;
    shadow.predefined = true;
  }
};

}  // namespace

// Internal collectives over point-to-point on the communicator's collective context. Every
// collective operation on a communicator (these included) consumes one sequence number; these use
// the blocking collectives' tag for it, so they never match any other collective.
int comm_next_tag(comm* c) { return make_tag_prefix(c->coll_seq++, false); }

errc wait_free(request* r) {
  errc e = p2p::wait(r);
  if (e == errc::success) e = r->status.error;
  r->c->release();
  const_cast<datatype*>(r->dt)->release();
  core::request_delete(r);
  return e;
}

// Linear gather of `bytes` from every member to the first one (`out`, member order; only the first
// member's `out` is written). `members` are parent ranks, `me` this rank's index among them.
errc gather_among(comm* c, const std::vector<int>& members, int me, int tag, const void* in, size_t bytes,
                  void* out) {
  coll_view v(c);
  const int n = static_cast<int>(members.size());
  const auto* bt = byte_type();
  if (me != 0) return p2p::send(in, int64_t(bytes), bt, members[0], tag, &v.shadow, send_mode::standard);
  char* o = static_cast<char*>(out);
  std::memcpy(o, in, bytes);
  std::vector<request*> rs;
  errc first = errc::success;
  for (int i = 1; i < n && first == errc::success; ++i) {
    request* q = nullptr;
    first = p2p::irecv(o + size_t(i) * bytes, int64_t(bytes), bt, members[size_t(i)], tag, &v.shadow, &q);
    if (first == errc::success) rs.push_back(q);
  }
  for (request* q : rs)
    if (errc e = wait_free(q); e != errc::success && first == errc::success) first = e;
  return first;
}

// Linear broadcast of `bytes` at `buf` from the first member to the others.
errc bcast_among(comm* c, const std::vector<int>& members, int me, int tag, void* buf, size_t bytes) {
  coll_view v(c);
  const int n = static_cast<int>(members.size());
  const auto* bt = byte_type();
  if (me != 0) return p2p::recv(buf, int64_t(bytes), bt, members[0], tag, &v.shadow, nullptr);
  std::vector<request*> rs;
  errc first = errc::success;
  for (int i = 1; i < n && first == errc::success; ++i) {
    request* q = nullptr;
    first = p2p::isend(buf, int64_t(bytes), bt, members[size_t(i)], tag, &v.shadow, send_mode::standard, &q);
    if (first == errc::success) rs.push_back(q);
  }
  for (request* q : rs)
    if (errc e = wait_free(q); e != errc::success && first == errc::success) first = e;
  return first;
}

// Gathers `bytes` from every member to every member (gather to the first member, then broadcast).
errc allgather_among(comm* c, const std::vector<int>& members, int me, int tag, const void* in, size_t bytes,
                     void* out) {
  if (members.size() == 1) {
    std::memcpy(out, in, bytes);
    return errc::success;
  }
  if (errc e = gather_among(c, members, me, tag, in, bytes, out); e != errc::success) return e;
  return bcast_among(c, members, me, tag, out, bytes * members.size());
}

}  // namespace baton::coll
