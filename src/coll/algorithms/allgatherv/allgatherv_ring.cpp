// Ring allgatherv: n - 1 steps; in step i each rank sends block (rank - i) to its right neighbour
// and receives block (rank - i - 1) from its left one, in place in the receive buffer. Every
// receive is posted at once (the blocks are disjoint); a send waits for the step that brought its
// block. Bandwidth-optimal, n - 1 latencies: the choice for large messages.
#include "coll/algorithms/gather/gather_helpers.hpp"

namespace baton::coll {

using namespace gather_detail;

errc gather_detail::allgatherv_ring_impl(const coll_args& a, builder& b, const std::vector<int64_t>& counts,
                                         const std::vector<int64_t>& displs) {
  const int n = a.c->size, me = a.c->rank;
  const core::datatype* rt = a.rtype;
  const buf_ref rbuf{slot_recv, 0};
  const int right = (me + 1) % n, left = (me - 1 + n) % n;
  std::vector<uint32_t> have;  // the step that brought the block last received
  if (!a.in_place)
    have.push_back(
        copy_convert(b, me, buf_ref{slot_send, 0}, a.count, a.type, at(rbuf, rt, displs[me]), counts[me], rt, {}));
  for (int i = 0; i + 1 < n; ++i) {
    const size_t out = static_cast<size_t>((me - i + n) % n), in = static_cast<size_t>((me - i - 1 + 2 * n) % n);
    send_after(b, right, at(rbuf, rt, displs[out]), counts[out], rt, have);
    have.assign(1, b.recv(left, at(rbuf, rt, displs[in]), counts[in], rt));
  }
  return errc::success;
}

errc allgatherv_ring(const coll_args& a, builder& b) {
  const size_t n = static_cast<size_t>(a.c->size);
  return allgatherv_ring_impl(a, b, std::vector<int64_t>(a.rcounts, a.rcounts + n),
                              std::vector<int64_t>(a.rdispls, a.rdispls + n));
}

}  // namespace baton::coll
