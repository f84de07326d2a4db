// The rounds recursive-doubling scan (scan/scan_recursive_doubling.cpp) and exscan
// (exscan/exscan_recursive_doubling.cpp) share: ceil(log2 n) rounds; in round `mask` a rank swaps
// its partial result (the reduction over its group of `mask` ranks) with rank ^ mask. A partial
// from below is folded into the partial, and the caller folds it into the result; one from above
// goes only into the partial, on the right, so rank order holds for non-commutative ops.
#pragma once

#include <utility>

#include "coll/algorithms/algorithms.hpp"

namespace baton::coll {

// `partial` holds this rank's data after step `last`; `in` is a temporary of the same size.
// on_below(in, after) adds the partial `in` from a lower rank to the result, after step `after`,
// and returns its step.
template <class OnBelow>
void prefix_doubling(const coll_args& a, builder& b, buf_ref partial, buf_ref in, uint32_t last, OnBelow on_below) {
  const int n = a.c->size, me = a.c->rank;
  const core::datatype* t = a.type;
  const int64_t cnt = a.count;
  const bool comm_op = a.op->is_commutative();
  for (int mask = 1; mask < n; mask <<= 1) {
    const int peer = me ^ mask;
    if (peer >= n) continue;
    const uint32_t s = b.send(peer, partial, cnt, t, {last});
    const uint32_t r = b.recv(peer, in, cnt, t, {last});
    if (peer < me) {
      const uint32_t x = b.reduce(in, partial, cnt, t, {s, r});  // partial = theirs op partial
      last = on_below(in, x);
    } else if (comm_op) {
      last = b.reduce(in, partial, cnt, t, {s, r});
    } else {
      last = b.reduce(partial, in, cnt, t, {s, r});  // in = partial op theirs: the new partial
      std::swap(partial, in);
    }
  }
}

}  // namespace baton::coll
