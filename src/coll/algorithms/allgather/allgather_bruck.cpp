// Bruck allgather: the Bruck allgatherv (allgatherv_bruck.cpp) with equal blocks.
#include "coll/algorithms/gather/gather_helpers.hpp"

namespace baton::coll {

using namespace gather_detail;

errc allgather_bruck(const coll_args& a, builder& b) {
  std::vector<int64_t> counts, displs;
  uniform_blocks(a.c->size, a.rcount, &counts, &displs);
  return allgatherv_bruck_impl(a, b, counts, displs);
}

}  // namespace baton::coll
