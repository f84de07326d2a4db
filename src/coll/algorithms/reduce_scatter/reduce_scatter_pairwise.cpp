// Pairwise reduce_scatter: n - 1 steps, rank order kept (non-commutative ops). See
// reduce_scatter_common.hpp.
#include "coll/algorithms/reduce_scatter/reduce_scatter_common.hpp"

namespace baton::coll {

errc reduce_scatter_pairwise(const coll_args& a, builder& b) {
  return reduce_scatter_pairwise_counts(a, b, std::vector<int64_t>(a.rcounts, a.rcounts + a.c->size));
}

}  // namespace baton::coll
