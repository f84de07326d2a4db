// Rabenseifner's allreduce: reduce-scatter by recursive halving, then allgather by recursive
// doubling. Each rank sends about 2x the message instead of log2(n)x. Commutative ops only.
//
// With n not a power of two, the first 2*rem ranks pair up first (rabenseifner.hpp): the odd one
// hands its data to the even one, sits out, and gets the result back at the end. The p = 2^k
// remaining ranks (new rank i) cut the count into p element pieces; after the halving new rank i
// holds piece i reduced over every rank, and the doubling spreads the pieces back.
#include "coll/algorithms/rabenseifner.hpp"

namespace baton::coll {

errc allreduce_rabenseifner(const coll_args& a, builder& b) {
  const int n = a.c->size, me = a.c->rank;
  const core::datatype* t = a.type;
  const int64_t count = a.count;
  b.set_op(a.op);
  const buf_ref acc{slot_recv, 0};
  const buf_ref mine = a.in_place ? acc : buf_ref{slot_send, 0};

  const rabenseifner_fold f(n, me);
  if (f.folded_away()) {
    const uint32_t s = b.send(me - 1, mine, count, t);
    if (a.in_place)
      b.recv(me - 1, acc, count, t, {s});
    else
      b.recv(me - 1, acc, count, t);
    return errc::success;
  }
  const int pof2 = f.pof2, newrank = f.newrank;
  auto real_of_new = [&](int nr) { return f.rank_of_new(nr); };

  const buf_ref tmp = temp_buffer(b, t, count);
  int lo = 0, hi = pof2;
  const uint32_t halved = rabenseifner_reduce_scatter(b, mine, acc, tmp, count, t, f, f.has_partner(me) ? me + 1 : -1,
                                                      real_of_new, &lo, &hi);

  // Recursive doubling: exchange the ranges held, which double each round. Receives land in parts
  // of acc the halving sent from, so they wait for those sends; a send waits for every piece it
  // carries.
  std::vector<uint32_t> have{halved};
  for (int mask = 1; mask < pof2; mask <<= 1) {
    const int peer = real_of_new(newrank ^ mask);
    const int peer_lo = newrank & mask ? lo - mask : hi;
    b.add(make_step(step_kind::send, peer, at(acc, t, piece_begin(count, pof2, lo)), {},
                    pieces_count(count, pof2, lo, hi), t),
          have);
    have.push_back(b.recv(peer, at(acc, t, piece_begin(count, pof2, peer_lo)),
                          pieces_count(count, pof2, peer_lo, peer_lo + mask), t, {halved}));
    lo = std::min(lo, peer_lo);
    hi = lo + 2 * mask;
  }
  if (f.has_partner(me)) b.add(make_step(step_kind::send, me + 1, acc, {}, count, t), have);
  return errc::success;
}

}  // namespace baton::coll
