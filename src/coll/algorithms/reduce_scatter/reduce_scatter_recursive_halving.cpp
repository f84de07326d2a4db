// Recursive-halving reduce_scatter (commutative ops, power-of-two rank counts): log2 n rounds,
// each moving half of what the previous one did. See reduce_scatter_common.hpp.
#include "coll/algorithms/reduce_scatter/reduce_scatter_common.hpp"

namespace baton::coll {

errc reduce_scatter_recursive_halving(const coll_args& a, builder& b) {
  return reduce_scatter_halving(a, b, std::vector<int64_t>(a.rcounts, a.rcounts + a.c->size));
}

}  // namespace baton::coll
