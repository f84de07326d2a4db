// Recursive-doubling allgather (n a power of two): log2 n rounds; in the round of distance d a rank
// and its partner rank ^ d swap the d adjacent blocks each holds, in one message each way, in place
// in the receive buffer.
#include "coll/algorithms/gather/gather_helpers.hpp"

namespace baton::coll {

using namespace gather_detail;

errc allgather_recursive_doubling(const coll_args& a, builder& b) {
  const int n = a.c->size, me = a.c->rank;
  const core::datatype* rt = a.rtype;
  const int64_t rc = a.rcount;
  const buf_ref rbuf{slot_recv, 0};
  std::vector<uint32_t> have;
  if (!a.in_place)
    have.push_back(copy_convert(b, me, buf_ref{slot_send, 0}, a.count, a.type, at(rbuf, rt, me * rc), rc, rt, {}));
  for (int d = 1; d < n; d <<= 1) {
    const int partner = me ^ d;
    const int mine = me & ~(d - 1), theirs = partner & ~(d - 1);
    send_after(b, partner, at(rbuf, rt, mine * rc), d * rc, rt, have);
    // Received blocks are disjoint from everything sent before: a receive needs no dependency, a
    // send needs every earlier receive (they complete in any order).
    have.push_back(b.recv(partner, at(rbuf, rt, theirs * rc), d * rc, rt));
  }
  return errc::success;
}

}  // namespace baton::coll
