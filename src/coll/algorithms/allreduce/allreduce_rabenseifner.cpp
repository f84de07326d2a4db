// Rabenseifner's allreduce: reduce-scatter by recursive halving, then allgather by recursive
// doubling. Each rank sends about 2x the message instead of log2(n)x. Commutative ops only.
//
// With n not a power of two, the first 2*rem ranks pair up first: the odd one hands its data to
// the even one, sits out, and gets the result back at the end. The p = 2^k remaining ranks (new
// rank i) cut the count into p element pieces; after the halving new rank i holds piece i reduced
// over every rank, and the doubling spreads the pieces back.
#include "coll/algorithms/algorithms.hpp"

namespace baton::coll {

errc allreduce_rabenseifner(const coll_args& a, builder& b) {
  const int n = a.c->size, me = a.c->rank;
  const core::datatype* t = a.type;
  const int64_t count = a.count;
  b.set_op(a.op);
  const buf_ref acc{slot_recv, 0};
  const buf_ref mine = a.in_place ? acc : buf_ref{slot_send, 0};

  int pof2 = 1;
  while (pof2 * 2 <= n) pof2 *= 2;
  const int rem = n - pof2;
  if (me < 2 * rem && me % 2 == 1) {
    const uint32_t s = b.send(me - 1, mine, count, t);
    if (a.in_place)
      b.recv(me - 1, acc, count, t, {s});
    else
      b.recv(me - 1, acc, count, t);
    return errc::success;
  }
  const int newrank = me < 2 * rem ? me / 2 : me - rem;
  auto real_of_new = [&](int nr) { return nr < rem ? nr * 2 : nr + rem; };

  const buf_ref tmp = temp_buffer(b, t, count);
  uint32_t last = b.copy(mine, acc, a.in_place ? 0 : count, t);
  if (me < 2 * rem) {
    const uint32_t r = b.recv(me + 1, tmp, count, t);
    last = b.reduce(tmp, acc, count, t, {r, last});
  }

  // Recursive halving over piece ranges [lo, hi): keep the half named by this rank's bit.
  std::vector<uint32_t> sent;
  int lo = 0, hi = pof2;
  last = recursive_halving(b, acc, tmp, count, t, pof2, newrank, real_of_new, last, sent, &lo, &hi);

  // Recursive doubling: exchange the ranges held, which double each round. Receives land in parts
  // of acc the halving sent from, so they wait for those sends; a send waits for every piece it
  // carries.
  sent.push_back(last);
  const uint32_t halved = join(b, sent);
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
  if (me < 2 * rem) b.add(make_step(step_kind::send, me + 1, acc, {}, count, t), have);
  return errc::success;
}

}  // namespace baton::coll
