// Recursive-doubling exscan (the rounds are prefix_doubling.hpp's): the result only takes partials
// from below (the first one is copied, later ones folded in on the left). Rank 0's receive buffer
// is left alone, as the standard leaves it undefined.
#include "coll/algorithms/prefix_doubling.hpp"

namespace baton::coll {

errc exscan_recursive_doubling(const coll_args& a, builder& b) {
  const core::datatype* t = a.type;
  const int64_t cnt = a.count;
  b.set_op(a.op);
  const buf_ref out{slot_recv, 0};
  buf_ref partial = temp_buffer(b, t, cnt);
  buf_ref in = temp_buffer(b, t, cnt);
  const uint32_t last = b.copy(buf_ref{a.in_place ? slot_recv : slot_send, 0}, partial, cnt, t);
  bool have_out = false;
  prefix_doubling(a, b, partial, in, last, [&](buf_ref theirs, uint32_t after) {
    const uint32_t s = have_out ? b.reduce(theirs, out, cnt, t, {after}) : b.copy(theirs, out, cnt, t, {after});
    have_out = true;
    return s;
  });
  return errc::success;
}

}  // namespace baton::coll
