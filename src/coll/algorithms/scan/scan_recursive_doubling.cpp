// Recursive-doubling scan (the rounds are prefix_doubling.hpp's): every partial from below is also
// folded into the result, on the left.
#include "coll/algorithms/prefix_doubling.hpp"

namespace baton::coll {

errc scan_recursive_doubling(const coll_args& a, builder& b) {
  const core::datatype* t = a.type;
  const int64_t cnt = a.count;
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
  // out = theirs op out
  prefix_doubling(a, b, partial, in, last,
                  [&](buf_ref theirs, uint32_t after) { return b.reduce(theirs, out, cnt, t, {after}); });
  return errc::success;
}

}  // namespace baton::coll
