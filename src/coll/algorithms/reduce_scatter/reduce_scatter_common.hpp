// Shared by reduce_scatter and reduce_scatter_block: both algorithms take the per-rank block
// counts (elements of the call's type; block r starts after blocks 0..r-1 in the send buffer, or
// in the receive buffer with MPI_IN_PLACE).
#pragma once

#include <cstdint>
#include <vector>

#include "coll/algorithms/algorithms.hpp"

namespace baton::coll {

// Recursive halving: log2 n rounds; each rank keeps the half of the remaining blocks that holds
// its own, sends the other half to rank ^ mask and reduces what comes back. Needs a commutative
// op and a power-of-two rank count.
errc reduce_scatter_halving(const coll_args& a, builder& b, const std::vector<int64_t>& counts);

// Pairwise: in step k a rank sends block me + k to rank me + k and receives its own block from
// rank me - k. Contributions are combined in rank order (any op).
errc reduce_scatter_pairwise_counts(const coll_args& a, builder& b, const std::vector<int64_t>& counts);

}  // namespace baton::coll
