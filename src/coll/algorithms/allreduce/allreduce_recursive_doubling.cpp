// Recursive-doubling allreduce: log2 p exchange rounds among the largest power of two p <= n
// ranks; the first 2(n-p) ranks pair up beforehand (the even one hands its data to the odd one)
// and get the result back at the end. Combinations keep rank order, so non-commutative ops work.
#include "coll/algorithms/algorithms.hpp"

namespace baton::coll {

errc allreduce_recursive_doubling(const coll_args& a, builder& b) {
  const int n = a.c->size, me = a.c->rank;
  const core::datatype* t = a.type;
  const bool comm_op = a.op->is_commutative();
  b.set_op(a.op);
  const buf_ref acc{slot_recv, 0};
  const buf_ref tmp = temp_buffer(b, t, a.count);

  // In place, the data already is in the receive buffer.
  const uint32_t last = a.in_place ? no_step : b.copy(buf_ref{slot_send, 0}, acc, a.count, t);
  group all;
  all.me = me;
  for (int r = 0; r < n; ++r) all.ranks.push_back(r);
  recursive_doubling_allreduce(b, all, acc, tmp, a.count, t, comm_op, last);
  return errc::success;
}

}  // namespace baton::coll
