// Rabenseifner's reduce: reduce-scatter by recursive halving, then a binomial gather of the reduced
// pieces to the root. Each rank sends about 2x the message instead of log2(n)x. Commutative ops
// only (partial results combine in exchange order, not rank order).
//
// Ranks are taken relative to the root. With n not a power of two, the first 2*rem relative ranks
// pair up first: the odd one hands its data to the even one and leaves, so the root (relative 0)
// always takes part. The p = 2^k remaining ranks (new rank i) cut the count into p element pieces;
// after the halving new rank i holds piece i reduced over every rank.
#include "coll/algorithms/algorithms.hpp"

namespace baton::coll {

errc reduce_rabenseifner(const coll_args& a, builder& b) {
  const int n = a.c->size, me = a.c->rank, root = a.root;
  const int vr = (me - root + n) % n;
  const core::datatype* t = a.type;
  const int64_t count = a.count;
  b.set_op(a.op);
  auto real = [&](int rel) { return (rel + root) % n; };
  const buf_ref mine = a.in_place && me == root ? buf_ref{slot_recv, 0} : buf_ref{slot_send, 0};

  int pof2 = 1;
  while (pof2 * 2 <= n) pof2 *= 2;
  const int rem = n - pof2;
  if (vr < 2 * rem && vr % 2 == 1) {
    b.send(real(vr - 1), mine, count, t);
    return errc::success;
  }
  const int newrank = vr < 2 * rem ? vr / 2 : vr - rem;
  auto real_of_new = [&](int nr) { return real(nr < rem ? nr * 2 : nr + rem); };

  // acc: the running result (the receive buffer at the root); tmp: incoming partial results.
  const buf_ref acc = me == root ? buf_ref{slot_recv, 0} : temp_buffer(b, t, count);
  const buf_ref tmp = temp_buffer(b, t, count);
  uint32_t last = b.copy(mine, acc, mine.slot == acc.slot ? 0 : count, t);
  if (vr < 2 * rem) {
    const uint32_t r = b.recv(real(vr + 1), tmp, count, t);
    last = b.reduce(tmp, acc, count, t, {r, last});
  }

  // Recursive halving over piece ranges [lo, hi): keep the half named by this rank's bit.
  std::vector<uint32_t> sent{last};
  int lo = 0, hi = pof2;
  last = recursive_halving(b, acc, tmp, count, t, pof2, newrank, real_of_new, last, sent, &lo, &hi);

  // Binomial gather to new rank 0 (the root): pieces [newrank, newrank + mask) travel as one
  // range. Receives land in parts of acc the halving sent from, so they wait for those sends.
  sent.push_back(last);
  const uint32_t halved = join(b, sent);
  std::vector<uint32_t> have{halved};
  for (int mask = 1; mask < pof2; mask <<= 1) {
    if (newrank & mask) {
      b.add(make_step(step_kind::send, real_of_new(newrank - mask), at(acc, t, piece_begin(count, pof2, newrank)), {},
                      pieces_count(count, pof2, newrank, newrank + mask), t),
            have);
      break;
    }
    const int from = newrank + mask;
    have.push_back(b.recv(real_of_new(from), at(acc, t, piece_begin(count, pof2, from)),
                          pieces_count(count, pof2, from, from + mask), t, {halved}));
  }
  return errc::success;
}

}  // namespace baton::coll
