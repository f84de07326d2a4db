// Bruck allgatherv: ceil(log2 n) rounds over a temporary holding the blocks in rank order relative
// to this rank (block i is rank (rank + i) mod n's). In the round of distance d each rank sends its
// first min(d, n - d) blocks to rank - d and receives as many from rank + d behind them; at the end
// every block is copied to its place in the receive buffer. Any n; the choice for small messages
// when n is not a power of two.
#include "coll/algorithms/gather/gather_helpers.hpp"

namespace baton::coll {

using namespace gather_detail;

errc gather_detail::allgatherv_bruck_impl(const coll_args& a, builder& b, const std::vector<int64_t>& counts,
                                          const std::vector<int64_t>& displs) {
  const int n = a.c->size, me = a.c->rank;
  const core::datatype* rt = a.rtype;
  const buf_ref rbuf{slot_recv, 0};
  // off[i]: element offset of relative block i in the temporary.
  std::vector<int64_t> off(static_cast<size_t>(n) + 1, 0);
  for (int i = 0; i < n; ++i)
    off[static_cast<size_t>(i) + 1] = off[static_cast<size_t>(i)] + counts[static_cast<size_t>((me + i) % n)];
  const buf_ref tmp = temp_buffer(b, rt, off[static_cast<size_t>(n)]);
  std::vector<uint32_t> have;
  const size_t mine = static_cast<size_t>(me);
  if (a.in_place)
    have.push_back(b.copy(at(rbuf, rt, displs[mine]), tmp, counts[mine], rt));
  else
    have.push_back(copy_convert(b, me, buf_ref{slot_send, 0}, a.count, a.type, tmp, counts[mine], rt, {}));
  for (int d = 1; d < n; d <<= 1) {
    const size_t cnt = static_cast<size_t>(std::min(d, n - d)), du = static_cast<size_t>(d);
    send_after(b, (me - d + n) % n, tmp, off[cnt], rt, have);
    have.push_back(b.recv((me + d) % n, at(tmp, rt, off[du]), off[du + cnt] - off[du], rt));
  }
  for (int i = a.in_place ? 1 : 0; i < n; ++i) {
    const size_t r = static_cast<size_t>((me + i) % n), iu = static_cast<size_t>(i);
    b.add(gather_step(step_kind::copy, 0, at(tmp, rt, off[iu]), at(rbuf, rt, displs[r]), counts[r], rt), have);
  }
  return errc::success;
}

errc allgatherv_bruck(const coll_args& a, builder& b) {
  const size_t n = static_cast<size_t>(a.c->size);
  return allgatherv_bruck_impl(a, b, std::vector<int64_t>(a.rcounts, a.rcounts + n),
                               std::vector<int64_t>(a.rdispls, a.rdispls + n));
}

}  // namespace baton::coll
