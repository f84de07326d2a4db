// Ring allreduce: the count is cut into n element pieces; a reduce-scatter ring (n-1 steps: send
// piece me-s to the right, receive piece me-s-1 from the left and reduce it in) leaves piece me+1
// fully reduced here, then an allgather ring (n-1 steps) passes the reduced pieces around. Each
// rank sends 2(n-1)/n of the message, to its right neighbour only. Commutative ops only.
//
// No rounds: every step waits only for the data it touches, so piece k+1 travels while piece k is
// still being reduced. Incoming pieces land in their own place of one temporary, so every
// reduce-scatter receive is posted at once.
#include "coll/algorithms/algorithms.hpp"

namespace baton::coll {

errc allreduce_ring(const coll_args& a, builder& b) {
  const int n = a.c->size, me = a.c->rank;
  const core::datatype* t = a.type;
  const int64_t count = a.count;
  b.set_op(a.op);
  const buf_ref acc{slot_recv, 0};
  const buf_ref src = a.in_place ? acc : buf_ref{slot_send, 0};
  auto piece = [&](buf_ref base, int k) { return at(base, t, piece_begin(count, n, k)); };
  auto len = [&](int k) { return piece_count(count, n, k); };
  auto wrap = [&](int k) { return ((k % n) + n) % n; };

  // Piece k of this rank's contribution is in acc once init[k] is done.
  std::vector<uint32_t> init(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) init[k] = b.copy(piece(src, k), piece(acc, k), a.in_place ? 0 : len(k), t);
  if (n == 1) return errc::success;
  const int right = (me + 1) % n, left = (me - 1 + n) % n;
  const buf_ref tmp = temp_buffer(b, t, count);

  // Reduce-scatter: step s sends piece me-s (ready after the previous step's reduce).
  std::vector<uint32_t> rs_send(static_cast<size_t>(n - 1));
  uint32_t reduced = init[me];
  for (int s = 0; s < n - 1; ++s) {
    const int out = wrap(me - s), in = wrap(me - s - 1);
    rs_send[s] = b.send(right, piece(acc, out), len(out), t, {reduced});
    const uint32_t r = b.recv(left, piece(tmp, in), len(in), t);
    reduced = b.reduce(piece(tmp, in), piece(acc, in), len(in), t, {r, init[in]});
  }
  // Allgather: step s forwards piece me+1-s; receiving piece me-s overwrites what reduce-scatter
  // step s sent from there.
  uint32_t prev = reduced;
  for (int s = 0; s < n - 1; ++s) {
    const int out = wrap(me + 1 - s), in = wrap(me - s);
    b.send(right, piece(acc, out), len(out), t, {prev});
    prev = b.recv(left, piece(acc, in), len(in), t, {rs_send[s]});
  }
  return errc::success;
}

}  // namespace baton::coll
