// Intercommunicator scatterv: as inter_scatter_linear, block j taken at sdispls[j] with scounts[j]
// elements of the root's send type.
#include "coll/algorithms/inter/inter_common.hpp"

namespace baton::coll {

errc inter_scatterv_linear(const coll_args& a, builder& b) {
  using namespace inter;
  if (a.root == root_here) {
    for (int j = 0; j < a.c->size; ++j)
      b.send(remote_peer(a, j), at(buf_ref{slot_send, 0}, a.type, a.sdispls[j]), a.scounts[j], a.type);
  } else if (a.root != root_elsewhere) {
    b.recv(remote_peer(a, a.root), buf_ref{slot_recv, 0}, a.rcount, a.rtype);
  }
  return errc::success;
}

}  // namespace baton::coll
