// Neighbor allgatherv: this rank's send buffer to every out-neighbor, rcounts[i] elements at
// rdispls[i] of the receive buffer from in-neighbor i.
#include "coll/algorithms/neighbor/neighbor_exchange.hpp"

namespace baton::coll {

errc neighbor_allgatherv_linear(const coll_args& a, builder& b) {
  return neighbor_exchange(
      a, b, [&](size_t) { return nbr_block{buf_ref{slot_send, 0}, a.count, a.type}; },
      [&](size_t i) { return nbr_block{at(buf_ref{slot_recv, 0}, a.rtype, a.rdispls[i]), a.rcounts[i], a.rtype}; });
}

}  // namespace baton::coll
