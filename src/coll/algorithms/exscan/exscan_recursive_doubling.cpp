// Recursive-doubling exscan: the scan's rounds, except that the result only takes partials from
// below (the first one is copied, later ones folded in on the left). Rank 0's receive buffer is
// left alone, as the standard leaves it undefined.
#include <utility>

#include "coll/algorithms/algorithms.hpp"

namespace baton::coll {

errc exscan_recursive_doubling(const coll_args& a, builder& b) {
  const int n = a.c->size, me = a.c->rank;
  const core::datatype* t = a.type;
  const int64_t cnt = a.count;
  const bool comm_op = a.op->is_commutative();
  b.set_op(a.op);
  const buf_ref out{slot_recv, 0};
  buf_ref partial = temp_buffer(b, t, cnt);
  buf_ref in = temp_buffer(b, t, cnt);
  uint32_t last = b.copy(buf_ref{a.in_place ? slot_recv : slot_send, 0}, partial, cnt, t);
  bool have_out = false;
  for (int mask = 1; mask < n; mask <<= 1) {
    const int peer = me ^ mask;
    if (peer >= n) continue;
    const uint32_t s = b.send(peer, partial, cnt, t, {last});
    const uint32_t r = b.recv(peer, in, cnt, t, {last});
    if (peer < me) {
      const uint32_t x = b.reduce(in, partial, cnt, t, {s, r});  // partial = theirs op partial
      last = have_out ? b.reduce(in, out, cnt, t, {x}) : b.copy(in, out, cnt, t, {x});
      have_out = true;
    } else if (comm_op) {
      last = b.reduce(in, partial, cnt, t, {s, r});
    } else {
      last = b.reduce(partial, in, cnt, t, {s, r});  // in = partial op theirs: the new partial
      std::swap(partial, in);
    }
  }
  return errc::success;
}

}  // namespace baton::coll
