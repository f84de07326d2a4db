// Linear scatterv: the root sends block r (scounts[r] elements at sdispls[r]) to every rank r at
// once.
#include "coll/algorithms/gather/gather_helpers.hpp"

namespace baton::coll {

using namespace gather_detail;

errc scatterv_linear(const coll_args& a, builder& b) {
  const int n = a.c->size, me = a.c->rank;
  const buf_ref sbuf{slot_send, 0}, rbuf{slot_recv, 0};
  if (me != a.root) {
    b.recv(a.root, rbuf, a.rcount, a.rtype);
    return errc::success;
  }
  const core::datatype* st = a.type;
  for (int r = 0; r < n; ++r) {
    if (r != me) b.send(r, at(sbuf, st, a.sdispls[r]), a.scounts[r], st);
  }
  if (!a.in_place) copy_convert(b, me, at(sbuf, st, a.sdispls[me]), a.scounts[me], st, rbuf, a.rcount, a.rtype, {});
  return errc::success;
}

}  // namespace baton::coll
