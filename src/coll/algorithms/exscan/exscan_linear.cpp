// Linear exscan: a chain; rank r receives the prefix of ranks 0..r-1 from r - 1 straight into its
// receive buffer, and sends prefix op mine on to r + 1. A fallback (n - 1 message latencies).
#include "coll/algorithms/algorithms.hpp"

namespace baton::coll {

errc exscan_linear(const coll_args& a, builder& b) {
  const int n = a.c->size, me = a.c->rank;
  const core::datatype* t = a.type;
  const int64_t cnt = a.count;
  b.set_op(a.op);
  const buf_ref out{slot_recv, 0};
  const buf_ref mine{a.in_place ? slot_recv : slot_send, 0};
  if (me + 1 == n && me == 0) return errc::success;
  if (me == 0) {
    b.send(1, mine, cnt, t);
    return errc::success;
  }
  // next = prefix op mine, built on a copy of mine taken before the prefix lands (in place).
  const buf_ref next = temp_buffer(b, t, cnt);
  const uint32_t c = b.copy(mine, next, cnt, t);
  const uint32_t r = b.recv(me - 1, out, cnt, t, {c});
  if (me + 1 < n) {
    const uint32_t x = b.reduce(out, next, cnt, t, {r});
    b.send(me + 1, next, cnt, t, {x});
  }
  return errc::success;
}

}  // namespace baton::coll
