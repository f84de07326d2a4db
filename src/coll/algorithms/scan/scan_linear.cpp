// Linear scan: a chain; rank r receives the prefix of ranks 0..r-1 from r - 1, folds in its own
// contribution on the right and passes the result to r + 1. n - 1 message latencies: a fallback.
#include "coll/algorithms/algorithms.hpp"

namespace baton::coll {

errc scan_linear(const coll_args& a, builder& b) {
  const int n = a.c->size, me = a.c->rank;
  const core::datatype* t = a.type;
  const int64_t cnt = a.count;
  b.set_op(a.op);
  const buf_ref out{slot_recv, 0};
  uint32_t last = a.in_place ? b.copy(out, out, 0, t) : b.copy(buf_ref{slot_send, 0}, out, cnt, t);
  if (me > 0) {
    const buf_ref in = temp_buffer(b, t, cnt);
    const uint32_t r = b.recv(me - 1, in, cnt, t);
    last = b.reduce(in, out, cnt, t, {r, last});  // out = prefix op mine
  }
  if (me + 1 < n) b.send(me + 1, out, cnt, t, {last});
  return errc::success;
}

}  // namespace baton::coll
