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

  uint32_t last;
  if (a.in_place) {
    // the data already is in the receive buffer: an empty dependency anchor
    last = b.copy(acc, acc, 0, t);
  } else {
    last = b.copy(buf_ref{slot_send, 0}, acc, a.count, t);
  }
  int pof2 = 1;
  while (pof2 * 2 <= n) pof2 *= 2;
  const int rem = n - pof2;

  int newrank;
  if (me < 2 * rem) {
    if (me % 2 == 0) {  // hand the data to the odd neighbour, get the result back at the end
      uint32_t s = b.send(me + 1, acc, a.count, t, {last});
      b.recv(me + 1, acc, a.count, t, {s});
      return errc::success;
    }
    uint32_t r = b.recv(me - 1, tmp, a.count, t, {last});
    last = b.reduce(tmp, acc, a.count, t, {r});  // acc = left op acc
    newrank = me / 2;
  } else {
    newrank = me - rem;
  }
  for (int mask = 1; mask < pof2; mask <<= 1) {
    const int newdst = newrank ^ mask;
    const int dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;
    uint32_t s = b.send(dst, acc, a.count, t, {last});
    uint32_t r = b.recv(dst, tmp, a.count, t, {last});
    if (dst < me || comm_op) {
      last = b.reduce(tmp, acc, a.count, t, {s, r});  // acc = theirs op acc
    } else {
      uint32_t red = b.reduce(acc, tmp, a.count, t, {s, r});  // tmp = acc op theirs
      last = b.copy(tmp, acc, a.count, t, {red});
    }
  }
  if (me < 2 * rem) b.send(me - 1, acc, a.count, t, {last});
  return errc::success;
}

}  // namespace baton::coll
