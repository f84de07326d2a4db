// Intercommunicator gatherv: as inter_gather_linear, block j landing at rdispls[j] with rcounts[j]
// elements of the root's receive type.
#include "coll/algorithms/inter/inter_common.hpp"

namespace baton::coll {

errc inter_gatherv_linear(const coll_args& a, builder& b) {
  using namespace inter;
  if (a.root == root_here) {
    for (int j = 0; j < a.c->size; ++j)
      b.recv(remote_peer(a, j), at(buf_ref{slot_recv, 0}, a.rtype, a.rdispls[j]), a.rcounts[j], a.rtype);
  } else if (a.root != root_elsewhere) {
    b.send(remote_peer(a, a.root), buf_ref{slot_send, 0}, a.count, a.type);
  }
  return errc::success;
}

}  // namespace baton::coll
