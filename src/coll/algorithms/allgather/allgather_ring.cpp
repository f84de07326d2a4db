// Ring allgather: the ring allgatherv (allgatherv_ring.cpp) with equal blocks.
#include "coll/algorithms/gather/gather_helpers.hpp"

namespace baton::coll {

using namespace gather_detail;

errc allgather_ring(const coll_args& a, builder& b) {
  std::vector<int64_t> counts, displs;
  uniform_blocks(a.c->size, a.rcount, &counts, &displs);
  return allgatherv_ring_impl(a, b, counts, displs);
}

}  // namespace baton::coll
