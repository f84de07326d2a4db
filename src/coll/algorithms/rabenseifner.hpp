// What Rabenseifner's reduce (reduce/reduce_rabenseifner.cpp) and allreduce
// (allreduce/allreduce_rabenseifner.cpp) share: the fold that brings the rank count down to a power
// of two, and the reduce-scatter by recursive halving that follows it. They differ in what comes
// after (a binomial gather to the root, or an allgather by recursive doubling) and in the ranks
// they count from (relative to the root, or the communicator's).
#pragma once

#include <vector>

#include "coll/algorithms/algorithms.hpp"

namespace baton::coll {

// With n ranks not a power of two, the first 2 * rem ranks (counted from the algorithm's rank 0)
// pair up: the odd one of each pair hands its data to the even one and takes no part in the
// halving. The pof2 ranks left are numbered 0..pof2-1 ("new" ranks).
struct rabenseifner_fold {
  int pof2 = 1;
  int rem = 0;
  int newrank = -1;  // -1: folded away (this rank handed its data to rank - 1)

  rabenseifner_fold(int n, int rank) {
    while (pof2 * 2 <= n) pof2 *= 2;
    rem = n - pof2;
    if (rank < 2 * rem)
      newrank = rank % 2 == 1 ? -1 : rank / 2;
    else
      newrank = rank - rem;
  }
  bool folded_away() const { return newrank < 0; }
  // Whether this rank takes its odd partner's data (rank + 1) before the halving.
  bool has_partner(int rank) const { return rank < 2 * rem && newrank >= 0; }
  // The rank (counted as the constructor's `rank`) of new rank nr.
  int rank_of_new(int nr) const { return nr < rem ? nr * 2 : nr + rem; }
};

// The reduce-scatter half for a rank that takes part: acc gets this rank's data (`mine`: nothing
// to copy when it is acc's slot) reduced with its partner's (real rank `partner`, -1 for none;
// received into tmp), then the recursive halving among the new ranks. Returns a join step after
// which [*lo, *hi) of the pieces of acc hold the reduction over every rank and every send from acc
// is done (receives into acc must wait for it).
template <class RealOfNew>
uint32_t rabenseifner_reduce_scatter(builder& b, buf_ref mine, buf_ref acc, buf_ref tmp, int64_t count,
                                     const core::datatype* t, const rabenseifner_fold& f, int partner,
                                     RealOfNew real_of_new, int* lo, int* hi) {
  uint32_t last = b.copy(mine, acc, mine.slot == acc.slot ? 0 : count, t);
  if (partner >= 0) {
    const uint32_t r = b.recv(partner, tmp, count, t);
    last = b.reduce(tmp, acc, count, t, {r, last});
  }
  // Recursive halving over piece ranges [lo, hi): keep the half named by this rank's bit.
  std::vector<uint32_t> sent{last};
  last = recursive_halving(b, acc, tmp, count, t, f.pof2, f.newrank, real_of_new, last, sent, lo, hi);
  sent.push_back(last);
  return join(b, sent);
}

}  // namespace baton::coll
