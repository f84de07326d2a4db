// Windowed linear alltoallw: every message posted at once, up to a2a_linear_window (32) exchange steps
// in flight; a step beyond the window starts when the one a window earlier has completed. Send to
// rank + k, receive from rank - k, so the ranks do not all hit the same peer at once.
#include "coll/algorithms/alltoall/alltoall_exchange.hpp"

namespace baton::coll {

errc alltoallw_linear(const coll_args& a, builder& b) {
  return a2a_exchange(a, b, a2a_linear_window, false);
}

}  // namespace baton::coll
