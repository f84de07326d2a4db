// Recursive-doubling scan: ceil(log2 n) rounds; in round `mask` a rank swaps its partial result
// (the reduction over its group of `mask` ranks) with rank ^ mask. A partial from below is folded
// into both the partial and the result; one from above only into the partial, on the right, so
// rank order holds for non-commutative ops.
#include <utility>

#include "coll/algorithms/algorithms.hpp"

namespace baton::coll {

errc scan_recursive_doubling(const coll_args& a, builder& b) {
  const int n = a.c->size, me = a.c->rank;
  const core::datatype* t = a.type;
  const int64_t cnt = a.count;
  const bool comm_op = a.op->is_commutative();
  b.set_op(a.op);
  const buf_ref out{slot_recv, 0};
  buf_ref partial = temp_buffer(b, t, cnt);
  buf_ref in = temp_buffer(b, t, cnt);
  uint32_t last;
  if (a.in_place) {
    last = b.copy(out, partial, cnt, t);
  } else {
    const uint32_t c = b.copy(buf_ref{slot_send, 0}, out, cnt, t);
    last = b.copy(buf_ref{slot_send, 0}, partial, cnt, t, {c});
  }
  for (int mask = 1; mask < n; mask <<= 1) {
    const int peer = me ^ mask;
    if (peer >= n) continue;
    const uint32_t s = b.send(peer, partial, cnt, t, {last});
    const uint32_t r = b.recv(peer, in, cnt, t, {last});
    if (peer < me) {
      const uint32_t x = b.reduce(in, partial, cnt, t, {s, r});  // partial = theirs op partial
      last = b.reduce(in, out, cnt, t, {x});                     // out = theirs op out
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
