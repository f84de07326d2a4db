// Pairwise reduce_scatter_block: the reduce_scatter algorithm with every block `count` elements;
// rank order kept (non-commutative ops).
#include "coll/algorithms/reduce_scatter/reduce_scatter_common.hpp"

namespace baton::coll {

errc reduce_scatter_block_pairwise(const coll_args& a, builder& b) {
  return reduce_scatter_pairwise_counts(a, b, std::vector<int64_t>(a.c->size, a.count));
}

}  // namespace baton::coll
