// Neighbor alltoallv: scounts[i] elements at sdispls[i] to out-neighbor i, rcounts[i] elements at
// rdispls[i] from in-neighbor i (displacements in elements of the side's type).
#include "coll/algorithms/neighbor/neighbor_exchange.hpp"

namespace baton::coll {

errc neighbor_alltoallv_linear(const coll_args& a, builder& b) {
  return neighbor_exchange(
      a, b, [&](size_t i) { return nbr_block{at(buf_ref{slot_send, 0}, a.type, a.sdispls[i]), a.scounts[i], a.type}; },
      [&](size_t i) { return nbr_block{at(buf_ref{slot_recv, 0}, a.rtype, a.rdispls[i]), a.rcounts[i], a.rtype}; });
}

}  // namespace baton::coll
