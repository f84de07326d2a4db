#include "coll/algorithms/reduce_scatter/reduce_scatter_common.hpp"

#include <algorithm>

namespace baton::coll {

namespace {
std::vector<int64_t> prefix(const std::vector<int64_t>& counts) {
  std::vector<int64_t> d(counts.size() + 1, 0);
  for (size_t i = 0; i < counts.size(); ++i) d[i + 1] = d[i] + counts[i];
  return d;
}
}  // namespace

errc reduce_scatter_halving(const coll_args& a, builder& b, const std::vector<int64_t>& counts) {
  const int n = a.c->size, me = a.c->rank;
  const core::datatype* t = a.type;
  const std::vector<int64_t> disp = prefix(counts);
  const int64_t total = disp[n];
  b.set_op(a.op);
  const buf_ref src{a.in_place ? slot_recv : slot_send, 0};
  const buf_ref acc = temp_buffer(b, t, total);
  int64_t most = 0;  // the most elements one round receives
  {
    int lo = 0, hi = n;
    for (int mask = n / 2; mask > 0; mask >>= 1) {
      const int mid = lo + mask;
      if (me < mid)
        hi = mid;
      else
        lo = mid;
      most = std::max(most, disp[hi] - disp[lo]);
    }
  }
  const buf_ref in = temp_buffer(b, t, most);
  uint32_t last = b.copy(src, acc, total, t);
  int lo = 0, hi = n;
  for (int mask = n / 2; mask > 0; mask >>= 1) {
    const int partner = me ^ mask, mid = lo + mask;
    int keep_lo = lo, keep_hi = mid, give_lo = mid, give_hi = hi;
    if (me >= mid) {
      keep_lo = mid, keep_hi = hi, give_lo = lo, give_hi = mid;
    }
    const int64_t keep = disp[keep_hi] - disp[keep_lo];
    const uint32_t s = b.send(partner, at(acc, t, disp[give_lo]), disp[give_hi] - disp[give_lo], t, {last});
    const uint32_t r = b.recv(partner, in, keep, t, {last});
    last = b.reduce(in, at(acc, t, disp[keep_lo]), keep, t, {s, r});
    lo = keep_lo;
    hi = keep_hi;
  }
  b.copy(at(acc, t, disp[me]), buf_ref{slot_recv, 0}, counts[me], t, {last});
  return errc::success;
}

errc reduce_scatter_pairwise_counts(const coll_args& a, builder& b, const std::vector<int64_t>& counts) {
  const int n = a.c->size, me = a.c->rank;
  const core::datatype* t = a.type;
  const bool comm_op = a.op->is_commutative();
  const std::vector<int64_t> disp = prefix(counts);
  const int64_t mine = counts[me];
  b.set_op(a.op);
  const buf_ref src{a.in_place ? slot_recv : slot_send, 0};
  const buf_ref out{slot_recv, 0};
  // Contributions arrive from me-1, me-2, ..., 0, then n-1, ..., me+1. `left` accumulates ranks
  // 0..me (each arrival goes on its left), `right` ranks me+1..n-1 likewise; left op right at the
  // end. A commutative op needs only `left`. In place, the receive buffer holds blocks still to be
  // sent, so the result is built in a temporary.
  const buf_ref left = a.in_place ? temp_buffer(b, t, mine) : out;
  const buf_ref right = comm_op ? left : temp_buffer(b, t, mine);
  const buf_ref in[2] = {temp_buffer(b, t, mine), temp_buffer(b, t, mine)};
  uint32_t last_left = b.copy(at(src, t, disp[me]), left, mine, t);
  uint32_t last_right = 0;
  bool have_right = false;
  std::vector<uint32_t> sends, done(n, last_left);  // done[k]: step k's input buffer is free again
  uint32_t prev_recv = last_left;
  for (int k = 1; k < n; ++k) {
    const int to = (me + k) % n, from = (me - k + n) % n;
    if (counts[to] > 0) sends.push_back(b.send(to, at(src, t, disp[to]), counts[to], t, {prev_recv}));
    if (mine == 0) continue;
    const buf_ref buf = in[k % 2];
    const uint32_t r = b.recv(from, buf, mine, t, {prev_recv, k >= 2 ? done[k - 2] : last_left});
    prev_recv = r;
    if (from < me || comm_op) {
      last_left = b.reduce(buf, left, mine, t, {r, last_left});
      done[k] = last_left;
    } else if (!have_right) {
      last_right = b.copy(buf, right, mine, t, {r});
      have_right = true;
      done[k] = last_right;
    } else {
      last_right = b.reduce(buf, right, mine, t, {r, last_right});
      done[k] = last_right;
    }
  }
  std::vector<uint32_t> after = sends;
  if (have_right) {
    const uint32_t joined = b.reduce(left, right, mine, t, {last_left, last_right});  // right = left op right
    after.push_back(joined);
    b.add(
        [&] {
          step s;
          s.kind = step_kind::copy;
          s.a = right;
          s.b = out;
          s.count = mine;
          s.type = t;
          return s;
        }(),
        after);
  } else if (a.in_place) {
    after.push_back(last_left);
    step s;
    s.kind = step_kind::copy;
    s.a = left;
    s.b = out;
    s.count = mine;
    s.type = t;
    b.add(s, after);
  }
  return errc::success;
}

}  // namespace baton::coll
