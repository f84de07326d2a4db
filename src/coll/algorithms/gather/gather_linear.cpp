// Linear gather: every rank sends its block to the root, which receives them all at once.
#include "coll/algorithms/gather/gather_helpers.hpp"

namespace baton::coll {

using namespace gather_detail;

errc gather_linear(const coll_args& a, builder& b) {
  const int n = a.c->size, me = a.c->rank;
  const buf_ref sbuf{slot_send, 0}, rbuf{slot_recv, 0};
  if (me != a.root) {
    b.send(a.root, sbuf, a.count, a.type);
    return errc::success;
  }
  const core::datatype* rt = a.rtype;
  const int64_t rc = a.rcount;
  for (int r = 0; r < n; ++r) {
    if (r != me) b.recv(r, at(rbuf, rt, r * rc), rc, rt);
  }
  if (!a.in_place) copy_convert(b, me, sbuf, a.count, a.type, at(rbuf, rt, me * rc), rc, rt, {});
  return errc::success;
}

}  // namespace baton::coll
