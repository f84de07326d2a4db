// Rabenseifner's reduce: reduce-scatter by recursive halving, then a binomial gather of the reduced
// pieces to the root. Each rank sends about 2x the message instead of log2(n)x. Commutative ops
// only (partial results combine in exchange order, not rank order).
//
// Ranks are taken relative to the root. With n not a power of two, the first 2*rem relative ranks
// pair up first (rabenseifner.hpp): the odd one hands its data to the even one and leaves, so the
// root (relative 0) always takes part. The p = 2^k remaining ranks (new rank i) cut the count into
// p element pieces; after the halving new rank i holds piece i reduced over every rank.
#include "coll/algorithms/rabenseifner.hpp"

namespace baton::coll {

errc reduce_rabenseifner(const coll_args& a, builder& b) {
  const int n = a.c->size, me = a.c->rank, root = a.root;
  const int vr = (me - root + n) % n;
  const core::datatype* t = a.type;
  const int64_t count = a.count;
  b.set_op(a.op);
  auto real = [&](int rel) { return (rel + root) % n; };
  const buf_ref mine = a.in_place && me == root ? buf_ref{slot_recv, 0} : buf_ref{slot_send, 0};

  const rabenseifner_fold f(n, vr);
  if (f.folded_away()) {
    b.send(real(vr - 1), mine, count, t);
    return errc::success;
  }
  const int pof2 = f.pof2, newrank = f.newrank;
  auto real_of_new = [&](int nr) { return real(f.rank_of_new(nr)); };

  // acc: the running result (the receive buffer at the root); tmp: incoming partial results.
  const buf_ref acc = me == root ? buf_ref{slot_recv, 0} : temp_buffer(b, t, count);
  const buf_ref tmp = temp_buffer(b, t, count);
  int lo = 0, hi = pof2;
  const uint32_t halved = rabenseifner_reduce_scatter(b, mine, acc, tmp, count, t, f,
                                                      f.has_partner(vr) ? real(vr + 1) : -1, real_of_new, &lo, &hi);

  // Binomial gather to new rank 0 (the root): pieces [newrank, newrank + mask) travel as one
  // range. Receives land in parts of acc the halving sent from, so they wait for those sends.
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
