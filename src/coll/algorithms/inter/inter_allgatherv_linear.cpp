// Intercommunicator allgatherv: as inter_allgather_linear, remote rank j's block landing at
// rdispls[j] with rcounts[j] elements of the receive type.
#include "coll/algorithms/inter/inter_common.hpp"

namespace baton::coll {

errc inter_allgatherv_linear(const coll_args& a, builder& b) {
  using namespace inter;
  const int n = a.c->size;
  for (int k = 0; k < n; ++k) {
    const int j = (a.c->rank + k) % n;
    b.recv(remote_peer(a, j), at(buf_ref{slot_recv, 0}, a.rtype, a.rdispls[j]), a.rcounts[j], a.rtype);
    b.send(remote_peer(a, j), buf_ref{slot_send, 0}, a.count, a.type);
  }
  return errc::success;
}

}  // namespace baton::coll
