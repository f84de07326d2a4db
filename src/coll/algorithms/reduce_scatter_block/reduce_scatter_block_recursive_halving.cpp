// Recursive-halving reduce_scatter_block (commutative ops, power-of-two rank counts): the
// reduce_scatter algorithm with every block `count` elements.
#include "coll/algorithms/reduce_scatter/reduce_scatter_common.hpp"

namespace baton::coll {

errc reduce_scatter_block_recursive_halving(const coll_args& a, builder& b) {
  return reduce_scatter_halving(a, b, std::vector<int64_t>(a.c->size, a.count));
}

}  // namespace baton::coll
