// Helpers shared by the gather(v), scatter(v) and allgather(v) algorithms.
//
// Blocks are per-rank pieces of a user buffer: block r of a buffer of `count` elements per rank of
// type t starts at element r * count (or at displs[r] for the v forms). Ranks that forward data they
// do not own (inner nodes of binomial trees) keep it in a temporary as packed bytes (MPI_BYTE), so
// they need neither the root's datatype nor its holes; the user-side steps convert between the
// packed form and the user's type (send and receive types may differ, only the type signatures
// agree).
#pragma once

#include <algorithm>
#include <vector>

#include "coll/algorithms/algorithms.hpp"

namespace baton::coll::gather_detail {

inline const core::datatype* byte_type() {
  return core::predefined_datatype(0x247);
}  // MPI_BYTE

inline step gather_step(step_kind k, int peer, buf_ref a, buf_ref b, int64_t count, const core::datatype* t) {
  step s;
  s.kind = k;
  s.peer = peer;
  s.a = a;
  s.b = b;
  s.count = count;
  s.type = t;
  return s;
}

inline uint32_t send_after(builder& b, int peer, buf_ref src, int64_t count, const core::datatype* t,
                           const std::vector<uint32_t>& after) {
  return b.add(gather_step(step_kind::send, peer, src, {}, count, t), after);
}
inline uint32_t recv_after(builder& b, int peer, buf_ref dst, int64_t count, const core::datatype* t,
                           const std::vector<uint32_t>& after) {
  return b.add(gather_step(step_kind::recv, peer, dst, {}, count, t), after);
}

// Moves (src, scount, st) into (dst, rcount, rt), two layouts of the same type signature: one copy
// step when the types agree or both are contiguous, else a message to this rank itself (the p2p
// engine converts between any two layouts). Returns the step after which dst holds the data.
inline uint32_t copy_convert(builder& b, int me, buf_ref src, int64_t scount, const core::datatype* st, buf_ref dst,
                             int64_t rcount, const core::datatype* rt, const std::vector<uint32_t>& after) {
  if (st == rt && scount == rcount) return b.add(gather_step(step_kind::copy, 0, src, dst, scount, st), after);
  if (st->is_contiguous() && rt->is_contiguous()) {
    const buf_ref s{src.slot, src.offset + st->true_lb()}, d{dst.slot, dst.offset + rt->true_lb()};
    return b.add(gather_step(step_kind::copy, 0, s, d, scount * st->size(), byte_type()), after);
  }
  send_after(b, me, src, scount, st, after);
  return recv_after(b, me, dst, rcount, rt, after);
}

// Binomial trees over ranks relative to the root (vr = (rank - root) mod n): the subtree of vr holds
// relative ranks [vr, vr + subtree_size(vr)); its parent is vr - lowbit(vr).
inline int lowbit(int vr, int n) {
  return vr == 0 ? n : (vr & -vr);
}
inline int subtree_size(int vr, int n) {
  return std::min(lowbit(vr, n), n - vr);
}

// Allgatherv by the ring (blocks travel n - 1 hops to the right) or Bruck's algorithm (ceil(log2 n)
// rounds through a temporary in rank order relative to this rank), with per-rank counts and
// displacements in elements of the receive type. Shared by allgather and allgatherv.
errc allgatherv_ring_impl(const coll_args& a, builder& b, const std::vector<int64_t>& counts,
                          const std::vector<int64_t>& displs);
errc allgatherv_bruck_impl(const coll_args& a, builder& b, const std::vector<int64_t>& counts,
                           const std::vector<int64_t>& displs);

inline void uniform_blocks(int n, int64_t count, std::vector<int64_t>* counts, std::vector<int64_t>* displs) {
  counts->assign(static_cast<size_t>(n), count);
  displs->resize(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) (*displs)[static_cast<size_t>(r)] = r * count;
}

}  // namespace baton::coll::gather_detail
