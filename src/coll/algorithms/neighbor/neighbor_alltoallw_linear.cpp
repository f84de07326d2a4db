// Neighbor alltoallw: per-neighbor counts, byte displacements and types on both sides.
#include "coll/algorithms/neighbor/neighbor_exchange.hpp"

namespace baton::coll {

errc neighbor_alltoallw_linear(const coll_args& a, builder& b) {
  return neighbor_exchange(
      a, b, [&](size_t i) { return nbr_block{buf_ref{slot_send, a.sdispls[i]}, a.scounts[i], a.stypes[i]}; },
      [&](size_t i) { return nbr_block{buf_ref{slot_recv, a.rdispls[i]}, a.rcounts[i], a.rtypes[i]}; });
}

}  // namespace baton::coll
