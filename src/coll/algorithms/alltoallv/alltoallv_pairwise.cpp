// Pairwise alltoallv: n - 1 exchange steps, one peer at a time (step k's messages start when step
// k-1's have completed), so each rank has at most one message in flight each way. Peers are
// rank ^ k when the rank count is a power of two (both sides of a step talk to each other), else
// rank + k (send) and rank - k (receive). The bandwidth choice for large blocks.
#include "coll/algorithms/alltoall/alltoall_exchange.hpp"

namespace baton::coll {

errc alltoallv_pairwise(const coll_args& a, builder& b) {
  const int n = a.c->size;
  return a2a_exchange(a, b, 1, (n & (n - 1)) == 0);
}

}  // namespace baton::coll
