// Linear scatter: the root sends block r to every rank r at once.
#include "coll/algorithms/gather/gather_helpers.hpp"

namespace baton::coll {

using namespace gather_detail;

errc scatter_linear(const coll_args& a, builder& b) {
  const int n = a.c->size, me = a.c->rank;
  const buf_ref sbuf{slot_send, 0}, rbuf{slot_recv, 0};
  if (me != a.root) {
    b.recv(a.root, rbuf, a.rcount, a.rtype);
    return errc::success;
  }
  const core::datatype* st = a.type;
  const int64_t sc = a.count;
  for (int r = 0; r < n; ++r) {
    if (r != me) b.send(r, at(sbuf, st, r * sc), sc, st);
  }
  if (!a.in_place) copy_convert(b, me, at(sbuf, st, me * sc), sc, st, rbuf, a.rcount, a.rtype, {});
  return errc::success;
}

}  // namespace baton::coll
