// Neighbor allgather: this rank's send buffer to every out-neighbor, block i of the receive
// buffer from in-neighbor i.
#include "coll/algorithms/neighbor/neighbor_exchange.hpp"

namespace baton::coll {

errc neighbor_allgather_linear(const coll_args& a, builder& b) {
  return neighbor_exchange(
      a, b, [&](size_t) { return nbr_block{buf_ref{slot_send, 0}, a.count, a.type}; },
      [&](size_t i) { return nbr_block{at(buf_ref{slot_recv, 0}, a.rtype, int64_t(i) * a.rcount), a.rcount, a.rtype}; });
}

}  // namespace baton::coll
