// Intercommunicator scatter: the root (MPI_ROOT) sends block j (at j * count elements of its send
// type) straight to remote rank j.
#include "coll/algorithms/inter/inter_common.hpp"

namespace baton::coll {

errc inter_scatter_linear(const coll_args& a, builder& b) {
  using namespace inter;
  if (a.root == root_here) {
    for (int j = 0; j < a.c->size; ++j)
      b.send(remote_peer(a, j), at(buf_ref{slot_send, 0}, a.type, j * a.count), a.count, a.type);
  } else if (a.root != root_elsewhere) {
    b.recv(remote_peer(a, a.root), buf_ref{slot_recv, 0}, a.rcount, a.rtype);
  }
  return errc::success;
}

}  // namespace baton::coll
